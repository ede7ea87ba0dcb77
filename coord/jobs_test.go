package coord

import "testing"

func TestPushGoesToTheOwnersFront(t *testing.T) {
	c := NewExample()
	if err := c.Push("w1", Job{ID: "new"}); err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "w1[new job0 job1 job2] w2[job3 job4 job5] w3[]")
}

func TestPushAndInjectRejections(t *testing.T) {
	c := NewExample()
	before := layout(c)
	wantErr(t, c.Push("w9", Job{ID: "x"}), ErrUnknownWorker)
	wantErr(t, c.Push("w1", Job{ID: "job4"}), ErrDuplicateJob)
	wantErr(t, c.Push("w1", Job{}), ErrInvalid)
	wantErr(t, c.Inject("w3", Job{ID: "a"}, Job{ID: "a"}), ErrDuplicateJob)
	wantErr(t, c.Inject("w3", Job{ID: "a"}, Job{ID: "job0"}), ErrDuplicateJob)
	wantErr(t, c.Inject("nope", Job{ID: "a"}), ErrUnknownWorker)
	wantErr(t, c.Distribute([]Job{{ID: "b"}, {ID: "b"}}, Blocks), ErrDuplicateJob)
	wantLayout(t, c, before)
	// A rejected batch leaves none of its ids live.
	if c.Live() != 6 || c.Push("w3", Job{ID: "a"}) != nil || c.Push("w3", Job{ID: "b"}) != nil {
		t.Fatalf("rejected batches left ids live: %d live", c.Live())
	}
}

func TestInjectAppendsAtTheBack(t *testing.T) {
	c := NewExample()
	if err := c.Inject("w2", Job{ID: "a"}, Job{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "w1[job0 job1 job2] w2[job3 job4 job5 a b] w3[]")
}

func TestDistributeRoundRobin(t *testing.T) {
	c, _ := New([]string{"a", "b"}, Options{})
	jobs := []Job{{ID: "j0"}, {ID: "j1"}, {ID: "j2"}}
	if err := c.Distribute(jobs, RoundRobin); err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "a[j0 j2] b[j1]")
}

func TestCompleteRetiresOnlyInFlightJobs(t *testing.T) {
	c := NewExample()
	wantErr(t, c.Complete("w1", "job0"), ErrUnknownJob) // queued, not in flight
	if _, err := c.Pop("w1"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, c.Complete("w2", "job0"), ErrUnknownJob) // in flight elsewhere
	wantErr(t, c.Complete("w7", "job0"), ErrUnknownWorker)
	if err := c.Complete("w1", "job0"); err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "w1[job1 job2] w2[job3 job4 job5] w3[]")
	if c.Live() != 5 {
		t.Fatalf("Live = %d after completing one of six", c.Live())
	}
	// A retired id may be pushed again.
	if err := c.Push("w3", Job{ID: "job0"}); err != nil {
		t.Fatal(err)
	}
}
