// Command stealvet reports Go code that defeats the runtime's
// work-stealing scheduler: threads locked across work loops,
// GOMAXPROCS pinned to one or to NumCPU, call-free spin loops,
// select-with-default spins, a goroutine per event with no bound,
// scheduler loops that never yield, unbounded concurrent cgo calls and,
// with -racyqueue.enable, plain accesses to fields used atomically.
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
// off, and naming some with -NAME (=true) runs only those. That is
// multichecker's rule (its flag parsing, analysisflags.Parse in
// x/tools, registers -NAME for each analyzer and -NAME.FLAG for each
// of its flags), and go vet passes those flags on since the tool
// lists them for go vet's -flags query. "stealvet help" lists the
// analyzers. The analyzers come from suite.Analyzers.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/worksteal/steal/vet/suite"
)

func main() { multichecker.Main(suite.Analyzers...) }
