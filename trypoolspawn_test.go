package steal

import (
	"errors"
	"testing"
)

// TryPoolSpawn refuses on a closed pool, and its future sees the pool's
// context.
func TestTryPoolSpawn(t *testing.T) {
	p := New(WithWorkers(2))
	f, err := TryPoolSpawn(p, func(w *Worker) bool { return w.Context().Err() == nil })
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := waitFuture(t, f); !ok || err != nil {
		t.Fatalf("Wait = %v, %v; want true, nil", ok, err)
	}
	p.Close()
	if _, err := TryPoolSpawn(p, func(*Worker) int { return 1 }); !errors.Is(err, ErrClosed) {
		t.Fatalf("TryPoolSpawn on a closed pool = %v; want ErrClosed", err)
	}
}
