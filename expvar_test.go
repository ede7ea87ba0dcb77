package steal_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/worksteal/steal"
)

// The value Expvar returns is an expvar.Var.
var _ expvar.Var = (*steal.Pool)(nil).Expvar()

// published numbers the names this test publishes under: expvar keeps a
// name for the life of the process, and go test -count runs a test again.
var published atomic.Int64

func TestExpvarPublishesStats(t *testing.T) {
	p := steal.New(steal.WithWorkers(2), steal.WithQueueWaitSampling(1), steal.WithPanicLimit(1))
	name := fmt.Sprintf("steal_test_pool_%d", published.Add(1))
	expvar.Publish(name, p.Expvar())
	for range 3 {
		p.Go(func() {})
	}
	p.Go(func() { panic("boom") })
	p.Close() // returns the panic; counted below
	var got map[string]any
	if err := json.Unmarshal([]byte(expvar.Get(name).String()), &got); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]float64{"workers": 2, "submitted": 4, "backlog": 0, "ran": 4,
		"completed": 3, "failed": 1, "skipped": 0, "panics_kept": 1, "panics_dropped": 0} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	wait, _ := got["queue_wait"].(map[string]any)
	if wait["every"] != 1.0 || wait["count"] != 4.0 {
		t.Errorf("queue_wait = %v, want every 1 and count 4", wait)
	}
	for _, key := range []string{"sum_seconds", "p50_seconds", "p90_seconds", "p99_seconds"} {
		if v, ok := wait[key].(float64); !ok || v < 0 {
			t.Errorf("queue_wait.%s = %v, want a duration in seconds", key, wait[key])
		}
	}
}
