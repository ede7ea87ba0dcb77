package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBundleIDOfCompletedJob: a bundle written by other means under the
// id of a job completed before is not taken for completed when a worker
// loads it at its start: its jobs run and are recorded.
func TestBundleIDOfCompletedJob(t *testing.T) {
	h := newHarness(t)
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "b1", "job", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("b1")
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.st.put(context.Background(), qKey("w1", "b1"),
		[]byte(`{"id":"b1","type":"bundle","bundle":[{"id":"m1","type":"job"},{"id":"m2","type":"job"}]}`), "raw-b1", "", 0); err != nil {
		t.Fatal(err)
	}
	h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	for _, id := range []string{"m1", "m2"} {
		if r := h.wait(id); r.Err != nil {
			t.Errorf("%s: %+v", id, r)
		}
	}
	waitFor(t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
}

// putRaw writes a record straight into the jobs bucket, as a producer
// without a Go client may.
func (h *harness) putRaw(owner, id, data string) {
	h.t.Helper()
	if _, err := h.client.st.put(context.Background(), qKey(owner, id), []byte(data), "raw-"+id, "", 0); err != nil {
		h.t.Fatal(err)
	}
}

// TestBundleRepeatedMember: a bundle written by other means that holds
// the same id twice records it once, and its other jobs are recorded.
func TestBundleRepeatedMember(t *testing.T) {
	h := newHarness(t)
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	h.ready("w1")
	h.putRaw("w1", "bx", `{"id":"bx","type":"bundle","bundle":[{"id":"a","type":"job"},{"id":"a","type":"job"},{"id":"b","type":"job"}]}`)
	for _, id := range []string{"a", "b"} {
		if r := h.wait(id); r.Err != nil || string(r.Value) != "done:"+id {
			t.Errorf("%s: %+v", id, r)
		}
	}
	waitFor(t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
	if n := h.count("d.>"); n != 2 {
		t.Errorf("%d completions, want 2", n)
	}
	if st := w.Stats(); st.Completed != 2 {
		t.Errorf("stats %+v, want 2 completions", st)
	}
}

// TestBundleTooLarge: a bundle written by other means with more jobs than
// MaxBundleJobs (here more than one batch takes) runs none of them and
// records its own failure, instead of running them again and again; the
// worker goes on with its other jobs.
func TestBundleTooLarge(t *testing.T) {
	h := newHarness(t)
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	h.ready("w1")
	var ms []string
	for i := range 1200 {
		ms = append(ms, fmt.Sprintf(`{"id":"m%d","type":"job"}`, i))
	}
	h.putRaw("w1", "big", `{"id":"big","type":"bundle","bundle":[`+strings.Join(ms, ",")+`]}`)
	h.putRaw("w1", "after", `{"id":"after","type":"job"}`)
	h.wait("after")
	if r := h.wait("big"); !errors.Is(r.Err, ErrMalformedJob) {
		t.Errorf("big: %+v, want ErrMalformedJob", r)
	}
	waitFor(t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
	if n := h.runCount("m0"); n != 0 {
		t.Errorf("m0 ran %d times", n)
	}
	if st := w.Stats(); st.Completed != 2 {
		t.Errorf("stats %+v, want 2 completions", st)
	}
}

// TestBundleHugeFailure: a bundle's job whose handler fails with an error
// (or panics with a value) whose text is larger than a server message has
// its failure recorded with the text cut short, and the bundle's other
// jobs are recorded.
func TestBundleHugeFailure(t *testing.T) {
	h := newHarness(t)
	huge := strings.Repeat("x", 2<<20)
	h.worker("w1", func(w *Worker) {
		w.Handle("fail", func(context.Context, *Job) ([]byte, error) { return nil, errors.New(huge) })
		w.Handle("panic", func(context.Context, *Job) ([]byte, error) { panic(huge) })
		w.Handle("job", h.doneHandler())
	})
	h.ready("w1")
	jobs := []BatchJob{{ID: "a", Type: "job"}, {ID: "f", Type: "fail"}, {ID: "p", Type: "panic"}}
	if err := h.client.SubmitBundle(context.Background(), jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("a"); r.Err != nil {
		t.Errorf("a: %v", r.Err)
	}
	for id, want := range map[string]error{"f": ErrHandler, "p": ErrHandlerPanic} {
		r := h.wait(id)
		var je *JobError
		if !errors.As(r.Err, &je) || !errors.Is(r.Err, want) || len(je.Text) > maxFailText+3 || !strings.Contains(je.Text, "xxx") {
			t.Errorf("%s: %.100v, want %v with the text cut short", id, r.Err, want)
		}
	}
}

// TestSubmitSubjectBundle: a program without a Go client may submit a
// bundle on the submit subject; one that holds an invalid job, the same
// id twice, a bundle within it or more than MaxBundleJobs jobs is refused
// with a code naming the problem and stores nothing, and a valid one runs.
func TestSubmitSubjectBundle(t *testing.T) {
	h := newHarness(t)
	h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	h.ready("w1")
	ask := func(body string) submitReply {
		t.Helper()
		m, err := h.client.nc.Request(h.client.cfg.subject("submit"), []byte(body), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var rep submitReply
		if err := json.Unmarshal(m.Data, &rep); err != nil {
			t.Fatalf("%s: %v", m.Data, err)
		}
		return rep
	}
	var many []string
	for i := range MaxBundleJobs + 1 {
		many = append(many, fmt.Sprintf(`{"id":"n%d","type":"job"}`, i))
	}
	for body, code := range map[string]string{
		`{"id":"b1","type":"bundle","bundle":[{"id":"a","type":"job"},{"id":"no.dot","type":"job"}]}`:       ErrInvalidID.Code,
		`{"id":"b2","type":"bundle","bundle":[{"id":"a","type":""}]}`:                                       ErrInvalidType.Code,
		`{"id":"b3","type":"bundle","bundle":[{"id":"a","type":"job"},{"id":"a","type":"job"}]}`:            ErrDuplicateJob.Code,
		`{"id":"b4","type":"bundle","bundle":[{"id":"a","type":"job","bundle":[{"id":"c","type":"job"}]}]}`: ErrMalformedJob.Code,
		`{"id":"b5","type":"bundle","bundle":[` + strings.Join(many, ",") + `]}`:                            ErrMalformedJob.Code,
	} {
		if rep := ask(body); rep.Code != code || rep.Text == "" {
			t.Errorf("%.60s: %+v, want code %s with a text", body, rep, code)
		}
	}
	if n := h.count("q.>") + h.count("d.>"); n != 0 {
		t.Fatalf("refused bundles stored %d keys", n)
	}
	if rep := ask(`{"id":"b6","type":"bundle","bundle":[{"id":"a","type":"job"},{"id":"b","type":"job"}]}`); rep.Code != "" {
		t.Fatalf("valid bundle refused: %+v", rep)
	}
	h.waitAll([]BatchJob{{ID: "a"}, {ID: "b"}})
}
