package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/worksteal/steal/cluster"
)

// treeJob is a tree job's payload: it sleeps SleepMS, then spawns Fanout
// children one level less deep.
type treeJob struct {
	Depth   int `json:"depth"`
	Fanout  int `json:"fanout"`
	SleepMS int `json:"sleep_ms"`
}

// Bounds on a tree job, so that one submission cannot ask for more than a
// demo's worth of work.
const (
	maxTreeSleepMS = 10_000
	maxTreeFanout  = 10
	maxTreeJobs    = 100_000
	maxSleep       = time.Minute
)

// size is the number of jobs in the tree, root included, or an error when
// the payload is out of bounds.
func (t treeJob) size() (int, error) {
	if t.Depth < 0 || t.Fanout < 0 || t.Fanout > maxTreeFanout || t.SleepMS < 0 || t.SleepMS > maxTreeSleepMS {
		return 0, fmt.Errorf("tree job: depth must be at least 0, fanout 0 to %d, sleep_ms 0 to %d; got %+v",
			maxTreeFanout, maxTreeSleepMS, t)
	}
	if t.Fanout == 0 {
		// No children whatever the depth. Counting level by level would
		// loop Depth times: a huge depth would pin the worker's CPU.
		return 1, nil
	}
	n, level := 1, 1
	for range t.Depth {
		level *= t.Fanout
		n += level
		if n > maxTreeJobs {
			return 0, fmt.Errorf("tree job: more than %d jobs in the tree", maxTreeJobs)
		}
	}
	return n, nil
}

// register adds the program's handlers to w.
func register(w *cluster.Worker) {
	w.Handle("tree", runTree)
	w.Handle("sleep", runSleep)
}

func runTree(ctx context.Context, j *cluster.Job) ([]byte, error) {
	var t treeJob
	if err := json.Unmarshal(j.Payload, &t); err != nil {
		return nil, fmt.Errorf("tree job: payload: %v", err)
	}
	if _, err := t.size(); err != nil {
		return nil, err
	}
	if err := sleepCtx(ctx, time.Duration(t.SleepMS)*time.Millisecond); err != nil {
		return nil, err
	}
	if t.Depth == 0 {
		return nil, nil
	}
	child, _ := json.Marshal(treeJob{t.Depth - 1, t.Fanout, t.SleepMS})
	for range t.Fanout {
		if _, err := j.Spawn(ctx, "tree", child); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func runSleep(ctx context.Context, j *cluster.Job) ([]byte, error) {
	d := time.Duration(j.Cost) * time.Microsecond
	if d < 0 || d > maxSleep {
		return nil, fmt.Errorf("sleep job: cost %d µs is outside 0 to %v", j.Cost, maxSleep)
	}
	return nil, sleepCtx(ctx, d)
}

// sleepCtx sleeps d, or less when ctx ends (the worker is closing: the
// error leaves the job queued for another worker).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
