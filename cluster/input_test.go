package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestBadInput: a panicking handler, an unknown type, a failing handler, an
// oversize result and an undecodable record are each recorded as the job's
// failure under its code; invalid submissions are refused with a sentinel
// and store nothing; the worker goes on running good jobs.
func TestBadInput(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithMaxPayload(1024))
	h.worker("w1", func(w *Worker) {
		w.Handle("panic", func(context.Context, *Job) ([]byte, error) { panic("boom") })
		w.Handle("fail", func(context.Context, *Job) ([]byte, error) { return nil, errors.New("disk full") })
		w.Handle("big", func(context.Context, *Job) ([]byte, error) { return make([]byte, 1025), nil })
		w.Handle("ok", h.sleeper(0))
	})
	ctx := context.Background()
	cases := []struct {
		id, typ string
		want    *Error
		text    string
	}{
		{"p1", "panic", ErrHandlerPanic, "boom"},
		{"u1", "nosuch", ErrUnknownType, "nosuch"},
		{"f1", "fail", ErrHandler, "disk full"},
		{"b1", "big", ErrResultTooLarge, "1025"},
	}
	for _, c := range cases {
		if err := h.client.Submit(ctx, c.id, c.typ, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A record nobody could decode, written straight into the bucket.
	if _, err := h.client.st.put(ctx, qKey("w1", "m1"), []byte("{not json"), "m1", "", 0); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		id, typ string
		want    *Error
		text    string
	}{"m1", "", ErrMalformedJob, "invalid"})
	for _, c := range cases {
		r := h.wait(c.id)
		var je *JobError
		if !errors.As(r.Err, &je) || !errors.Is(r.Err, c.want) || !strings.Contains(je.Text, c.text) {
			t.Errorf("%s: recorded %v, want code %s with %q", c.id, r.Err, c.want.Code, c.text)
		}
		// A panic's text is the panic's value: its code says panic once
		// ("cluster: job p1 failed: panic: boom", not "panic: panic: boom").
		if je != nil && c.id == "p1" && je.Text != "boom" {
			t.Errorf("p1: text %q, want the panic's value %q", je.Text, "boom")
		}
	}
	before := h.count("q.>") + h.count("d.>")
	for _, c := range []struct {
		id, typ string
		payload []byte
		want    error
	}{
		{"a.b", "ok", nil, ErrInvalidID},
		{"", "ok", nil, ErrInvalidID},
		{strings.Repeat("x", MaxIDLen+1), "ok", nil, ErrInvalidID},
		{"x1", "", nil, ErrInvalidType},
		{"x2", "has space", nil, ErrInvalidType},
		{"x3", "ok", make([]byte, 1025), ErrPayloadTooLarge},
	} {
		if err := h.client.Submit(ctx, c.id, c.typ, c.payload); !errors.Is(err, c.want) {
			t.Errorf("Submit(%.12q, %q, %d bytes) = %v, want %v", c.id, c.typ, len(c.payload), err, c.want)
		}
	}
	for _, name := range []string{"no.such", ""} {
		if err := h.client.Submit(ctx, "x4", "ok", nil, To(name)); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Submit To(%q): %v, want ErrInvalidName", name, err)
		}
	}
	// Every way to submit checks its options before its jobs: one call
	// with both wrong gets the same error from each.
	for _, to := range []string{"no.such", ""} {
		for name, submit := range map[string]func() error{
			"Submit":       func() error { return h.client.Submit(ctx, "a.b", "ok", nil, To(to)) },
			"SubmitBatch":  func() error { return h.client.SubmitBatch(ctx, []BatchJob{{ID: "a.b", Type: "ok"}}, To(to)) },
			"SubmitBundle": func() error { return h.client.SubmitBundle(ctx, []BatchJob{{ID: "a.b", Type: "ok"}}, To(to)) },
		} {
			if err := submit(); !errors.Is(err, ErrInvalidName) || errors.Is(err, ErrInvalidID) {
				t.Errorf("%s with a bad id and To(%q): %v, want ErrInvalidName alone", name, to, err)
			}
		}
	}
	if err := h.client.Submit(ctx, "x5", "ok", nil, To("nosuch")); !errors.Is(err, ErrNoWorkers) {
		t.Errorf("Submit to an absent worker: %v, want ErrNoWorkers", err)
	}
	if after := h.count("q.>") + h.count("d.>"); after != before {
		t.Fatalf("refused submissions changed the bucket: %d keys before, %d after", before, after)
	}
	if err := h.client.Submit(ctx, "ok1", "ok", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("ok1"); r.Err != nil || string(r.Value) != "done:ok1" {
		t.Fatalf("good job after bad ones: %v %q", r.Err, r.Value)
	}
}

