package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// trialResult is what one trial of one design measured.
type trialResult struct {
	Elapsed   time.Duration
	Stolen    int64           // jobs moved by steals
	PreStolen int64           // skew: jobs stolen before the clock started
	Steals    []time.Duration // observed steals that moved jobs
	Empty     int             // observed steals answered with nothing
	Fetches   []time.Duration // central: time to each Fetch's first job
	Msgs      int64           // messages into and out of the server from the start of loading, once the workers settled
	CPU       time.Duration   // CPU time of every process of the trial while the clock ran
	KidCPU    time.Duration   // of which the worker processes' (0 in-process)
	KidSlices int64           // times the worker processes' threads were put on a CPU meanwhile
	Late      int64           // submissions answered cluster.ErrMaybeStored (stored, answer lost)
}

var errTimeout = errors.New("the run did not finish in time")

// trialTimeout bounds one trial, whatever happens; trialLimit raises it
// for large workloads.
const trialTimeout = 2 * time.Minute

// trialLimit bounds a trial of wl: trialTimeout, or 2 ms a job if more
// (the spawn-heavy trees of -compare -big).
func trialLimit(wl workload) time.Duration {
	if wl.Limit > 0 {
		return wl.Limit
	}
	return max(trialTimeout, time.Duration(wl.total())*2*time.Millisecond)
}

// runTrial runs wl on w workers of design d, on a fresh embedded server.
// Jobs wait at a gate until the clock starts, so that a skewed start is
// all on the first worker and a tree's root does not run before the
// thieves exist.
func runTrial(d design, wl workload, w int, observe bool) (res trialResult, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), trialLimit(wl))
	defer cancel()
	e, err := natsserver.Start()
	if err != nil {
		return res, err
	}
	defer e.Shutdown()
	gate := make(chan struct{})
	var once sync.Once
	var cpu0 cpuSnap
	sys, err := d.make(e, wl, gate)
	if err != nil {
		return res, err
	}
	open := func() {
		once.Do(func() {
			cpu0 = cpuSplit(sys)
			close(gate)
		})
	}
	defer sys.close()
	defer open() // before close: handlers may wait at the gate
	var obs *stealObserver
	if observe {
		if obs, err = observeSteals(e); err != nil {
			return res, err
		}
	}
	var m0 int64
	begin := func() error {
		if err := settle(ctx, e, w); err != nil {
			return err
		}
		m0 = serverMsgs(e)
		return nil
	}
	t0, err := load(ctx, sys, wl, w, begin, open, &res)
	if err == nil {
		err = waitDone(ctx, sys, int64(wl.total()))
	}
	res.Elapsed = time.Since(t0)
	cpu1 := cpuSplit(sys)
	res.CPU = cpu1.total() - cpu0.total()
	res.KidCPU, res.KidSlices = cpu1.kids-cpu0.kids, cpu1.kidSlices-cpu0.kidSlices
	res.Msgs = serverMsgs(e) - m0
	res.Stolen = sys.stolen()
	if l, ok := sys.(interface{ lateSubmits() int64 }); ok {
		res.Late = l.lateSubmits()
	}
	if obs != nil {
		res.Steals, res.Empty, _ = obs.stop()
	}
	if c, ok := sys.(*centralSystem); ok {
		res.Fetches = c.fetchTimes()
	}
	if err != nil {
		return res, fmt.Errorf("%s %s W=%d: %w", d.Name, wl.Name, w, err)
	}
	return res, nil
}

// serverMsgs counts the messages the server has received and sent.
func serverMsgs(e *natsserver.Server) int64 {
	v, err := e.NATS().Varz(nil)
	if err != nil {
		return 0
	}
	return v.InMsgs + v.OutMsgs
}

