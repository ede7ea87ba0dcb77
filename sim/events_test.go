package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestEventsPopInTimeThenWorkerOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h events
	var all []event
	for w := range int32(500) {
		e := event{at: r.Int64N(50), worker: w}
		h.push(e)
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].before(all[j]) })
	for i, want := range all {
		if got := h.pop(); got != want {
			t.Fatalf("pop %d = %+v, want %+v", i, got, want)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d events left", len(h))
	}
}
