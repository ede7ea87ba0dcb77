package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// With -procs, every worker of a sweep trial is a process of its own
// (this program again, see sweepChildMain), with its own Go runtime and
// its own TCP connection to the trial's server, as in a real cluster. This
// process keeps the server and the design's submitting side and measures
// exactly as with in-process workers: the clock runs from the first
// submission (or the gate's opening) to the last completion counted.
//
// A worker process and this one talk over its stdin and stdout, not over
// the server, so that the server's load and message counts are the
// design's alone. It writes "ready" once its worker can take jobs; this
// process writes "go" when the gate opens, and "s" to ask for its counts
// (answered "s <completed> <stolen>"). After each job it has run, it
// writes "n <completed> <stolen>" as the counts change, looking every
// millisecond until its worker has recorded the job's completion (see
// reporter). Completions are therefore counted as in-process (the cluster package: the
// worker's recorded completions; central: Acks returned), but reach the
// clock up to a millisecond and a pipe later.

// procStart bounds the wait for a worker process to be ready.
const procStart = 30 * time.Second

// procDesign is d with its workers in processes.
func procDesign(d design, fetchK int) design {
	return design{Name: d.Name, Mode: modeProcesses, BatchOnly: d.BatchOnly, workers: d.workers,
		make: func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error) {
			base, err := d.make(e, wl, gate)
			if err != nil {
				return nil, err
			}
			spec := childSpec{Design: d.Name, FetchK: fetchK, Workload: wl, URL: e.URL()}
			return newProcSystem(base, spec, gate), nil
		}}
}

// procSystem submits through base, whose own workers are never started,
// and runs its workers as processes.
type procSystem struct {
	base    system
	spec    childSpec
	mu      sync.Mutex
	kids    []*sweepChild
	opened  bool
	quit    chan struct{}
	forward sync.WaitGroup
}

func newProcSystem(base system, spec childSpec, gate <-chan struct{}) *procSystem {
	s := &procSystem{base: base, spec: spec, quit: make(chan struct{})}
	s.forward.Go(func() {
		select {
		case <-gate:
			s.openAll()
		case <-s.quit:
		}
	})
	return s
}

// openAll tells every worker process that the gate is open, and marks it
// open for those started later.
func (s *procSystem) openAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = true
	for _, k := range s.kids {
		k.open()
	}
}

// start starts worker processes from..to-1 at once and waits until each
// is ready, or has exited, or ctx or procStart ends.
func (s *procSystem) start(ctx context.Context, from, to int) error {
	var kids []*sweepChild
	for i := from; i < to; i++ {
		spec := s.spec
		spec.Index = i
		k, err := startSweepChild(spec)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.kids = append(s.kids, k) // close kills it, whatever happens next
		if s.opened {
			k.open() // the pipe holds it until the process reads it
		}
		s.mu.Unlock()
		kids = append(kids, k)
	}
	limit := time.NewTimer(procStart)
	defer limit.Stop()
	for _, k := range kids {
		select {
		case <-k.ready:
		case <-k.eof:
			return fmt.Errorf("worker process %s exited before it was ready", workerName(k.index))
		case <-ctx.Done():
			return ctx.Err()
		case <-limit.C:
			return fmt.Errorf("worker process %s not ready within %v", workerName(k.index), procStart)
		}
	}
	return nil
}

func (s *procSystem) submit(ctx context.Context, id string, payload []byte, first bool) error {
	return s.base.submit(ctx, id, payload, first)
}

func (s *procSystem) submitBatch(ctx context.Context, ids []string, payload []byte) error {
	return s.base.submitBatch(ctx, ids, payload)
}

func (s *procSystem) lateSubmits() int64 {
	if l, ok := s.base.(interface{ lateSubmits() int64 }); ok {
		return l.lateSubmits()
	}
	return 0
}

func (s *procSystem) sum(f func(*sweepChild) int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, k := range s.kids {
		n += f(k)
	}
	return n
}

func (s *procSystem) completed() int64 {
	return s.sum(func(k *sweepChild) int64 { return k.done.Load() })
}

// stolen asks every worker process for its counts, so that a skewed
// start's steals before the clock are counted exactly, as in-process.
func (s *procSystem) stolen() int64 {
	s.mu.Lock()
	kids := s.kids
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, k := range kids {
		wg.Go(k.askCounts)
	}
	wg.Wait()
	return s.sum(func(k *sweepChild) int64 { return k.stolen.Load() })
}

// close kills every worker process by its pid, reaps them (each wait
// bounded), then closes the submitting side.
func (s *procSystem) close() {
	close(s.quit)
	s.forward.Wait()
	s.mu.Lock()
	kids := s.kids
	s.mu.Unlock()
	for _, k := range kids {
		k.kill()
	}
	for _, k := range kids {
		k.reap()
	}
	s.base.close()
}
