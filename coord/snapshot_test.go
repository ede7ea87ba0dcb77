package coord

import (
	"testing"
	"time"
)

func TestReplaceQueuesRetiresAbsentJobs(t *testing.T) {
	c := NewExample()
	c.Pop("w2") // job3 in flight: must survive
	err := c.ReplaceQueues([][]Job{{{ID: "job1", Cost: time.Millisecond}}, {}, {{ID: "job5"}}})
	if err != nil {
		t.Fatal(err)
	}
	wantLayout(t, c, "w1[job1] w2[]{job3} w3[job5]")
	if c.Live() != 3 {
		t.Fatalf("Live = %d, want 3 (job1, job5 queued, job3 in flight)", c.Live())
	}
	if got := c.Snapshot()[0].Queue[0].Cost; got != time.Millisecond {
		t.Fatalf("cost not replaced: %v", got)
	}
}

func TestReplaceQueuesRejections(t *testing.T) {
	c := NewExample()
	c.Pop("w2")
	before := layout(c)
	wantErr(t, c.ReplaceQueues([][]Job{{}}), ErrInvalid)
	wantErr(t, c.ReplaceQueues([][]Job{{{ID: "new"}}, {}, {}}), ErrUnknownJob)
	wantErr(t, c.ReplaceQueues([][]Job{{{ID: "job3"}}, {}, {}}), ErrUnknownJob) // in flight
	wantErr(t, c.ReplaceQueues([][]Job{{{ID: "job1"}}, {{ID: "job1"}}, {}}), ErrDuplicateJob)
	wantLayout(t, c, before)
}

func TestSnapshotIsACopy(t *testing.T) {
	c := NewExample()
	s := c.Snapshot()
	s[0].Queue[0].ID = "mutated"
	wantLayout(t, c, "w1[job0 job1 job2] w2[job3 job4 job5] w3[]")
}
