package steal

import (
	"testing"
)

// allocChild and allocValue are plain functions, so that the tests below
// count the library's allocations and no closure's.
func allocChild(*Worker) error { return nil }
func allocValue(*Worker) int   { return 1 }

// TestGroupOfTwoIsOneAllocation: a NewGroup with two children, waited for,
// is one allocation: the group carries its first children's records, and
// ending the round allocates nothing.
func TestGroupOfTwoIsOneAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		allocs := testing.AllocsPerRun(100, func() {
			g := NewGroup(w)
			g.Go(allocChild)
			g.Go(allocChild)
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 1 {
			t.Errorf("a group of two children makes %.1f allocations, want 1", allocs)
		}
	})
}

// TestSpawnIsOneAllocation: Spawn and Wait of a plain function make one
// allocation, the future with its record and latch.
func TestSpawnIsOneAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		allocs := testing.AllocsPerRun(100, func() {
			if v, err := Spawn(w, allocValue).Wait(w); v != 1 || err != nil {
				t.Fatal(v, err)
			}
		})
		if allocs > 1 {
			t.Errorf("Spawn and Wait make %.1f allocations, want 1", allocs)
		}
	})
}

// TestGroupRecordsServeOneTask: a child's record, which is its handle, is
// never given to a later child, not even in the group's next round, so a
// handle kept past its task still panics when used instead of passing for
// the handle of whichever task has its record now.
func TestGroupRecordsServeOneTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		seen := map[*Worker]int{}
		for round := range 3 {
			var hs [3]*Worker
			for i := range hs {
				g.Go(func(w *Worker) error { hs[i] = w; return nil })
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				if r, ok := seen[h]; ok {
					t.Fatalf("round %d: a child ran on the record of a child of round %d", round, r)
				}
				seen[h] = round
			}
		}
		var kept *Worker
		g.Go(func(w *Worker) error { kept = w; return nil })
		g.Wait()
		defer func() {
			if recover() == nil {
				t.Error("a kept child handle was usable after its task returned")
			}
		}()
		kept.Spawn(func(*Worker) {})
	})
}