// load starts the workers, calls begin once they have (the first
// worker, for a skewed start), places the workload's jobs, opens the gate
// and returns when the clock started.
func load(ctx context.Context, sys system, wl workload, w int, begin func() error, open func(), res *trialResult) (time.Time, error) {
	switch wl.Kind {
	case kindThroughput:
		if err := startAll(ctx, sys, 0, w, begin); err != nil {
			return time.Now(), err
		}
		open()
		t0 := time.Now()
		if wl.Bundle > 0 {
			return t0, submitBundles(ctx, sys, wl.Jobs, wl.Bundle)
		}
		return t0, submitAll(ctx, sys, wl.Jobs, false)
	case kindSkew:
		if err := startAll(ctx, sys, 0, 1, begin); err != nil {
			return time.Now(), err
		}
		if err := submitAll(ctx, sys, wl.Jobs, true); err != nil {
			return time.Now(), err
		}
		if err := sys.start(ctx, 1, w); err != nil {
			return time.Now(), err
		}
		res.PreStolen = sys.stolen()
	default: // kindTree
		if err := startAll(ctx, sys, 0, w, begin); err != nil {
			return time.Now(), err
		}
		for i, d := range wl.rootDepths() {
			if err := sys.submit(ctx, "root"+strconv.Itoa(i), depthPayload(d), !wl.Spread); err != nil {
				return time.Now(), err
			}
		}
	}
	open()
	return time.Now(), nil
}

// startAll starts workers [from, to) of sys, then calls begin.
func startAll(ctx context.Context, sys system, from, to int, begin func() error) error {
	if err := sys.start(ctx, from, to); err != nil {
		return err
	}
	return begin()
}

// Settling. A worker's start goes on after it is ready: it reads the
// workers bucket (W leases, so that starting W workers costs the server
// about W²/2 messages at once), starts its watch and scans for orphans.
// The trial waits until the server is about as quiet as idle workers keep
// it before it counts messages and starts the clock, so that a trial
// measures the workload, not the start of its workers; the idle cells
// report the start (its time, and the traffic that follows).

// settleQuiet: the server is settled when, over settleWindow, it handled
// fewer than settleQuiet messages per worker, plus settleSlack.
const (
	settleWindow = 100 * time.Millisecond
	settleQuiet  = 2
	settleSlack  = 20
	settleMax    = 10 * time.Second
)

// settle waits until the server is settled, at most settleMax.
func settle(ctx context.Context, e *natsserver.Server, w int) error {
	for limit := time.Now().Add(settleMax); time.Now().Before(limit); {
		m := serverMsgs(e)
		if !sleepCtx(ctx, settleWindow) {
			return ctx.Err()
		}
		if serverMsgs(e)-m < int64(settleQuiet*w+settleSlack) {
			return nil
		}
	}
	return nil
}

// submitAll submits jobs j0..j<n-1> from submitters goroutines.
func submitAll(ctx context.Context, sys system, n int, first bool) error {
	errs := make(chan error, submitters)
	var wg sync.WaitGroup
	for g := range submitters {
		wg.Go(func() {
			for i := g; i < n; i += submitters {
				if err := sys.submit(ctx, "j"+strconv.Itoa(i), depthPayload(0), first); err != nil {
					errs <- fmt.Errorf("submit j%d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// submitBundles submits jobs j0..j<n-1> in calls of size jobs, one
// batch call each, from submitters goroutines (call b from goroutine
// b mod submitters).
func submitBundles(ctx context.Context, sys system, n, size int) error {
	errs := make(chan error, submitters)
	var wg sync.WaitGroup
	for g := range submitters {
		wg.Go(func() {
			for from := g * size; from < n; from += submitters * size {
				to := min(from+size, n)
				ids := make([]string, 0, to-from)
				for i := from; i < to; i++ {
					ids = append(ids, "j"+strconv.Itoa(i))
				}
				if err := sys.submitBatch(ctx, ids, depthPayload(0)); err != nil {
					errs <- fmt.Errorf("submit j%d..j%d: %w", from, to-1, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// waitDone polls the completions every millisecond until there are n.
func waitDone(ctx context.Context, sys system, n int64) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for sys.completed() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %d of %d jobs completed", errTimeout, sys.completed(), n)
		case <-tick.C:
		}
	}
	return nil
}
