package coord

import "testing"

func TestNewExampleMatchesTheSeed(t *testing.T) {
	wantLayout(t, NewExample(), "w1[job0 job1 job2] w2[job3 job4 job5] w3[]")
}

func TestNewRejectsBadWorkerLists(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  error
	}{
		{nil, ErrInvalid},
		{[]string{"w1", ""}, ErrInvalid},
		{[]string{"w1", "w2", "w1"}, ErrDuplicateWorker},
	} {
		c, err := New(tc.names, Options{})
		if c != nil {
			t.Errorf("New(%q) returned a cluster", tc.names)
		}
		wantErr(t, err, tc.want)
	}
}

func TestNewKeepsWorkerOrderAndOptions(t *testing.T) {
	c, err := New([]string{"zeta", "alpha"}, Options{Victims: Random, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "zeta[] alpha[]")
	if c.Victims() != Random {
		t.Fatalf("Victims = %v", c.Victims())
	}
}

// TestNewRejectsUnknownVictimPolicy: a policy outside the listed ones is an
// invalid argument, not MostLoaded in disguise.
func TestNewRejectsUnknownVictimPolicy(t *testing.T) {
	for _, p := range []VictimPolicy{-1, BestOfTwo + 1, 99} {
		c, err := New([]string{"w1"}, Options{Victims: p})
		if c != nil {
			t.Errorf("New with Victims %v returned a cluster", p)
		}
		wantErr(t, err, ErrInvalid)
	}
}
