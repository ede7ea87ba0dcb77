// Command pinned runs the pinned workload of package repro under a schedcheck
// Monitor and prints what it reports: go run ./schedcheck/internal/repro/pinned
package main

import "github.com/worksteal/steal/schedcheck/internal/repro"

func main() { repro.Main("pinned") }
