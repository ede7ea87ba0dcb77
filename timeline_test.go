package steal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

type chromeTrace struct {
	TraceEvents []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Ts   float64        `json:"ts"`
		Tid  int            `json:"tid"`
		ID   int            `json:"id"`
		Args map[string]any `json:"args"`
	} `json:"traceEvents"`
}

// checkTrace parses a trace and checks it is consistent: B/E balanced per
// thread, timestamps non-decreasing per thread, steals naming real workers.
// It returns the number of task slices and steals.
func checkTrace(t *testing.T, data []byte, workers int) (tasks, steals int) {
	t.Helper()
	var tr chromeTrace
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("trace is not valid JSON: %v\n%.400s", err, data)
	}
	depth := map[int]int{}
	lastTs := map[int]float64{}
	for _, e := range tr.TraceEvents {
		if e.Tid < 0 || e.Tid >= workers {
			t.Fatalf("event on unknown worker %d: %+v", e.Tid, e)
		}
		if e.Ph == "M" || e.Ph == "s" || e.Ph == "f" {
			continue // flow ends sit on the victim's thread at the thief's time
		}
		if e.Ts < lastTs[e.Tid] {
			t.Fatalf("time goes backwards on worker %d: %v after %v", e.Tid, e.Ts, lastTs[e.Tid])
		}
		lastTs[e.Tid] = e.Ts
		switch e.Ph {
		case "B":
			depth[e.Tid]++
			if e.Name == "task" {
				tasks++
			}
		case "E":
			if depth[e.Tid]--; depth[e.Tid] < 0 {
				t.Fatalf("end without start on worker %d", e.Tid)
			}
		case "i":
			steals++
			v, th := int(e.Args["victim"].(float64)), int(e.Args["thief"].(float64))
			if v < 0 || v >= workers || th != e.Tid || v == th {
				t.Fatalf("steal names victim %d thief %d on worker %d", v, th, e.Tid)
			}
		}
	}
	for tid, d := range depth {
		if d != 0 {
			t.Fatalf("worker %d has %d slices never ended", tid, d)
		}
	}
	return tasks, steals
}

func TestTimelineTraceIsConsistent(t *testing.T) {
	const workers = 4
	p := New(WithWorkers(workers), WithTimeline(1<<16))
	if err := p.WriteTrace(new(bytes.Buffer)); err != ErrNotClosed {
		t.Fatalf("WriteTrace on a running pool: %v, want ErrNotClosed", err)
	}
	p.Run(func(w *Worker) {
		for range 200 {
			w.Spawn(func(*Worker) {
				s := 0
				for i := range 20000 {
					s += i
				}
				_ = s
			})
		}
	})
	p.Close()
	var buf bytes.Buffer
	if err := p.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	tasks, _ := checkTrace(t, buf.Bytes(), workers)
	if tasks != 201 {
		t.Fatalf("trace holds %d task slices, want 201", tasks)
	}
}

func TestTimelineTruncatedTraceStaysBalanced(t *testing.T) {
	p := New(WithWorkers(2), WithTimeline(7)) // odd: cuts inside a task
	p.Run(func(w *Worker) {
		for range 50 {
			w.Spawn(func(*Worker) {})
		}
	})
	p.Close()
	var buf bytes.Buffer
	if err := p.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	checkTrace(t, buf.Bytes(), 2)
}

// TestWriteTraceAfterFailedClose: the trace is there once the pool's tasks
// have all finished, whatever Close returned; only a Shutdown that gave up
// while tasks still ran leaves the pool running (ErrNotClosed) until they end.
func TestWriteTraceAfterFailedClose(t *testing.T) {
	p := New(WithWorkers(1), WithTimeline(64))
	release := make(chan struct{})
	p.Go(func() { <-release; panic("boom") })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Shutdown: %v, want context.DeadlineExceeded", err)
	}
	if err := p.WriteTrace(new(bytes.Buffer)); err != ErrNotClosed {
		t.Fatalf("WriteTrace while a task still runs: %v, want ErrNotClosed", err)
	}
	close(release)
	var pe *PanicError
	if err := p.Close(); !errors.As(err, &pe) {
		t.Fatalf("Close: %v, want the task's panic", err)
	}
	var buf bytes.Buffer
	if err := p.WriteTrace(&buf); err != nil {
		t.Fatalf("WriteTrace after a Close that returned a panic: %v", err)
	}
	if tasks, _ := checkTrace(t, buf.Bytes(), 1); tasks != 1 {
		t.Fatalf("trace holds %d task slices, want 1", tasks)
	}
}
