package main

import (
	"context"
	"fmt"
	"time"

	"github.com/worksteal/steal/dist"
)

// A system is one design under test, running on one embedded server for
// one trial. Every worker runs one job at a time, so W workers run at most
// W jobs at once in every design.
type system interface {
	// start starts workers from..to-1.
	start(ctx context.Context, from, to int) error
	// submit queues one job; first puts it on the first worker where the
	// design has worker queues.
	submit(ctx context.Context, id string, payload []byte, first bool) error
	// completed counts the recorded completions so far.
	completed() int64
	// stolen counts jobs moved by steals so far (0 for a central queue).
	stolen() int64
	close()
}

// A design names a system and how to build one.
type design struct {
	Name string
	make func(e *dist.Embedded, wl workload, gate <-chan struct{}) (system, error)
}

// designs lists the designs compared, in the order tables show them.
func designs(fetchK int) []design {
	return []design{
		{"steal", distDesign(dist.StealHalf)},
		{"steal-one", distDesign(dist.StealOne)},
		{"no-steal", distDesign(dist.StealOff)},
		{"central-f1", centralDesign(1)},
		{fmt.Sprintf("central-f%d", fetchK), centralDesign(fetchK)},
	}
}

func distDesign(m dist.StealMode) func(*dist.Embedded, workload, <-chan struct{}) (system, error) {
	return func(e *dist.Embedded, wl workload, gate <-chan struct{}) (system, error) {
		return newDistSystem(e, m, wl, gate, 3*time.Second) // dist's default lease
	}
}

func centralDesign(k int) func(*dist.Embedded, workload, <-chan struct{}) (system, error) {
	return func(e *dist.Embedded, wl workload, gate <-chan struct{}) (system, error) {
		return newCentralSystem(e, k, wl, gate, 30*time.Second)
	}
}
