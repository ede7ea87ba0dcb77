package coord

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConservationUnderRandomOperations drives every operation, valid or
// not, in random order and checks after each that no job was lost or
// duplicated, and that the live count only moves by pushes and completions.
func TestConservationUnderRandomOperations(t *testing.T) {
	for _, victims := range []VictimPolicy{MostLoaded, Random, BestOfTwo} {
		r := rand.New(rand.NewPCG(uint64(victims), 42))
		c, _ := New([]string{"a", "b", "c", "d"}, Options{Victims: victims, Seed: 9})
		names := []string{"a", "b", "c", "d", "ghost"}
		name := func() string { return names[r.IntN(len(names))] }
		live := 0
		for step := range 5000 {
			id := fmt.Sprintf("j%d", r.IntN(60))
			switch r.IntN(5) {
			case 0:
				if c.Push(name(), Job{ID: id}) == nil {
					live++
				}
			case 1:
				c.Steal(name(), []string{name(), name()})
			case 2:
				c.Pop(name())
			case 3:
				w := name()
				if s := inFlightOf(c, w); len(s) > 0 && r.IntN(2) == 0 {
					id = s[r.IntN(len(s))].ID
				}
				if c.Complete(w, id) == nil {
					live--
				}
			case 4:
				c.Inject(name(), Job{ID: id}, Job{ID: id + "x"})
				live = c.Live() // inject is all or nothing; recount
			}
			if err := c.Check(); err != nil {
				t.Fatalf("%v step %d: %v", victims, step, err)
			}
			if c.Live() != live {
				t.Fatalf("%v step %d: Live = %d, want %d", victims, step, c.Live(), live)
			}
		}
	}
}

func inFlightOf(c *Cluster, worker string) []Job {
	for _, s := range c.Snapshot() {
		if s.Name == worker {
			return s.InFlight
		}
	}
	return nil
}

func TestCheckDetectsCorruption(t *testing.T) {
	c := NewExample()
	c.workers[2].deque.PushBack(Job{ID: "job0"}) // duplicate behind the API's back
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("duplicate not detected: %v", err)
	}
	c = NewExample()
	c.workers[0].deque.PopBack() // job2 lost
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "lost") {
		t.Fatalf("loss not detected: %v", err)
	}
	c = NewExample()
	c.workers[2].deque.PushBack(Job{ID: "ghost"})
	if err := c.Check(); err == nil || !strings.Contains(err.Error(), "not live") {
		t.Fatalf("ghost not detected: %v", err)
	}
}
