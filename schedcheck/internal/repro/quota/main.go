// Command quota runs the quota workload of package repro under a schedcheck
// Monitor and prints what it reports: go run ./schedcheck/internal/repro/quota
package main

import "github.com/worksteal/steal/schedcheck/internal/repro"

func main() { repro.Main("quota") }
