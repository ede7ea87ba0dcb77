package steal

import (
	"context"
	"testing"
	"time"
)

// TestNewStartsParked checks that a new pool's workers sleep until work
// comes, without looking for any first: each of W workers that started by
// stealing passed over W queues, and a pool of MaxWorkers spent seconds of
// CPU on that before it was idle (cluster workers of 4096 slots each,
// dozens to a process, starved their own lease renewals).
func TestNewStartsParked(t *testing.T) {
	const n = 512
	p := New(WithWorkers(n))
	defer p.Close()
	deadline := time.Now().Add(10 * time.Second)
	for p.Stats().Idle < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d workers idle after 10 s", p.Stats().Idle, n)
		}
		time.Sleep(time.Millisecond)
	}
	if s := p.Stats().Total; s.StealAttempts != 0 {
		t.Fatalf("an idle new pool looked at %d victims: its workers looked for work before any was submitted", s.StealAttempts)
	}
	// The first task still wakes a worker.
	done := make(chan struct{})
	if err := p.Submit(context.Background(), func(*Worker) { close(done) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a task submitted to a new pool did not run")
	}
}
