package steal

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// MapLimit bounds the calls under way even when each one blocks through
// Block, which lets a spare take the blocked worker's place.
func TestMapLimitBoundsBlockingCalls(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	in := make([]int, 200)
	for i := range in {
		in[i] = i
	}
	const limit = 4
	var now, peak atomic.Int64
	f := func(w *Worker, x int) int {
		w.Block(func() {
			n := now.Add(1)
			for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
			}
			time.Sleep(200 * time.Microsecond)
			now.Add(-1)
		})
		return 2 * x
	}
	var out []int
	mustRun(t, p, func(w *Worker) { out = MapLimit(w, limit, in, f) })
	for i, v := range out {
		if v != 2*i {
			t.Fatalf("out[%d] = %d; want %d", i, v, 2*i)
		}
	}
	if m := peak.Load(); m > limit {
		t.Fatalf("%d calls blocked at once; want at most %d", m, limit)
	}
	// The same through MapErrLimit, failing on one element.
	now.Store(0)
	peak.Store(0)
	boom := errors.New("boom")
	var err error
	mustRun(t, p, func(w *Worker) {
		_, err = MapErrLimit(w, limit, in, func(w *Worker, x int) (int, error) {
			f(w, x)
			if x == 150 {
				return 0, boom
			}
			return x, nil
		})
	})
	var me *MapError
	if !errors.As(err, &me) || me.Index != 150 || !errors.Is(err, boom) {
		t.Fatalf("MapErrLimit = %v; want a *MapError for element 150", err)
	}
	if m := peak.Load(); m > limit {
		t.Fatalf("MapErrLimit: %d calls blocked at once; want at most %d", m, limit)
	}
}
