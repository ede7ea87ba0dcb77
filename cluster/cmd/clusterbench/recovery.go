package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// recoveryJob is the job the killed worker is running: the survivor runs
// it again, so it is part of the time to the completed ledger.
const recoveryJob = 100 * time.Millisecond

// recoveryTimeout bounds each wait of a recovery trial.
const recoveryTimeout = 20 * time.Second

// recoveryResult: from the SIGKILL to the survivor holding the job
// (takeover, or redelivery for the central queue) and to its completion.
type recoveryResult struct {
	Takeover, Complete time.Duration
}

// recoveryDist: a worker process (lease 1 s, heartbeat every 250 ms) is
// killed with SIGKILL while it runs a job; an in-process survivor takes
// the job over when the lease expires and runs it again.
func recoveryDist() (recoveryResult, error) {
	var res recoveryResult
	e, err := natsserver.Start()
	if err != nil {
		return res, err
	}
	defer e.Shutdown()
	open := make(chan struct{})
	close(open)
	wl := workload{Kind: kindThroughput, Job: recoveryJob}
	sys, err := newDistSystem(e, cluster.StealOff, wl, open, time.Second)
	if err != nil {
		return res, err
	}
	defer sys.close()
	ctx, cancel := context.WithTimeout(context.Background(), recoveryTimeout)
	defer cancel()
	if err := sys.start(ctx, 0, 1); err != nil {
		return res, err
	}
	victim := func() error {
		return sys.client.Submit(ctx, "r0", "job", depthPayload(0), cluster.To("c1"))
	}
	tk, err := killMidJob(e, "dist", victim)
	if err != nil {
		return res, err
	}
	taken := func() bool {
		return sys.sum(func(st cluster.WorkerStats) int64 { return st.TakenOver }) > 0
	}
	if err := poll(ctx, taken); err != nil {
		return res, fmt.Errorf("takeover: %w", err)
	}
	res.Takeover = time.Since(tk)
	if err := poll(ctx, func() bool { return sys.completed() > 0 }); err != nil {
		return res, fmt.Errorf("completion: %w", err)
	}
	res.Complete = time.Since(tk)
	return res, nil
}

// recoveryCentral: a worker process fetches the job from the central
// queue and is killed with SIGKILL while it runs it; the server delivers
// the job again once its AckWait (1 s) has passed, to an in-process
// survivor started after the kill.
func recoveryCentral() (recoveryResult, error) {
	var res recoveryResult
	e, err := natsserver.Start()
	if err != nil {
		return res, err
	}
	defer e.Shutdown()
	open := make(chan struct{})
	close(open)
	sys, err := newCentralSystem(e, 1, centralSync, workload{Kind: kindThroughput, Job: recoveryJob}, open, time.Second)
	if err != nil {
		return res, err
	}
	defer sys.close()
	var redelivered atomic.Bool
	sys.onMsg = func(jetstream.Msg) { redelivered.Store(true) }
	ctx, cancel := context.WithTimeout(context.Background(), recoveryTimeout)
	defer cancel()
	tk, err := killMidJob(e, "central", func() error { return sys.submit(ctx, "", []byte("r0"), false) })
	if err != nil {
		return res, err
	}
	if err := sys.start(ctx, 0, 1); err != nil {
		return res, err
	}
	if err := poll(ctx, redelivered.Load); err != nil {
		return res, fmt.Errorf("redelivery: %w", err)
	}
	res.Takeover = time.Since(tk)
	if err := poll(ctx, func() bool { return sys.completed() > 0 }); err != nil {
		return res, fmt.Errorf("completion: %w", err)
	}
	res.Complete = time.Since(tk)
	return res, nil
}

// killMidJob starts worker process c1 of role, waits until it is ready,
// queues one job with submit, waits until c1 has started it, kills c1 with
// SIGKILL and returns the instant of the kill.
func killMidJob(e *natsserver.Server, role string, submit func() error) (time.Time, error) {
	nc, err := e.Connect()
	if err != nil {
		return time.Time{}, err
	}
	defer nc.Close()
	ready, _ := nc.SubscribeSync("bench.ready.c1")
	started, _ := nc.SubscribeSync("bench.started")
	if err := nc.Flush(); err != nil {
		return time.Time{}, err
	}
	c, err := startChild(role, e.URL(), "c1", recoveryJob)
	if err != nil {
		return time.Time{}, err
	}
	if _, err := ready.NextMsg(recoveryTimeout); err != nil {
		c.stop()
		return time.Time{}, fmt.Errorf("worker process not ready: %w", err)
	}
	if err := submit(); err != nil {
		c.stop()
		return time.Time{}, err
	}
	m, err := started.NextMsg(recoveryTimeout)
	if err != nil || !strings.HasPrefix(string(m.Data), "c1 ") {
		c.stop()
		return time.Time{}, fmt.Errorf("worker process did not start the job: %v", err)
	}
	tk := time.Now()
	c.kill()
	return tk, nil
}

// poll checks cond every millisecond until it holds or ctx ends.
func poll(ctx context.Context, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}
