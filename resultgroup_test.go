package steal

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestResultGroupOrder: values come back in the order the children were
// added, although later children finish first, inside and outside the
// pool, on one worker and on four.
func TestResultGroupOrder(t *testing.T) {
	const n = 300
	want := make([]int, n)
	for i := range want {
		want[i] = i * i
	}
	child := func(i int) func(*Worker) (int, error) {
		return func(*Worker) (int, error) {
			if i < 8 {
				busy(time.Duration(8-i) * 100 * time.Microsecond) // the first ones finish last
			}
			return i * i, nil
		}
	}
	for _, workers := range []int{1, 4} {
		p := New(WithWorkers(workers))
		within(t, "result groups", func() {
			var inside []int
			p.Run(func(w *Worker) {
				r := NewResultGroup[int](w)
				for i := range n {
					r.Go(child(i))
				}
				var err error
				if inside, err = r.Wait(); err != nil {
					t.Errorf("inside: %v", err)
				}
			})
			r := PoolResultGroup[int](context.Background(), p)
			for i := range n {
				r.Go(child(i))
			}
			outside, err := r.Wait()
			if err != nil {
				t.Errorf("outside: %v", err)
			}
			if !slices.Equal(inside, want) || !slices.Equal(outside, want) {
				t.Errorf("W=%d: values out of order:\ninside  %v\noutside %v", workers, inside[:10], outside[:10])
			}
		})
		p.Close()
	}
}

// TestResultGroupErrorAndRounds: a failed child leaves the zero value in
// its place and Wait returns its error; a second Wait returns a copy of the
// same; the next round has only its own values.
//
// The failing child fails only once the other has started: a child that
// has not started when a sibling fails is skipped, as documented, and
// leaves the zero value too (on a loaded machine the second child
// sometimes ran and failed first, and the test then blamed the second
// Wait for sharing the first's slice).
func TestResultGroupErrorAndRounds(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	boom := errors.New("boom")
	r := PoolResultGroup[string](context.Background(), p)
	aStarted := make(chan struct{})
	r.Go(func(*Worker) (string, error) { close(aStarted); return "a", nil })
	r.Go(func(*Worker) (string, error) {
		await(aStarted)
		return "lost", boom
	})
	vals, err := r.Wait()
	if !errors.Is(err, boom) || len(vals) != 2 || vals[0] != "a" || vals[1] != "" {
		t.Fatalf("round 1: %q, %v; want a's value, the failed child's place empty and boom", vals, err)
	}
	again, err2 := r.Wait()
	if !slices.Equal(again, vals) || err2 != err {
		t.Fatalf("second Wait: %q, %v; want %q, %v", again, err2, vals, err)
	}
	again[0] = "changed"
	if vals[0] != "a" {
		t.Fatalf("second Wait shares the first's slice")
	}
	r.Go(func(*Worker) (string, error) { return "b", nil })
	vals, err = r.Wait()
	if err != nil || !slices.Equal(vals, []string{"b"}) {
		t.Fatalf("round 2: %q, %v; want [b]", vals, err)
	}
	empty := PoolResultGroup[int](context.Background(), p)
	if vals, err := empty.Wait(); vals == nil || len(vals) != 0 || err != nil {
		t.Fatalf("no children: %v, %v; want an empty slice", vals, err)
	}
}

// TestResultGroupGoRacesWait: goroutines add children to one
// PoolResultGroup while another calls Wait over and over. Every value
// comes back from exactly one Wait: a child counted in a round has its
// place in that round's values.
func TestResultGroupGoRacesWait(t *testing.T) {
	for range 3 { // each run ends a different number of rounds
		resultGroupGoRacesWait(t)
	}
}

func resultGroupGoRacesWait(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	r := PoolResultGroup[int](context.Background(), p)
	const adders, each = 4, 300
	seen := make([]int, adders*each)
	within(t, "Go racing Wait", func() {
		var wg sync.WaitGroup
		for a := range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					v := a*each + i + 1
					r.Go(func(*Worker) (int, error) { return v, nil })
					runtime.Gosched() // let rounds end between adds
				}
			}()
		}
		collect := func(vals []int) {
			for _, v := range vals {
				if v < 1 || v > len(seen) {
					t.Errorf("value %d never added", v)
					continue
				}
				seen[v-1]++
			}
		}
		stop, waiterDone := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(waiterDone)
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals, err := r.Wait()
				if err != nil {
					t.Errorf("Wait = %v", err)
				}
				r.Go(func(*Worker) (int, error) { return -1, nil }) // ends the copy-on-repeat case
				collect(slices.DeleteFunc(vals, func(v int) bool { return v == -1 }))
			}
		}()
		wg.Wait()
		close(stop)
		<-waiterDone
		vals, err := r.Wait()
		if err != nil {
			t.Errorf("final Wait = %v", err)
		}
		collect(slices.DeleteFunc(vals, func(v int) bool { return v == -1 }))
	})
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("value %d came back %d times, want once", i+1, k)
		}
	}
}

// A PoolResultGroup's Wait from inside its own child panics, as a
// Pool.Group's does, instead of waiting for itself forever (it hung).
func TestPoolResultGroupWaitInsideOwnChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	r := PoolResultGroup[int](nil, p)
	r.Go(func(*Worker) (int, error) { _, err := r.Wait(); return 1, err })
	done := make(chan error, 1)
	go func() { _, err := r.Wait(); done <- err }()
	err := waitValue(t, done, "Wait inside the group's own child")
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Wait = %v, want the child's *PanicError", err)
	}
}
