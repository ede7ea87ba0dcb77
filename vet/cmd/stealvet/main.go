// Command stealvet reports Go code that defeats the runtime's
// work-stealing scheduler: threads locked across work loops,
// GOMAXPROCS pinned to one or to NumCPU, call-free spin loops and
// select-with-default spins.
//
// It runs standalone,
//
//	stealvet ./...
//	stealvet -fix ./...      # apply the suggested fixes
//
// or under go vet,
//
//	go vet -vettool=$(which stealvet) ./...
//
// Every analyzer has a flag of its own name: -NAME=false switches it
// off, and naming some with -NAME (=true) runs only those
// (multichecker's rule). "stealvet help" lists the analyzers.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/worksteal/steal/vet/suite"
)

func main() { multichecker.Main(suite.Analyzers...) }
