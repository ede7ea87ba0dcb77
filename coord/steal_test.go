package coord

import (
	"reflect"
	"testing"
)

// The exercise's sample: w3 steals from [w1, w2]; both hold three jobs, the tie
// goes to w1, and its back job is job2.
func TestStealSeedSample(t *testing.T) {
	c := NewExample()
	got, err := c.Steal("w3", []string{"w1", "w2"})
	if err != nil {
		t.Fatal(err)
	}
	want := Theft{Thief: "w3", Victim: "w1", Job: Job{ID: "job2"}, VictimQueueSize: 2, ThiefQueueSize: 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Steal = %+v, want %+v", got, want)
	}
	wantLayout(t, c, "w1[job0 job1] w2[job3 job4 job5] w3[job2]")
}

func TestStealPicksMostLoadedAndPushesOnThiefFront(t *testing.T) {
	c := NewExample()
	c.Push("w3", Job{ID: "own"})
	got, err := c.Steal("w1", nil) // candidates: w2 (3 jobs), w3 (1 job)
	if err != nil {
		t.Fatal(err)
	}
	if got.Victim != "w2" || got.Job.ID != "job5" || got.ThiefQueueSize != 4 {
		t.Fatalf("Steal = %+v", got)
	}
	wantLayout(t, c, "w1[job5 job0 job1 job2] w2[job3 job4] w3[own]")
}

func TestStealNeverRobsTheThief(t *testing.T) {
	c := NewExample()
	_, err := c.Steal("w1", []string{"w1", "w3"})
	wantErr(t, err, ErrNothingToSteal)
	wantLayout(t, c, "w1[job0 job1 job2] w2[job3 job4 job5] w3[]")
}

func TestStealRejectionsLeaveStateUntouched(t *testing.T) {
	c, _ := New([]string{"a", "b", "c"}, Options{Victims: Random, Seed: 1})
	c.Inject("a", Job{ID: "x"}, Job{ID: "y"})
	before := layout(c)
	for _, tc := range []struct {
		thief string
		cands []string
		want  error
	}{
		{"zz", nil, ErrUnknownWorker},
		{"b", []string{"a", "zz"}, ErrUnknownWorker},
		{"b", []string{}, ErrNothingToSteal},
		{"b", []string{"c"}, ErrNothingToSteal},
	} {
		_, err := c.Steal(tc.thief, tc.cands)
		wantErr(t, err, tc.want)
	}
	wantLayout(t, c, before)
	// The failures drew nothing from the generator: the next random steal
	// is the one a fresh cluster with the same seed makes.
	fresh, _ := New([]string{"a", "b", "c"}, Options{Victims: Random, Seed: 1})
	fresh.Inject("a", Job{ID: "x"}, Job{ID: "y"})
	x, _ := c.Steal("b", nil)
	y, _ := fresh.Steal("b", nil)
	if x != y {
		t.Fatalf("after rejections %+v, fresh %+v", x, y)
	}
}

func TestPopOwnFrontThenSteals(t *testing.T) {
	c := NewExample()
	got, err := c.Pop("w1")
	if err != nil || got.Job.ID != "job0" || got.Stolen() || got.QueueSize != 2 {
		t.Fatalf("Pop w1 = %+v, %v", got, err)
	}
	got, err = c.Pop("w3")
	if err != nil || got.Job.ID != "job5" || got.Victim != "w2" || got.QueueSize != 0 {
		t.Fatalf("Pop w3 = %+v, %v", got, err)
	}
	wantLayout(t, c, "w1[job1 job2]{job0} w2[job3 job4] w3[]{job5}")
}

func TestPopWithNothingAnywhere(t *testing.T) {
	c, _ := New([]string{"a", "b"}, Options{})
	_, err := c.Pop("a")
	wantErr(t, err, ErrNothingToSteal)
	_, err = c.Pop("q")
	wantErr(t, err, ErrUnknownWorker)
}
