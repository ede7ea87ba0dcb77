package cluster

import (
	"strings"

	"context"
	"errors"
	"github.com/nats-io/nats.go/jetstream"
	"testing"
	"time"
)

func newTestStore(t *testing.T) *store {
	t.Helper()
	e := startServer(t)
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	cfg, _ := buildConfig([]Option{WithLease(time.Second)})
	s, err := openStore(context.Background(), nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreBatch checks the server behaviour the design rests on: a batch is
// all or nothing, its revisions are consecutive, a failed check writes
// nothing, expected revision 0 makes a key create-only, a message id is
// deduplicated, and a guarded put fails once its guard key moved.
func TestStoreBatch(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	r1, err := s.put(ctx, "q.a.j1", []byte("x"), "j1", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.put(ctx, "q.b.j1", []byte("x"), "j1", "", 0); !errors.Is(err, errDupMsg) {
		t.Fatalf("second put with the same message id: %v, want errDupMsg", err)
	}
	revs, err := s.commit(ctx, []op{{key: "q.a.j1", del: true, check: true, expect: r1}, {key: "q.b.j1", value: []byte("y")}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.jobs.Get(ctx, "q.b.j1")
	if err != nil || e.Revision() != revs[1] || revs[0]+1 != revs[1] {
		t.Fatalf("moved record: %v rev %v, batch revs %v", err, e, revs)
	}
	// A stale expectation: nothing of the batch is written.
	_, err = s.commit(ctx, []op{{key: "q.a.j1", del: true, check: true, expect: r1}, {key: "q.c.j1", value: []byte("z")}})
	if !errors.Is(err, errConflict) {
		t.Fatalf("stale batch: %v, want errConflict", err)
	}
	if _, err := s.jobs.Get(ctx, "q.c.j1"); err == nil {
		t.Fatal("a refused batch wrote q.c.j1")
	}
	// Completion: create-only d key, in the same batch as the delete.
	if _, err := s.commit(ctx, []op{{key: "q.b.j1", del: true, check: true, expect: revs[1]}, {key: "d.j1", value: []byte("{}"), check: true}}); err != nil {
		t.Fatal(err)
	}
	r2, _ := s.put(ctx, "q.b.j2", []byte("x"), "j2", "", 0)
	if _, err := s.commit(ctx, []op{{key: "q.b.j2", del: true, check: true, expect: r2}, {key: "d.j1", value: []byte("{}"), check: true}}); !errors.Is(err, errConflict) {
		t.Fatalf("second completion of j1: %v, want errConflict", err)
	}
	// A guarded put: allowed while the guard is at its revision, refused after.
	if _, err := s.put(ctx, "q.b.j3", []byte("x"), "j3", "q.b.j2", r2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.put(ctx, "q.b.j4", []byte("x"), "j4", "q.b.j2", r2-1); !errors.Is(err, errConflict) {
		t.Fatalf("put guarded by a stale revision: %v, want errConflict", err)
	}
	keys, err := s.keys(ctx, "q.>")
	if err != nil || len(keys) != 2 {
		t.Fatalf("live keys %v (%v), want q.b.j2 and q.b.j3", keys, err)
	}
}

// TestLeaseBounds: a lease outside 1 s to 1 h is refused, as an option and
// as the TTL of a workers bucket another program made: a huge one made a
// worker panic (its waits, 4 leases × ⌈W/8⌉, outgrew time.Duration).
func TestLeaseBounds(t *testing.T) {
	e := startServer(t)
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	for _, d := range []time.Duration{time.Second / 2, time.Hour + time.Second, 2562047 * time.Hour} {
		var ce *Error
		_, err := NewWorker(nc, "w1", WithLease(d))
		if !errors.As(err, &ce) || ce.Code != "invalid_option" || !errors.Is(err, ErrInvalidOption) {
			t.Errorf("WithLease(%v): %v, want an invalid_option error", d, err)
		}
	}
	js, _ := jetstream.New(nc)
	if _, err := js.CreateKeyValue(context.Background(), jetstream.KeyValueConfig{
		Bucket: "steal_big_workers", TTL: 1000 * time.Hour, LimitMarkerTTL: 1000 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(nc, "w1", WithCluster("big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); !errors.Is(err, ErrBadBucket) || !strings.Contains(err.Error(), "TTL") {
		w.Close()
		t.Fatalf("start on a bucket with a 1000h TTL: %v, want a bad_bucket error", err)
	}
}
