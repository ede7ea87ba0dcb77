// Command gomaxprocs1 runs the gomaxprocs1 workload of package repro under a schedcheck
// Monitor and prints what it reports: go run ./schedcheck/internal/repro/gomaxprocs1
package main

import "github.com/worksteal/steal/schedcheck/internal/repro"

func main() { repro.Main("gomaxprocs1") }
