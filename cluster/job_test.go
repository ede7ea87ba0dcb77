package cluster

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestSpawnAfterReturn: a handler that keeps its *Job and spawns once the
// job completed gets ErrFenced and queues nothing, in every spawn mode;
// in memory (WithSpawnRecords(false)) such a child used to run and finish
// its recorded parent a second time.
func TestSpawnAfterReturn(t *testing.T) {
	for name, opt := range map[string]Option{
		"local":   WithLocalSpawn(true),
		"written": WithLocalSpawn(false),
		"memory":  WithSpawnRecords(false),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, opt)
			kept := make(chan *Job, 1)
			h.worker("a", func(w *Worker) {
				w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
					kept <- j
					return nil, nil
				})
				w.Handle("kid", h.sleeper(0))
			})
			h.ready("a")
			if err := h.client.Submit(context.Background(), "r", "root", nil); err != nil {
				t.Fatal(err)
			}
			h.wait("r")
			j := <-kept
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			// The ledger holds r's completion; the worker may still be
			// deleting its record, which Spawn does not wait for.
			waitFor(t, 5*time.Second, "r's record to go", func() bool { return h.count("q.>") == 0 })
			id, err := j.Spawn(ctx, "kid", nil)
			if !errors.Is(err, ErrFenced) {
				t.Errorf("Spawn after the job completed = %v, want ErrFenced", err)
			}
			time.Sleep(300 * time.Millisecond)
			if n := h.runCount(id); n != 0 {
				t.Errorf("the late child ran %d times", n)
			}
		})
	}
}

// TestConcurrentSpawn: a handler that spawns from several goroutines
// (fork-join code) gets one id per call and every child runs; the race
// detector checks the count of ids.
func TestConcurrentSpawn(t *testing.T) {
	h := newHarness(t)
	const n = 8
	ids := make(chan string, n)
	h.worker("a", func(w *Worker) {
		w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					id, err := j.Spawn(ctx, "kid", nil)
					if err != nil {
						t.Error(err)
					}
					ids <- id
				})
			}
			wg.Wait()
			return nil, nil
		})
		w.Handle("kid", h.sleeper(0))
	})
	h.ready("a")
	if err := h.client.Submit(context.Background(), "r", "root", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("r")
	seen := map[string]bool{}
	for range n {
		id := <-ids
		if seen[id] {
			t.Errorf("two Spawns got id %s", id)
		}
		seen[id] = true
		h.wait(id)
		if runs := h.runCount(id); runs != 1 {
			t.Errorf("%s ran %d times", id, runs)
		}
	}
}
