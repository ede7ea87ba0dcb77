// Package suite lists the stealvet analyzers: the static checks for Go
// programs that defeat the runtime's work-stealing scheduler.
//
// The stealvet command, the golangci-lint plugin and any other driver
// take their analyzers from Analyzers, so adding an analyzer to the
// suite is one line in that list (and one import).
package suite

import (
	"golang.org/x/tools/go/analysis"

	"github.com/worksteal/steal/vet/passes/callfreeloop"
	"github.com/worksteal/steal/vet/passes/cgoflood"
	"github.com/worksteal/steal/vet/passes/containerprocs"
	"github.com/worksteal/steal/vet/passes/lockthread"
	"github.com/worksteal/steal/vet/passes/maxprocsone"
	"github.com/worksteal/steal/vet/passes/racyqueue"
	"github.com/worksteal/steal/vet/passes/selectspin"
	"github.com/worksteal/steal/vet/passes/unboundedgo"
	"github.com/worksteal/steal/vet/passes/yieldless"
)

// Analyzers are the analyzers of the suite, in the order of the
// pitfalls they report.
var Analyzers = []*analysis.Analyzer{
	lockthread.Analyzer,     // thread locked across a work loop
	maxprocsone.Analyzer,    // GOMAXPROCS(1): nothing to steal from
	callfreeloop.Analyzer,   // tight loop without a preemption point
	unboundedgo.Analyzer,    // a goroutine per event, no bound
	racyqueue.Analyzer,      // hand-written queue with plain accesses (opt-in: -racyqueue.enable)
	yieldless.Analyzer,      // scheduler loop that never blocks or yields
	selectspin.Analyzer,     // select-with-default spin
	cgoflood.Analyzer,       // unbounded concurrent cgo calls
	containerprocs.Analyzer, // GOMAXPROCS(NumCPU()) in containers
}