// TestDuplicateSubmit: the same id submitted again (to the same worker, to
// another, after completion) is refused, and a duplicate record that
// bypasses submission still cannot record a second completion.
func TestDuplicateSubmit(t *testing.T) {
	h := newHarness(t, WithLease(time.Second))
	block := make(chan struct{})
	for _, n := range []string{"w1", "w2"} {
		h.worker(n, func(w *Worker) {
			w.Handle("once", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID)
				select {
				case <-block:
				case <-ctx.Done():
				}
				return []byte(j.Worker()), nil
			})
		}, WithStealMode(StealOff))
	}
	ctx := context.Background()
	if err := h.client.Submit(ctx, "x", "once", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"w1", "w2"} {
		if err := h.client.Submit(ctx, "x", "once", nil, To(to)); !errors.Is(err, ErrDuplicateJob) {
			t.Errorf("second submit of x to %s while queued: %v, want ErrDuplicateJob", to, err)
		}
	}
	close(block)
	first := h.wait("x")
	if err := h.client.Submit(ctx, "x", "once", nil, To("w2")); !errors.Is(err, ErrDuplicateJob) {
		t.Errorf("submit of x after completion: %v, want ErrDuplicateJob", err)
	}
	// A second record of x on w2, as a re-run after a crash could leave:
	// it runs, but its completion is refused.
	if _, err := h.client.st.put(ctx, qKey("w2", "x"), []byte(`{"id":"x","type":"once"}`), "x-again", "", 0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.count("q.>") > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	again := h.wait("x")
	if h.count("q.>") != 0 || h.count("d.>") != 1 || again.Worker != first.Worker || string(again.Value) != "w1" {
		t.Fatalf("after the duplicate record: %d live, %d completions, recorded by %s (first %s)",
			h.count("q.>"), h.count("d.>"), again.Worker, first.Worker)
	}
	if h.runCount("x") != 2 {
		t.Fatalf("x ran %d times, want 2 (the submission and the planted record)", h.runCount("x"))
	}
}

// TestSpawnStaysLocal: with stealing off, every job a handler spawns runs
// on the spawning worker; each runs once and completes once.
func TestSpawnStaysLocal(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(2))
	tree := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if d := len(j.Payload); d > 0 {
			for range 2 {
				if _, err := j.Spawn(ctx, "tree", j.Payload[1:]); err != nil {
					return nil, err
				}
			}
		}
		return []byte(j.Worker()), nil
	}
	names := []string{"w1", "w2", "w3"}
	for _, n := range names {
		h.worker(n, func(w *Worker) { w.Handle("tree", tree) }, WithStealMode(StealOff))
	}
	const depth = 4 // 31 jobs a tree
	for _, n := range names {
		if err := h.client.Submit(context.Background(), "r"+n, "tree", make([]byte, depth), To(n)); err != nil {
			t.Fatal(err)
		}
	}
	var ids func(id string, d int) []string
	ids = func(id string, d int) []string {
		out := []string{id}
		if d > 0 {
			out = append(out, ids(id+"-0", d-1)...)
			out = append(out, ids(id+"-1", d-1)...)
		}
		return out
	}
	for _, n := range names {
		for _, id := range ids("r"+n, depth) {
			r := h.wait(id)
			if r.Err != nil || r.Worker != n || r.Hops != 0 || h.runCount(id) != 1 {
				t.Fatalf("%s: err %v, ran on %s (want %s), hops %d, runs %d", id, r.Err, r.Worker, n, r.Hops, h.runCount(id))
			}
		}
	}
	if d := h.count("d.>"); d != 3*31 {
		t.Fatalf("%d completions, want %d", d, 3*31)
	}
}

// TestSubmitSubjectFresh: a record submitted on the submit subjects (by a
// program without a Go client) that carries a victim, steals or
// takeovers runs as a fresh submission: Job.StolenFrom is empty and
// Job.Attempt 0, as documented for a submitted job.
func TestSubmitSubjectFresh(t *testing.T) {
	h := newHarness(t)
	type seen struct {
		from    string
		attempt int
	}
	got := make(chan seen, 2)
	h.worker("a", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			got <- seen{j.StolenFrom, j.Attempt}
			return nil, nil
		})
	})
	h.ready("a")
	single := []byte(`{"id":"s","type":"job","from":"ghost","attempt":3,"hops":2}`)
	batch := nats.NewMsg(h.client.cfg.subject("w.a.submit"))
	batch.Header.Set(batchHeader, "1")
	batch.Data = []byte(`{"jobs":[{"id":"b","type":"job","from":"ghost","attempt":3,"hops":2}]}`)
	if _, err := h.client.nc.Request(h.client.cfg.subject("submit"), single, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.nc.RequestMsg(batch, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s", "b"} {
		if r := h.wait(id); r.Attempt != 0 || r.Hops != 0 {
			t.Errorf("%s: recorded attempt %d, hops %d; want 0", id, r.Attempt, r.Hops)
		}
		if s := <-got; s.from != "" || s.attempt != 0 {
			t.Errorf("handler saw StolenFrom %q, Attempt %d; want \"\", 0", s.from, s.attempt)
		}
	}
}
