package coord

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestPickMostLoadedTiesGoToFirstListed(t *testing.T) {
	if got := MostLoaded.Pick([]int{3, 5, 5, 1}, nil); got != 1 {
		t.Fatalf("Pick = %d, want 1 (first of the two longest)", got)
	}
	if got := MostLoaded.Pick([]int{3, 3}, nil); got != 0 {
		t.Fatalf("tie Pick = %d, want 0", got)
	}
}

func TestPickRandomIsSeededAndCoversAll(t *testing.T) {
	sizes := []int{1, 1, 1, 1}
	seen := map[int]int{}
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for range 400 {
		x, y := Random.Pick(sizes, a), Random.Pick(sizes, b)
		if x != y {
			t.Fatal("same seed gave different picks")
		}
		seen[x]++
	}
	if len(seen) != 4 {
		t.Fatalf("random picks covered %v, want all 4 candidates", seen)
	}
}

func TestPickBestOfTwoNeverPicksTheShortestOfThree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 1000 {
		// Any two distinct of three include one that is longer than 1.
		if got := BestOfTwo.Pick([]int{1, 9, 4}, r); got == 0 {
			t.Fatal("best of two picked the shortest deque")
		}
	}
}

func TestPickSingleCandidateAndEmpty(t *testing.T) {
	for p := MostLoaded; p <= BestOfTwo; p++ {
		if got := p.Pick([]int{2}, nil); got != 0 {
			t.Errorf("%v with one candidate = %d", p, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Pick with no candidates did not panic")
		}
	}()
	MostLoaded.Pick(nil, nil)
}

func TestParseVictimPolicy(t *testing.T) {
	for p := MostLoaded; p <= BestOfTwo; p++ {
		if got, err := ParseVictimPolicy(p.String()); err != nil || got != p {
			t.Errorf("round trip %v: %v, %v", p, got, err)
		}
	}
	if _, err := ParseVictimPolicy("nearest"); !errors.Is(err, ErrInvalid) {
		t.Errorf("nearest: %v", err)
	}
	if s := VictimPolicy(-1).String(); s != "VictimPolicy(-1)" {
		t.Errorf("bad value String = %q", s)
	}
}

// A worker listed twice among the candidates is one candidate: the random
// policies choose among workers, not among entries of the list. Before,
// [w1, w1, w2] made Random steal from w1 two times in three.
func TestARepeatedCandidateIsOneCandidate(t *testing.T) {
	for _, p := range []VictimPolicy{MostLoaded, Random, BestOfTwo} {
		for seed := range uint64(200) {
			steal := func(candidates []string) string {
				c, err := New([]string{"w1", "w2", "w3"}, Options{Victims: p, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				for k, w := range []string{"w1", "w1", "w2", "w2"} {
					if err := c.Inject(w, Job{ID: fmt.Sprint("job", k)}); err != nil {
						t.Fatal(err)
					}
				}
				theft, err := c.Steal("w3", candidates)
				if err != nil {
					t.Fatal(err)
				}
				return theft.Victim
			}
			if got, want := steal([]string{"w1", "w1", "w2", "w1"}), steal([]string{"w1", "w2"}); got != want {
				t.Fatalf("%v, seed %d: [w1 w1 w2 w1] stole from %s, [w1 w2] from %s", p, seed, got, want)
			}
		}
	}
}

// Past the first few candidates, a repeated one is found in a table: the
// choice is still the one among each worker once.
func TestALongCandidateListCountsEachWorkerOnce(t *testing.T) {
	names := make([]string, 100)
	for k := range names {
		names[k] = fmt.Sprint("w", k)
	}
	once := names[1:]
	var thrice []string
	for range 3 {
		thrice = append(thrice, once...)
	}
	for _, p := range []VictimPolicy{Random, BestOfTwo} {
		for seed := range uint64(50) {
			steal := func(candidates []string) string {
				c, err := New(names, Options{Victims: p, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				for k, w := range once {
					if err := c.Inject(w, Job{ID: fmt.Sprint("job", k)}); err != nil {
						t.Fatal(err)
					}
				}
				theft, err := c.Steal("w0", candidates)
				if err != nil {
					t.Fatal(err)
				}
				return theft.Victim
			}
			if got, want := steal(thrice), steal(once); got != want {
				t.Fatalf("%v, seed %d: every worker thrice stole from %s, once from %s", p, seed, got, want)
			}
		}
	}
}
