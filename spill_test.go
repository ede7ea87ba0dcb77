package steal

import (
	"sync"
	"testing"
	"time"
)

// TestSpillOrderAndBound: rings spill into the inject queue's spill from
// several workers while one takes: each spiller's tasks come out once, in
// the order it spilled them, and a spill that never drains completely
// keeps its array near twice what waits in it.
func TestSpillOrderAndBound(t *testing.T) {
	var q injectQueue
	q.init(nil)
	const spillers, per = 3, 20000
	recs := make([][]task, spillers)
	where := make(map[*task][2]int, spillers*per)
	for i := range recs {
		recs[i] = make([]task, per)
		for d := range recs[i] {
			where[&recs[i][d]] = [2]int{i, d}
		}
	}
	var wg sync.WaitGroup
	for i := range spillers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := 0; d < per; {
				n := min(1+d%7, per-d)
				b := make([]*task, n)
				for k := range b {
					b[k] = &recs[i][d+k]
				}
				q.pushSpill(b)
				d += n
			}
		}()
	}
	next := make([]int, spillers)
	deadline := time.Now().Add(20 * time.Second)
	for got := 0; got < spillers*per; {
		if time.Now().After(deadline) {
			t.Fatalf("took %d of %d", got, spillers*per)
		}
		q.mu.Lock()
		tk := q.popSpillLocked()
		q.mu.Unlock()
		if tk == nil {
			continue
		}
		if w, ok := where[tk]; !ok || w[1] != next[w[0]] {
			t.Fatalf("took spiller %d's task %d, want its task %d", w[0], w[1], next[w[0]])
		}
		next[where[tk][0]]++
		got++
	}
	wg.Wait()
	if q.spillN.Load() != 0 || q.popSpillLocked() != nil {
		t.Fatalf("%d tasks left after all were taken", q.spillN.Load())
	}

	start := cap(q.spill) // an array drained whole is kept, up to 4096
	for r := range 100000 {
		q.pushSpill([]*task{&recs[0][r%per], &recs[1][r%per], &recs[2][r%per]})
		q.mu.Lock()
		for q.spillN.Load() > 10 {
			q.popSpillLocked()
		}
		q.mu.Unlock()
	}
	if c := cap(q.spill); c > max(start, 64) {
		t.Fatalf("the spill's array grew from %d to %d with at most 13 tasks waiting", start, c)
	}
}
