package cluster

import (
	"context"
	"errors"
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
