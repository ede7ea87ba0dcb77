// Command healthy runs the healthy workload of package repro under a schedcheck
// Monitor and prints what it reports: go run ./schedcheck/internal/repro/healthy
package main

import "github.com/worksteal/steal/schedcheck/internal/repro"

func main() { repro.Main("healthy") }
