package coord

import "testing"

// TestPayloadBytes: the bytes of live jobs' payloads follow the jobs in
// and out, through pushes, injection, steals, pops, completions and a
// replacement of the queues, and Check verifies the count.
func TestPayloadBytes(t *testing.T) {
	c := NewExample()
	want := func(n int) {
		t.Helper()
		if got := c.PayloadBytes(); got != n {
			t.Fatalf("PayloadBytes = %d, want %d", got, n)
		}
		if err := c.Check(); err != nil {
			t.Fatal(err)
		}
	}
	want(0)
	if err := c.Push("w1", Job{ID: "a", Payload: "12345"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Inject("w2", Job{ID: "b", Payload: "123"}, Job{ID: "c", Payload: "1"}); err != nil {
		t.Fatal(err)
	}
	want(9)
	wantErr(t, c.Push("w1", Job{ID: "a", Payload: "xx"}), ErrDuplicateJob)
	wantErr(t, c.Inject("w1", Job{ID: "d", Payload: "xx"}, Job{ID: "d"}), ErrDuplicateJob)
	want(9)
	if _, err := c.Steal("w3", []string{"w2"}); err != nil { // c, from w2's back
		t.Fatal(err)
	}
	want(9)
	tk, err := c.Pop("w1") // a, from w1's front
	if err != nil || tk.Job.ID != "a" {
		t.Fatalf("Pop = %+v, %v", tk, err)
	}
	want(9)
	if err := c.Complete("w1", "a"); err != nil {
		t.Fatal(err)
	}
	want(4)
	// The queues replaced as a simulation left them: b ran (retired),
	// c stays queued at w3 with a new payload.
	var queues [][]Job
	for _, s := range c.Snapshot() {
		var q []Job
		for _, j := range s.Queue {
			switch j.ID {
			case "b":
				continue
			case "c":
				j.Payload = "1234567"
			}
			q = append(q, j)
		}
		queues = append(queues, q)
	}
	if err := c.ReplaceQueues(queues); err != nil {
		t.Fatal(err)
	}
	want(7)
}
