package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// The tests of this file use the package as a program does, through its
// exported API alone, and check what its documentation promises: input
// refused at each limit, one completion per id under concurrent
// duplicates, what Wait, Idle and the submissions return when a context
// ends or the servers are gone, Close with handlers running and jobs
// queued, names taken twice, Spawn on a Job kept past its handler.

// bb is a black-box cluster: one embedded server, connections on demand.
type bb struct {
	t *testing.T
	e *natsserver.Server
}

func newBB(t *testing.T) *bb {
	t.Helper()
	e, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return &bb{t: t, e: e}
}

func (b *bb) conn() *nats.Conn {
	b.t.Helper()
	nc, err := b.e.Connect()
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(nc.Close)
	return nc
}

func (b *bb) client(opts ...cluster.Option) *cluster.Client {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cluster.NewClient(ctx, b.conn(), opts...)
	if err != nil {
		b.t.Fatal(err)
	}
	return c
}

// worker starts a worker with handlers registered by reg; closed at cleanup.
func (b *bb) worker(name string, reg func(w *cluster.Worker), opts ...cluster.Option) *cluster.Worker {
	b.t.Helper()
	w, err := cluster.NewWorker(b.conn(), name, opts...)
	if err != nil {
		b.t.Fatal(err)
	}
	if reg != nil {
		reg(w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Start(ctx); err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { w.Close() })
	return w
}

func echo(ctx context.Context, j *cluster.Job) ([]byte, error) {
	return append([]byte("ok:"), j.Payload...), nil
}

func bbWait(t *testing.T, c *cluster.Client, id string, d time.Duration) *cluster.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	r, err := c.Wait(ctx, id)
	if err != nil {
		t.Fatalf("wait %s: %v", id, err)
	}
	return r
}

// waitWorkers waits until the client sees n workers.
func waitWorkers(t *testing.T, c *cluster.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ws, err := c.Workers(context.Background())
		if err == nil && len(ws) >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("fewer than %d workers", n)
}

func TestAPIConcurrentDuplicateSubmits(t *testing.T) {
	b := newBB(t)
	var runs runCounts
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		runs.add(j.ID)
		time.Sleep(time.Millisecond)
		return []byte(j.Worker()), nil
	}
	ws := []*cluster.Worker{
		b.worker("w1", func(w *cluster.Worker) { w.Handle("t", h) }),
		b.worker("w2", func(w *cluster.Worker) { w.Handle("t", h) }),
		b.worker("w3", func(w *cluster.Worker) { w.Handle("t", h) }),
	}
	clients := make([]*cluster.Client, 5)
	for i := range clients {
		clients[i] = b.client()
	}
	waitWorkers(t, clients[0], 3)
	const ids = 40
	var wg sync.WaitGroup
	oks := make([]atomic.Int64, ids)
	var other sync.Map
	for k, c := range clients {
		for rep := 0; rep < 2; rep++ {
			wg.Add(1)
			go func(k int, c *cluster.Client) {
				defer wg.Done()
				for i := 0; i < ids; i++ {
					id := "dup" + strconv.Itoa(i)
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					var err error
					if (k+rep)%2 == 0 {
						err = c.Submit(ctx, id, "t", nil)
					} else {
						err = c.SubmitBatch(ctx, []cluster.BatchJob{{ID: id, Type: "t"}})
						var be *cluster.BatchError
						if errors.As(err, &be) {
							err = be.Errs[0]
						}
					}
					cancel()
					switch {
					case err == nil:
						oks[i].Add(1)
					case errors.Is(err, cluster.ErrDuplicateJob):
					default:
						other.Store(id, err)
					}
				}
			}(k, c)
		}
	}
	wg.Wait()
	other.Range(func(k, v any) bool { t.Errorf("%v: %v", k, v); return true })
	for i := range oks {
		if n := oks[i].Load(); n != 1 {
			t.Errorf("dup%d: %d submissions accepted, want 1", i, n)
		}
	}
	for i := 0; i < ids; i++ {
		bbWait(t, clients[i%len(clients)], "dup"+strconv.Itoa(i), 20*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := clients[0].WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	var completed int64
	for _, w := range ws {
		completed += w.Stats().Completed
	}
	if completed != ids {
		t.Errorf("completed %d, want %d", completed, ids)
	}
	runs.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Load(); n != 1 {
			t.Errorf("%v ran %d times", k, n)
		}
		return true
	})
}

func TestAPIWaitOutcomes(t *testing.T) {
	b := newBB(t)
	b.worker("w1", func(w *cluster.Worker) {
		w.Handle("ok", echo)
		w.Handle("fail", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			return nil, errors.New("boom")
		})
		w.Handle("panic", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			panic("kaboom")
		})
		w.Handle("goexit", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			runtime.Goexit()
			return nil, nil
		})
		w.Handle("big", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			return make([]byte, 1024+len(j.Payload)), nil
		})
	}, cluster.WithMaxPayload(1024))
	c := b.client()
	waitWorkers(t, c, 1)

	// Never submitted: Wait ends with ctx.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	r, err := c.Wait(ctx, "never")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || r != nil {
		t.Errorf("wait never: %v %v", r, err)
	}
	// Wait on an invalid id.
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
	_, err = c.Wait(ctx, "a.b")
	cancel()
	if !errors.Is(err, cluster.ErrInvalidID) {
		t.Errorf("wait on an invalid id: %v", err)
	}

	// Submitted later.
	done := make(chan *cluster.Result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := c.Wait(ctx, "later")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(200 * time.Millisecond)
	if err := c.Submit(context.Background(), "later", "ok", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r == nil || string(r.Value) != "ok:x" || r.Err != nil || r.ID != "later" || r.Worker != "w1" {
		t.Errorf("later: %+v", r)
	}
	cases := []struct {
		id, typ string
		want    error
		payload []byte
	}{
		{"f1", "fail", cluster.ErrHandler, nil},
		{"p1", "panic", cluster.ErrHandlerPanic, nil},
		{"g1", "goexit", cluster.ErrHandlerPanic, nil},
		{"u1", "nosuch", cluster.ErrUnknownType, nil},
		{"b1", "big", cluster.ErrResultTooLarge, []byte("x")},
		{"b0", "big", nil, nil},
	}
	for _, tc := range cases {
		if err := c.Submit(context.Background(), tc.id, tc.typ, tc.payload); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range cases {
		r := bbWait(t, c, tc.id, 10*time.Second)
		if tc.want == nil {
			if r.Err != nil || len(r.Value) != 1024 {
				t.Errorf("%s: %v %d", tc.id, r.Err, len(r.Value))
			}
			continue
		}
		var je *cluster.JobError
		if !errors.As(r.Err, &je) || !errors.Is(r.Err, tc.want) || je.ID != tc.id || r.Value != nil {
			t.Errorf("%s: got %+v (%v), want %v", tc.id, r, r.Err, tc.want)
		}
	}
	// The worker goes on.
	if err := c.Submit(context.Background(), "after", "ok", nil); err != nil {
		t.Fatal(err)
	}
	bbWait(t, c, "after", 10*time.Second)
	// A second Wait returns the same.
	r = bbWait(t, c, "p1", 5*time.Second)
	if !errors.Is(r.Err, cluster.ErrHandlerPanic) || !strings.Contains(r.Err.Error(), "kaboom") {
		t.Errorf("p1 again: %v", r.Err)
	}
	// Resubmitting a completed id: duplicate.
	if err := c.Submit(context.Background(), "f1", "ok", nil); !errors.Is(err, cluster.ErrDuplicateJob) {
		t.Errorf("resubmit completed: %v", err)
	}
}

func TestAPIValidation(t *testing.T) {
	b := newBB(t)
	var mu sync.Mutex
	seen := map[string]string{}
	b.worker("w1", func(w *cluster.Worker) {
		w.HandleAll(func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			mu.Lock()
			seen[j.ID] = j.Type
			mu.Unlock()
			return nil, nil
		})
	})
	c := b.client()
	waitWorkers(t, c, 1)
	ctx := context.Background()
	long := strings.Repeat("a", cluster.MaxIDLen)
	idCases := map[string]bool{
		long:         true,
		long + "a":   false,
		"":           false,
		"a.b":        false,
		"a*":         false,
		"a>":         false,
		">":          false,
		"*":          false,
		"a b":        false,
		"é":          false,
		"a/b":        false,
		"a\x00":      false,
		"A_z-0=9":    true,
		"\u0430":     false, // Cyrillic a
		"tab\t":      false,
		"a\nb":       false,
		"$JS":        false,
		"=":          true,
		"-":          true,
		"_":          true,
		"a:b":        false,
		"a%b":        false,
		"a+b":        false,
		"..":         false,
		"a~b":        false,
		"x\u200bx":   false,
		"new\rline":  false,
		"ﬀ":          false,
		"a#b":        false,
		"semi;colon": false,
	}
	for id, ok := range idCases {
		err := c.Submit(ctx, id, "t", nil)
		if ok && err != nil {
			t.Errorf("Submit id %q: %v", id, err)
		}
		if !ok && !errors.Is(err, cluster.ErrInvalidID) {
			t.Errorf("Submit id %q: %v, want ErrInvalidID", id, err)
		}
		err = c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "v" + strconv.Itoa(len(id)) + "x", Type: "t"}, {ID: id, Type: "t"}})
		if !ok && (!errors.Is(err, cluster.ErrInvalidID) || !strings.Contains(err.Error(), "1")) {
			t.Errorf("SubmitBatch id %q: %v, want ErrInvalidID", id, err)
		}
		err = c.SubmitBundle(ctx, []cluster.BatchJob{{ID: id, Type: "t"}})
		if !ok && !errors.Is(err, cluster.ErrInvalidID) {
			t.Errorf("SubmitBundle id %q: %v, want ErrInvalidID", id, err)
		}
	}
	typeCases := map[string]bool{
		strings.Repeat("t", 128):      true,
		strings.Repeat("t", 129):      false,
		"":                            false,
		"a b":                         false,
		"a.b*>":                       true,
		"é":                           false,
		"\x7f":                        false,
		"~!@#$%^&*()_+{}|:\"<>?`-=[]": true,
		"a\tb":                        false,
	}
	for typ, ok := range typeCases {
		id := fmt.Sprintf("ty%x", []byte(typ))
		if len(id) > cluster.MaxIDLen {
			id = id[:cluster.MaxIDLen]
		}
		err := c.Submit(ctx, id, typ, nil)
		if ok && err != nil {
			t.Errorf("Submit type %q: %v", typ, err)
		}
		if !ok && !errors.Is(err, cluster.ErrInvalidType) {
			t.Errorf("Submit type %q: %v, want ErrInvalidType", typ, err)
		}
		if ok {
			r := bbWait(t, c, id, 10*time.Second)
			mu.Lock()
			got := seen[id]
			mu.Unlock()
			if r.Err != nil || got != typ {
				t.Errorf("type %q: ran as %q, %v", typ, got, r.Err)
			}
		}
	}
	// Worker names.
	if _, err := cluster.NewWorker(b.conn(), strings.Repeat("n", 64)); err != nil {
		t.Errorf("64-char name: %v", err)
	}
	for _, name := range []string{"", strings.Repeat("n", 65), "a.b", "a b", "a*", "a>", "é", "a=b"} {
		if _, err := cluster.NewWorker(b.conn(), name); !errors.Is(err, cluster.ErrInvalidName) {
			t.Errorf("worker name %q: %v", name, err)
		}
		if err := c.Submit(ctx, "toname", "t", nil, cluster.To(name)); !errors.Is(err, cluster.ErrInvalidName) {
			t.Errorf("To(%q): %v", name, err)
		}
	}
	if err := c.Submit(ctx, "tonobody", "t", nil, cluster.To("nobody")); !errors.Is(err, cluster.ErrNoWorkers) {
		t.Errorf("To(nobody): %v", err)
	}
	if err := c.Submit(ctx, "tonobody", "t", nil); err != nil {
		t.Errorf("tonobody after ErrNoWorkers: %v", err)
	}
	for _, name := range []string{"", "a.b", strings.Repeat("c", 65)} {
		if _, err := cluster.NewClient(ctx, b.conn(), cluster.WithCluster(name)); !errors.Is(err, cluster.ErrInvalidName) {
			t.Errorf("cluster %q: %v", name, err)
		}
	}
	mu.Lock()
	if _, ok := seen[long]; !ok {
		// it was submitted; wait for it
		mu.Unlock()
		bbWait(t, c, long, 10*time.Second)
	} else {
		mu.Unlock()
	}
}

func TestAPIPayloadLimits(t *testing.T) {
	for _, max := range []int{0, 1000, 512 << 10} {
		t.Run(strconv.Itoa(max), func(t *testing.T) {
			b := newBB(t)
			var opts []cluster.Option
			lim := 256 << 10
			if max > 0 {
				opts = append(opts, cluster.WithMaxPayload(max))
				lim = max
			}
			b.worker("w1", func(w *cluster.Worker) {
				w.Handle("t", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					return j.Payload, nil
				})
			}, opts...)
			c := b.client(opts...)
			waitWorkers(t, c, 1)
			ctx := context.Background()
			at := bytes.Repeat([]byte{0xff}, lim)
			over := bytes.Repeat([]byte{0xff}, lim+1)
			if err := c.Submit(ctx, "at", "t", at); err != nil {
				t.Fatalf("payload at limit: %v", err)
			}
			if err := c.Submit(ctx, "over", "t", over); !errors.Is(err, cluster.ErrPayloadTooLarge) {
				t.Errorf("payload over limit: %v", err)
			}
			r := bbWait(t, c, "at", 20*time.Second)
			if r.Err != nil || !bytes.Equal(r.Value, at) {
				t.Errorf("at: %v, %d bytes", r.Err, len(r.Value))
			}
			// Batch: two at the limit, and one over among good ones.
			err := c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "ba1", Type: "t", Payload: at}, {ID: "ba2", Type: "t", Payload: at}})
			if err != nil {
				t.Errorf("batch at limit: %v", err)
			}
			err = c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "bo1", Type: "t"}, {ID: "bo2", Type: "t", Payload: over}})
			if !errors.Is(err, cluster.ErrPayloadTooLarge) {
				t.Errorf("batch over limit: %v", err)
			}
			// Bundles: three at the limit.
			err = c.SubmitBundle(ctx, []cluster.BatchJob{{ID: "bu1", Type: "t", Payload: at}, {ID: "bu2", Type: "t", Payload: at}, {ID: "bu3", Type: "t", Payload: at}})
			if err != nil {
				t.Errorf("bundle at limit: %v", err)
			}
			for _, id := range []string{"ba1", "ba2"} {
				r := bbWait(t, c, id, 20*time.Second)
				if r.Err != nil || !bytes.Equal(r.Value, at) {
					t.Errorf("%s: %v", id, r.Err)
				}
			}
			if err == nil {
				for _, id := range []string{"bu1", "bu2", "bu3"} {
					r := bbWait(t, c, id, 20*time.Second)
					if r.Err != nil || !bytes.Equal(r.Value, at) {
						t.Errorf("%s: %v", id, r.Err)
					}
				}
			}
			wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			if _, err := c.Wait(wctx, "bo1"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("bo1 of a refused batch: %v", err)
			}
		})
	}
}

func TestAPISpawnAfterReturn(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			kept := make(chan *cluster.Job, 1)
			var childRuns atomic.Int64
			b.worker("w1", func(w *cluster.Worker) {
				w.Handle("root", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					kept <- j
					return nil, nil
				})
				w.Handle("child", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					childRuns.Add(1)
					return nil, nil
				})
			}, opts...)
			c := b.client()
			waitWorkers(t, c, 1)
			if err := c.Submit(context.Background(), "root", "root", nil); err != nil {
				t.Fatal(err)
			}
			j := <-kept
			bbWait(t, c, "root", 10*time.Second)
			id, err := j.Spawn(context.Background(), "child", nil)
			if !errors.Is(err, cluster.ErrFenced) {
				t.Errorf("Spawn after return: %q %v", id, err)
			}
			if err := j.SpawnID(context.Background(), "late-child", "child", nil); !errors.Is(err, cluster.ErrFenced) {
				t.Errorf("SpawnID after return: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			if n := childRuns.Load(); n != 0 {
				t.Errorf("%d children ran", n)
			}
		})
	}
}

func TestAPICloseHandsOver(t *testing.T) {
	b := newBB(t)
	started := make(chan string, 10)
	var mu sync.Mutex
	ranOn := map[string][]string{}
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		mu.Lock()
		ranOn[j.ID] = append(ranOn[j.ID], j.Worker())
		mu.Unlock()
		if j.Worker() == "a" {
			started <- j.ID
			<-ctx.Done()
			if j.ID == "q0" {
				return []byte("late result"), nil // recorded
			}
			return nil, ctx.Err() // not recorded: queued for another
		}
		return []byte("b"), nil
	}
	lease := cluster.WithLease(time.Second)
	a := b.worker("a", func(w *cluster.Worker) { w.Handle("t", h) }, lease, cluster.WithSlots(2), cluster.WithStealMode(cluster.StealOff))
	c := b.client(lease)
	waitWorkers(t, c, 1)
	for i := 0; i < 6; i++ {
		if err := c.Submit(context.Background(), "q"+strconv.Itoa(i), "t", nil, cluster.To("a")); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	<-started
	b.worker("b", func(w *cluster.Worker) { w.Handle("t", h) }, lease, cluster.WithStealMode(cluster.StealOff))
	waitWorkers(t, c, 2)
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("close: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Close hangs")
	}
	if err := a.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := a.Start(ctx); !errors.Is(err, cluster.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	for i := 0; i < 6; i++ {
		id := "q" + strconv.Itoa(i)
		r, err := c.Wait(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		mu.Lock()
		t.Logf("%s: recorded by %s, ran on %v", id, r.Worker, ranOn[id])
		mu.Unlock()
		if r.Err != nil {
			t.Errorf("%s: %v", id, r.Err)
		}
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAPISameName(t *testing.T) {
	b := newBB(t)
	w1 := b.worker("same", func(w *cluster.Worker) { w.Handle("t", echo) })
	w2, err := cluster.NewWorker(b.conn(), "same")
	if err != nil {
		t.Fatal(err)
	}
	w2.Handle("t", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		t.Error("second worker ran a job")
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w2.Start(ctx); !errors.Is(err, cluster.ErrNameInUse) {
		t.Fatalf("second Start: %v", err)
	}
	c := b.client()
	if err := c.Submit(ctx, "s1", "t", nil, cluster.To("same")); err != nil {
		t.Fatal(err)
	}
	r := bbWait(t, c, "s1", 10*time.Second)
	if r.Err != nil || r.Worker != "same" {
		t.Errorf("%+v", r)
	}
	// Start again after a failed Start.
	err = w2.Start(ctx)
	t.Logf("Start again after ErrNameInUse: %v", err)
	if err == nil {
		t.Error("second worker started on a live name")
		w2.Close()
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	w3 := b.worker("same", func(w *cluster.Worker) { w.Handle("t", echo) })
	if err := c.Submit(ctx, "s2", "t", nil, cluster.To("same")); err != nil {
		t.Fatal(err)
	}
	bbWait(t, c, "s2", 10*time.Second)
	_ = w3
	if err := w2.Close(); err != nil {
		t.Error(err)
	}
}

func TestAPIHandleAfterStart(t *testing.T) {
	b := newBB(t)
	w := b.worker("w", nil)
	c := b.client()
	if err := c.Submit(context.Background(), "u", "late", nil); err != nil {
		t.Fatal(err)
	}
	r := bbWait(t, c, "u", 10*time.Second)
	if !errors.Is(r.Err, cluster.ErrUnknownType) {
		t.Errorf("no handler: %v", r.Err)
	}
	if err := w.Handle("late", echo); err != nil {
		t.Fatal(err)
	}
	if err := w.Handle("bad type", echo); !errors.Is(err, cluster.ErrInvalidType) {
		t.Errorf("bad type: %v", err)
	}
	if err := w.Handle("late", nil); !errors.Is(err, cluster.ErrNilHandler) {
		t.Errorf("nil handler: %v", err)
	}
	if err := c.Submit(context.Background(), "v", "late", []byte("p")); err != nil {
		t.Fatal(err)
	}
	r = bbWait(t, c, "v", 10*time.Second)
	if r.Err != nil || string(r.Value) != "ok:p" {
		t.Errorf("late handler: %+v", r)
	}
	w.HandleAll(func(ctx context.Context, j *cluster.Job) ([]byte, error) { return []byte("all"), nil })
	if err := c.Submit(context.Background(), "x", "other", nil); err != nil {
		t.Fatal(err)
	}
	if r := bbWait(t, c, "x", 10*time.Second); string(r.Value) != "all" {
		t.Errorf("HandleAll: %+v", r)
	}
	w.HandleAll(nil)
	if err := c.Submit(context.Background(), "y", "other", nil); err != nil {
		t.Fatal(err)
	}
	if r := bbWait(t, c, "y", 10*time.Second); !errors.Is(r.Err, cluster.ErrUnknownType) {
		t.Errorf("HandleAll(nil): %+v", r)
	}
}

func TestAPIContexts(t *testing.T) {
	b := newBB(t)
	b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) })
	c := b.client()
	waitWorkers(t, c, 1)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	err := c.Submit(done, "c1", "t", nil)
	t.Logf("Submit on cancelled ctx: %v", err)
	if err == nil {
		t.Error("Submit on a cancelled ctx returned nil")
	}
	err = c.SubmitBatch(done, []cluster.BatchJob{{ID: "c2", Type: "t"}, {ID: "c3", Type: "t"}})
	var be *cluster.BatchError
	if !errors.As(err, &be) || len(be.Errs) != 2 || !errors.Is(be.Errs[0], context.Canceled) || !errors.Is(be.Errs[1], context.Canceled) {
		t.Errorf("SubmitBatch on cancelled ctx: %v", err)
	}
	err = c.SubmitBundle(done, []cluster.BatchJob{{ID: "c4", Type: "t"}})
	t.Logf("SubmitBundle on cancelled ctx: %v", err)
	if err == nil {
		t.Error("SubmitBundle on a cancelled ctx returned nil")
	}
	if _, err := c.Wait(done, "c1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on cancelled ctx: %v", err)
	}
	if err := c.WaitIdle(done); !errors.Is(err, context.Canceled) {
		t.Logf("WaitIdle on cancelled ctx: %v", err)
	}
	idle, err := c.Idle(done)
	t.Logf("Idle on cancelled ctx: %v %v", idle, err)
	if _, err := c.Workers(done); err == nil {
		t.Logf("Workers on cancelled ctx: nil error")
	}
	// Nothing submitted with a cancelled ctx was stored (the batch
	// promises it; the others are logged).
	ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		wctx, wc := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := c.Wait(wctx, id)
		wc()
		if err == nil {
			t.Logf("%s was stored although its submission's ctx was cancelled", id)
			if id == "c2" || id == "c3" {
				t.Errorf("%s stored by a batch whose ctx had ended", id)
			}
		}
	}
	// Short deadlines at random points.
	for i := 0; i < 30; i++ {
		id := "d" + strconv.Itoa(i)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i)*100*time.Microsecond)
		err := c.Submit(ctx, id, "t", nil)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: unexpected error %v", id, err)
		}
		// Submitting again is safe: nil, duplicate or maybe stored.
		err2 := c.Submit(context.Background(), id, "t", nil)
		if err == nil && !errors.Is(err2, cluster.ErrDuplicateJob) {
			t.Errorf("%s: stored, resubmit gave %v", id, err2)
		}
		if err2 != nil && !errors.Is(err2, cluster.ErrDuplicateJob) {
			t.Errorf("%s: resubmit: %v", id, err2)
		}
		bbWait(t, c, id, 10*time.Second)
	}
}

func TestAPISubmitBatchShapes(t *testing.T) {
	b := newBB(t)
	var runs runCounts
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		runs.add(j.ID)
		return j.Payload, nil
	}
	b.worker("w1", func(w *cluster.Worker) { w.Handle("t", h) })
	b.worker("w2", func(w *cluster.Worker) { w.Handle("t", h) })
	c := b.client()
	waitWorkers(t, c, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.SubmitBatch(ctx, nil); err != nil {
		t.Errorf("nil batch: %v", err)
	}
	if err := c.SubmitBatch(ctx, []cluster.BatchJob{}); err != nil {
		t.Errorf("empty batch: %v", err)
	}
	if err := c.SubmitBundle(ctx, nil); err != nil {
		t.Errorf("empty bundle: %v", err)
	}
	// One bad job among good ones: nothing sent.
	jobs := []cluster.BatchJob{{ID: "g0", Type: "t"}, {ID: "g1", Type: "t"}, {ID: "bad id", Type: "t"}, {ID: "g3", Type: "t"}}
	err := c.SubmitBatch(ctx, jobs)
	if !errors.Is(err, cluster.ErrInvalidID) || !strings.Contains(err.Error(), "2") {
		t.Errorf("bad job: %v", err)
	}
	var be *cluster.BatchError
	if errors.As(err, &be) {
		t.Errorf("invalid input gave a BatchError: %v", err)
	}
	err = c.SubmitBatch(ctx, jobs, cluster.To("bad.name"))
	if !errors.Is(err, cluster.ErrInvalidName) {
		t.Errorf("bad To: %v", err)
	}
	err = c.SubmitBundle(ctx, jobs)
	if !errors.Is(err, cluster.ErrInvalidID) {
		t.Errorf("bad job in bundle: %v", err)
	}
	if idle, err := c.Idle(ctx); !idle || err != nil {
		t.Errorf("after refused batches: idle %v %v", idle, err)
	}
	// Duplicates inside a batch and against earlier ones.
	if err := c.Submit(ctx, "pre", "t", nil); err != nil {
		t.Fatal(err)
	}
	jobs = []cluster.BatchJob{
		{ID: "a", Type: "t", Payload: []byte("1")},
		{ID: "b", Type: "t"},
		{ID: "a", Type: "t", Payload: []byte("2")},
		{ID: "pre", Type: "t"},
		{ID: "c", Type: "t"},
		{ID: "a", Type: "t", Payload: []byte("3")},
	}
	err = c.SubmitBatch(ctx, jobs)
	if !errors.As(err, &be) || len(be.Errs) != len(jobs) {
		t.Fatalf("dups: %v", err)
	}
	for i, want := range []error{nil, nil, cluster.ErrDuplicateJob, cluster.ErrDuplicateJob, nil, cluster.ErrDuplicateJob} {
		if want == nil && be.Errs[i] != nil || want != nil && !errors.Is(be.Errs[i], want) {
			t.Errorf("dups: job %d: %v, want %v", i, be.Errs[i], want)
		}
	}
	if !errors.Is(err, cluster.ErrDuplicateJob) {
		t.Errorf("errors.Is(BatchError, ErrDuplicateJob) false")
	}
	if r := bbWait(t, c, "a", 10*time.Second); string(r.Value) != "1" {
		t.Errorf("a ran with %q", r.Value)
	}
	// Bundles with duplicates inside.
	err = c.SubmitBundle(ctx, []cluster.BatchJob{{ID: "ba", Type: "t", Payload: []byte("1")}, {ID: "ba", Type: "t", Payload: []byte("2")}, {ID: "bb", Type: "t"}})
	if !errors.As(err, &be) || be.Errs[0] != nil || !errors.Is(be.Errs[1], cluster.ErrDuplicateJob) || be.Errs[2] != nil {
		t.Errorf("bundle dups: %v", err)
	}
	if r := bbWait(t, c, "ba", 10*time.Second); string(r.Value) != "1" {
		t.Errorf("ba ran with %q", r.Value)
	}
	// 2500 jobs in one call, the last 100 duplicates of the first.
	const n = 2500
	jobs = make([]cluster.BatchJob, n+100)
	for i := range jobs {
		jobs[i] = cluster.BatchJob{ID: "m" + strconv.Itoa(i%n), Type: "t", Payload: []byte(strconv.Itoa(i))}
	}
	err = c.SubmitBatch(ctx, jobs)
	if !errors.As(err, &be) {
		t.Fatalf("big batch: %v", err)
	}
	for i, e := range be.Errs {
		if (i < n) != (e == nil) {
			t.Fatalf("big batch: job %d: %v", i, e)
		}
	}
	// 2000 in bundles.
	bj := make([]cluster.BatchJob, 2000)
	for i := range bj {
		bj[i] = cluster.BatchJob{ID: "n" + strconv.Itoa(i), Type: "t"}
	}
	if err := c.SubmitBundle(ctx, bj); err != nil {
		t.Fatalf("big bundle: %v", err)
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 97 {
		id := "m" + strconv.Itoa(i)
		if r := bbWait(t, c, id, 5*time.Second); string(r.Value) != strconv.Itoa(i) {
			t.Errorf("%s: %q", id, r.Value)
		}
	}
	bbWait(t, c, "n1999", 5*time.Second)
	total := 0
	runs.Range(func(k, v any) bool {
		total++
		if n := v.(*atomic.Int64).Load(); n != 1 {
			t.Errorf("%v ran %d times", k, n)
		}
		return true
	})
	if want := n + 2000 + 6; total != want {
		t.Errorf("%d jobs ran, want %d", total, want)
	}
}

func TestAPIIdleTruth(t *testing.T) {
	modes := spawnModes()
	modes["stealone"] = []cluster.Option{cluster.WithStealMode(cluster.StealOne)}
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) { idleTruth(t, name == "inmemory", opts) })
	}
}

func idleTruth(t *testing.T, mem bool, opts []cluster.Option) {
	b := newBB(t)
	var mu sync.Mutex
	all := map[string]bool{}
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		depth, _ := strconv.Atoi(string(j.Payload))
		if depth < 3 {
			for k := 0; k < 2; k++ {
				id, err := j.Spawn(ctx, "t", []byte(strconv.Itoa(depth+1)))
				if err != nil {
					return nil, err
				}
				if !mem {
					mu.Lock()
					all[id] = true
					mu.Unlock()
				}
			}
		}
		time.Sleep(2 * time.Millisecond)
		return nil, nil
	}
	lease := cluster.WithLease(time.Second)
	for _, name := range []string{"w1", "w2", "w3"} {
		b.worker(name, func(w *cluster.Worker) { w.Handle("t", h) }, append([]cluster.Option{lease, cluster.WithSlots(2)}, opts...)...)
	}
	c := b.client(lease)
	waitWorkers(t, c, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for round := 0; round < 2; round++ {
		for i := 0; i < 10; i++ {
			id := fmt.Sprintf("r%d-%d", round, i)
			if err := c.Submit(ctx, id, "t", []byte("0"), cluster.To("w1")); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			all[id] = true
			mu.Unlock()
		}
		// Idle must not be true until every job (submitted or spawned) completed.
		for {
			idle, err := c.Idle(ctx)
			if err != nil {
				t.Logf("idle: %v", err)
			}
			if idle {
				break
			}
			if ctx.Err() != nil {
				t.Fatal("never idle")
			}
		}
		mu.Lock()
		ids := make([]string, 0, len(all))
		for id := range all {
			ids = append(ids, id)
		}
		mu.Unlock()
		for _, id := range ids {
			wctx, wc := context.WithTimeout(ctx, 2*time.Second)
			_, err := c.Wait(wctx, id)
			wc()
			if err != nil {
				t.Fatalf("round %d: idle, but %s has no completion: %v", round, id, err)
			}
		}
	}
}

func TestAPICloseBlockedHandler(t *testing.T) {
	b := newBB(t)
	release := make(chan struct{})
	running := make(chan struct{})
	w := b.worker("w", func(w *cluster.Worker) {
		w.Handle("block", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			close(running)
			<-release // ignores ctx
			return []byte("r"), nil
		})
	})
	c := b.client()
	if err := c.Submit(context.Background(), "blk", "block", nil); err != nil {
		t.Fatal(err)
	}
	<-running
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned %v while a handler runs", err)
	case <-time.After(500 * time.Millisecond):
	}
	second := make(chan error, 1)
	go func() { second <- w.Close() }()
	select {
	case err := <-second:
		if err != nil {
			t.Errorf("second Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Error("second Close waits")
	}
	select {
	case <-w.Done():
		t.Error("Done closed while the handler runs")
	default:
	}
	close(release)
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs after the handler returned")
	}
	<-w.Done()
	r := bbWait(t, c, "blk", 5*time.Second)
	if string(r.Value) != "r" {
		t.Errorf("%+v", r)
	}
}

func TestAPICloseFromHandler(t *testing.T) {
	b := newBB(t)
	var w *cluster.Worker
	ret := make(chan error, 1)
	w = b.worker("w", func(wk *cluster.Worker) {
		wk.Handle("close", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			ret <- w.Close()
			return []byte("x"), nil
		})
	})
	c := b.client()
	if err := c.Submit(context.Background(), "cl", "close", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ret:
		if err != nil {
			t.Errorf("Close in handler: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("handler's Close hangs")
	}
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done never closed")
	}
	r := bbWait(t, c, "cl", 5*time.Second)
	if string(r.Value) != "x" {
		t.Errorf("%+v", r)
	}
}

func TestAPIClosedConn(t *testing.T) {
	b := newBB(t)
	b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) })
	nc := b.conn()
	c, err := cluster.NewClient(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err = c.Submit(ctx, "z", "t", nil)
	t.Logf("Submit on closed conn: %v (%v)", err, time.Since(start))
	if err == nil {
		t.Error("Submit on a closed connection returned nil")
	}
	start = time.Now()
	_, err = c.Wait(ctx, "z")
	t.Logf("Wait on closed conn: %v (%v)", err, time.Since(start))
	if !errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("Wait: %v", err)
	}
	start = time.Now()
	err = c.WaitIdle(ctx)
	t.Logf("WaitIdle on closed conn: %v (%v)", err, time.Since(start))
	if !errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("WaitIdle: %v", err)
	}
	start = time.Now()
	err = c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "z", Type: "t"}})
	t.Logf("SubmitBatch on closed conn: %v (%v)", err, time.Since(start))
	var be *cluster.BatchError
	if !errors.As(err, &be) || be.Errs[0] == nil {
		t.Errorf("SubmitBatch on a closed connection: %v, want a BatchError with the job's error", err)
	}
	start = time.Now()
	_, err = c.Workers(ctx)
	t.Logf("Workers on closed conn: %v (%v)", err, time.Since(start))
	if err == nil {
		t.Error("Workers on a closed connection returned nil")
	}
	if _, err := cluster.NewClient(ctx, nc); !errors.Is(err, cluster.ErrNotConnected) {
		t.Errorf("NewClient on closed conn: %v", err)
	}
	if _, err := cluster.NewClient(ctx, nil); !errors.Is(err, cluster.ErrNotConnected) {
		t.Errorf("NewClient on nil conn: %v", err)
	}
	w, err := cluster.NewWorker(nc, "x")
	if err == nil {
		err = w.Start(ctx)
	}
	if !errors.Is(err, cluster.ErrNotConnected) {
		t.Errorf("worker on closed conn: %v", err)
	}
}

func TestAPICostAndFields(t *testing.T) {
	b := newBB(t)
	type seen struct {
		cost       int64
		attempt    int
		stolenFrom string
		typ        string
	}
	var mu sync.Mutex
	got := map[string]seen{}
	b.worker("w", func(w *cluster.Worker) {
		w.HandleAll(func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			mu.Lock()
			got[j.ID] = seen{j.Cost, j.Attempt, j.StolenFrom, j.Type}
			mu.Unlock()
			return nil, nil
		})
	})
	c := b.client()
	waitWorkers(t, c, 1)
	ctx := context.Background()
	if err := c.Submit(ctx, "s0", "t", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(ctx, "s1", "t", nil, cluster.Cost(7)); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "b0", Type: "t"}, {ID: "b1", Type: "t", Cost: 3}}, cluster.Cost(9)); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitBundle(ctx, []cluster.BatchJob{{ID: "u0", Type: "t"}, {ID: "u1", Type: "t", Cost: 3}}, cluster.Cost(9)); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"s0": 0, "s1": 7, "b0": 9, "b1": 3, "u0": 9, "u1": 3}
	for id, cost := range want {
		bbWait(t, c, id, 10*time.Second)
		mu.Lock()
		g := got[id]
		mu.Unlock()
		if g.cost != cost || g.attempt != 0 || g.stolenFrom != "" || g.typ != "t" {
			t.Errorf("%s: %+v, want cost %d", id, g, cost)
		}
	}
}

func TestAPIStealAPI(t *testing.T) {
	b := newBB(t)
	release := make(chan struct{})
	var mu sync.Mutex
	from := map[string]string{}
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		if j.ID == "hold" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		mu.Lock()
		from[j.ID] = j.StolenFrom + "->" + j.Worker()
		mu.Unlock()
		return nil, nil
	}
	off := cluster.WithStealMode(cluster.StealOff)
	b.worker("v", func(w *cluster.Worker) { w.Handle("t", h) }, off, cluster.WithSlots(1))
	b.worker("th", func(w *cluster.Worker) { w.Handle("t", h) }, off)
	c := b.client()
	waitWorkers(t, c, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Steal(ctx, "v", "v", 1); !errors.Is(err, cluster.ErrSameWorker) {
		t.Errorf("same: %v", err)
	}
	if _, err := c.Steal(ctx, "th", "nobody", 1); !errors.Is(err, cluster.ErrUnknownWorker) {
		t.Errorf("unknown victim: %v", err)
	}
	if _, err := c.Steal(ctx, "nobody", "v", 1); !errors.Is(err, cluster.ErrUnknownWorker) {
		t.Errorf("unknown thief: %v", err)
	}
	if _, err := c.Steal(ctx, "a.b", "v", 1); !errors.Is(err, cluster.ErrInvalidName) {
		t.Errorf("invalid thief: %v", err)
	}
	res, err := c.Steal(ctx, "th", "v", 0)
	if err != nil || len(res.Jobs) != 0 {
		t.Errorf("empty victim: %+v %v", res, err)
	}
	if err := c.Submit(ctx, "hold", "t", nil, cluster.To("v")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	for i := 0; i < 5; i++ {
		if err := c.Submit(ctx, "q"+strconv.Itoa(i), "t", nil, cluster.To("v")); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ws, _ := c.Workers(ctx)
		if len(ws) == 2 && ws[1].Queue == 5 || time.Now().After(deadline) {
			t.Logf("workers: %+v", ws)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err = c.Steal(ctx, "th", "v", 0)
	if err != nil || len(res.Jobs) != 3 || res.VictimQueue != 2 {
		t.Errorf("steal half: %+v %v", res, err)
	}
	for _, id := range res.Jobs {
		bbWait(t, c, id, 10*time.Second)
		mu.Lock()
		if from[id] != "v->th" {
			t.Errorf("%s: %s", id, from[id])
		}
		mu.Unlock()
	}
	close(release)
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAPIIdleWithOrphanRecords(t *testing.T) {
	b := newBB(t)
	lease := cluster.WithLease(time.Second)
	started := make(chan struct{}, 4)
	a := b.worker("a", func(w *cluster.Worker) {
		w.Handle("t", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	}, lease, cluster.WithSlots(1))
	c := b.client(lease)
	waitWorkers(t, c, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ {
		if err := c.Submit(ctx, "o"+strconv.Itoa(i), "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	<-started
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		idle, err := c.Idle(ctx)
		if idle {
			t.Fatalf("idle with three jobs queued and no worker (%v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wctx, wc := context.WithTimeout(ctx, 500*time.Millisecond)
	if err := c.WaitIdle(wctx); err == nil {
		t.Error("WaitIdle returned nil with jobs queued")
	}
	wc()
	b.worker("b", func(w *cluster.Worker) { w.Handle("t", echo) }, lease)
	for i := 0; i < 3; i++ {
		r := bbWait(t, c, "o"+strconv.Itoa(i), 15*time.Second)
		if r.Worker != "b" {
			t.Errorf("%+v", r)
		}
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAPISubmitWhileClosing(t *testing.T) {
	b := newBB(t)
	lease := cluster.WithLease(time.Second)
	var runs runCounts
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		runs.add(j.ID)
		time.Sleep(time.Millisecond)
		return nil, nil
	}
	a := b.worker("a", func(w *cluster.Worker) { w.Handle("t", h) }, lease)
	b.worker("b", func(w *cluster.Worker) { w.Handle("t", h) }, lease)
	c := b.client(lease)
	waitWorkers(t, c, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var accepted sync.Map
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				id := fmt.Sprintf("sc%d-%d", g, i)
				var err error
				if i%2 == 0 {
					err = c.Submit(ctx, id, "t", nil)
				} else {
					err = c.Submit(ctx, id, "t", nil, cluster.To("a"))
				}
				if err == nil {
					accepted.Store(id, true)
				} else if !errors.Is(err, cluster.ErrNoWorkers) {
					t.Errorf("%s: %v", id, err)
				}
			}
		}(g)
	}
	time.Sleep(20 * time.Millisecond)
	if err := a.Close(); err != nil {
		t.Error(err)
	}
	wg.Wait()
	accepted.Range(func(k, _ any) bool {
		wctx, wc := context.WithTimeout(ctx, 15*time.Second)
		defer wc()
		if _, err := c.Wait(wctx, k.(string)); err != nil {
			t.Errorf("%v: %v", k, err)
		}
		return true
	})
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestAPISpawnIDDuplicates(t *testing.T) {
	modes := spawnModes()
	delete(modes, "inmemory") // the test Waits for the children: in memory they are not recorded
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			var runs runCounts
			b.worker("w", func(w *cluster.Worker) {
				w.Handle("root", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					for k := 0; k < 3; k++ {
						if err := j.SpawnID(ctx, "kid", "kid", nil); err != nil {
							return nil, err
						}
					}
					if err := j.SpawnID(ctx, j.ID, "kid", nil); err != nil {
						return nil, err
					}
					if err := j.SpawnID(ctx, "done0", "kid", nil); err != nil {
						return nil, err
					}
					if err := j.SpawnID(ctx, "bad id", "kid", nil); !errors.Is(err, cluster.ErrInvalidID) {
						return nil, fmt.Errorf("bad id: %v", err)
					}
					return nil, nil
				})
				w.Handle("kid", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					runs.add(j.ID)
					return nil, nil
				})
			}, opts...)
			c := b.client()
			waitWorkers(t, c, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := c.Submit(ctx, "done0", "kid", nil); err != nil {
				t.Fatal(err)
			}
			bbWait(t, c, "done0", 10*time.Second)
			if err := c.Submit(ctx, "root", "root", nil); err != nil {
				t.Fatal(err)
			}
			r := bbWait(t, c, "root", 10*time.Second)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			bbWait(t, c, "kid", 10*time.Second)
			runs.Range(func(k, v any) bool {
				t.Logf("%v ran %d", k, v.(*atomic.Int64).Load())
				return true
			})
			if v, ok := runs.Load("kid"); !ok || v.(*atomic.Int64).Load() != 1 {
				t.Errorf("kid runs != 1")
			}
			if v, _ := runs.Load("root"); v != nil {
				t.Errorf("root ran as a kid")
			}
		})
	}
}

func TestAPISpawnThenFail(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			var kids atomic.Int64
			b.worker("w", func(w *cluster.Worker) {
				w.Handle("root", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					for k := 0; k < 3; k++ {
						if _, err := j.Spawn(ctx, "kid", nil); err != nil {
							return nil, err
						}
					}
					switch string(j.Payload) {
					case "panic":
						panic("after spawn")
					case "goexit":
						runtime.Goexit()
					case "fenced":
						return nil, cluster.ErrFenced
					}
					return nil, errors.New("failed after spawn")
				})
				w.Handle("kid", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					kids.Add(1)
					return nil, nil
				})
			}, append([]cluster.Option{cluster.WithSlots(1)}, opts...)...)
			c := b.client()
			waitWorkers(t, c, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			for _, how := range []string{"panic", "goexit", "error", "fenced"} {
				if err := c.Submit(ctx, "r"+how, "root", []byte(how)); err != nil {
					t.Fatal(err)
				}
				r := bbWait(t, c, "r"+how, 10*time.Second)
				t.Logf("%s: %v", how, r.Err)
				if r.Err == nil {
					t.Errorf("%s: root succeeded", how)
				}
				if err := c.WaitIdle(ctx); err != nil {
					t.Fatal(err)
				}
				if name != "inmemory" {
					for k := 0; k < 3; k++ {
						wctx, wc := context.WithTimeout(ctx, time.Second)
						_, err := c.Wait(wctx, "r"+how+"-"+strconv.Itoa(k))
						wc()
						if err != nil {
							t.Errorf("%s: child %d has no completion: %v", how, k, err)
						}
					}
				}
			}
			t.Logf("kids ran %d", kids.Load())
		})
	}
}

func TestAPICloseWithChildren(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			lease := cluster.WithLease(time.Second)
			running := make(chan struct{}, 1)
			var mu sync.Mutex
			ran := map[string]int{}
			h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
				if j.Type == "root" {
					for k := 0; k < 10; k++ {
						if _, err := j.Spawn(ctx, "kid", nil); err != nil {
							return nil, err
						}
					}
					if j.Worker() == "a" {
						running <- struct{}{}
						<-ctx.Done()
					}
					return []byte(j.Worker()), nil
				}
				mu.Lock()
				ran[j.ID]++
				mu.Unlock()
				return nil, nil
			}
			o := append([]cluster.Option{lease, cluster.WithSlots(1), cluster.WithStealMode(cluster.StealOff)}, opts...)
			a := b.worker("a", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			c := b.client(lease)
			waitWorkers(t, c, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Submit(ctx, "root", "root", nil); err != nil {
				t.Fatal(err)
			}
			<-running
			b.worker("b", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			waitWorkers(t, c, 2)
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			r := bbWait(t, c, "root", 20*time.Second)
			t.Logf("root recorded by %s", r.Worker)
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for k := 0; k < 10; k++ {
				id := "root-" + strconv.Itoa(k)
				if ran[id] == 0 {
					t.Errorf("%s never ran", id)
				}
				if name != "inmemory" {
					wctx, wc := context.WithTimeout(ctx, time.Second)
					_, err := c.Wait(wctx, id)
					wc()
					if err != nil {
						t.Errorf("%s: no completion: %v", id, err)
					}
				}
			}
		})
	}
}

func TestAPISharedConn(t *testing.T) {
	b := newBB(t)
	nc := b.conn()
	var runs runCounts
	h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
		runs.add(j.ID)
		time.Sleep(time.Millisecond)
		return []byte(j.Worker()), nil
	}
	var ws []*cluster.Worker
	for _, name := range []string{"x", "y", "x"} {
		w, err := cluster.NewWorker(nc, name, cluster.WithSlots(2))
		if err != nil {
			t.Fatal(err)
		}
		w.Handle("t", h)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = w.Start(ctx)
		cancel()
		if len(ws) == 2 {
			if !errors.Is(err, cluster.ErrNameInUse) {
				t.Errorf("same name on one conn: %v", err)
				w.Close()
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		ws = append(ws, w)
	}
	c, err := cluster.NewClient(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Handle, HandleAll and Stats while jobs run.
	stop := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(1)
	go func() {
		defer bg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, w := range ws {
				w.Handle("t", h)
				w.HandleAll(nil)
				_ = w.Stats()
				_ = w.Queued()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	jobs := make([]cluster.BatchJob, 300)
	for i := range jobs {
		jobs[i] = cluster.BatchJob{ID: "sh" + strconv.Itoa(i), Type: "t"}
	}
	if err := c.SubmitBatch(ctx, jobs, cluster.To("x")); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	bg.Wait()
	var on = map[string]int{}
	for i := range jobs {
		r := bbWait(t, c, jobs[i].ID, 5*time.Second)
		on[r.Worker]++
		if string(r.Value) != r.Worker {
			t.Errorf("%s: value %q worker %q", r.ID, r.Value, r.Worker)
		}
	}
	t.Logf("completions by worker: %v", on)
	var total int64
	for _, w := range ws {
		total += w.Stats().Completed
	}
	if total != 300 {
		t.Errorf("completed %d", total)
	}
	runs.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Load(); n != 1 {
			t.Errorf("%v ran %d", k, n)
		}
		return true
	})
}

func TestAPIServerGone(t *testing.T) {
	b := newBB(t)
	lease := cluster.WithLease(time.Second)
	running := make(chan struct{}, 1)
	w := b.worker("w", func(w *cluster.Worker) {
		w.Handle("t", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			running <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	}, lease, cluster.WithRequestTimeout(500*time.Millisecond))
	nc := b.conn()
	c, err := cluster.NewClient(context.Background(), nc, lease)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(context.Background(), "j", "t", nil); err != nil {
		t.Fatal(err)
	}
	<-running
	waitErr := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := c.Wait(ctx, "j")
		waitErr <- err
	}()
	time.Sleep(100 * time.Millisecond)
	b.e.Shutdown()
	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Logf("Close without server: %v after %v", err, time.Since(start))
		if !errors.Is(err, cluster.ErrNotHandedOver) {
			t.Errorf("Close without server: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Close hangs without a server")
	}
	nc.Close()
	select {
	case err := <-waitErr:
		t.Logf("Wait: %v", err)
		if !errors.Is(err, nats.ErrConnectionClosed) {
			t.Errorf("Wait after its connection closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait hangs after its connection closed")
	}
}

func TestAPIStartCancelled(t *testing.T) {
	b := newBB(t)
	w, err := cluster.NewWorker(b.conn(), "w")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = w.Start(ctx)
	t.Logf("Start on cancelled ctx: %v", err)
	if err == nil {
		w.Close()
		t.Fatal("Start on a cancelled ctx succeeded")
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	select {
	case <-w.Done():
	case <-time.After(time.Second):
		t.Error("Done not closed")
	}
	// The name is free.
	w2 := b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) })
	_ = w2
	c := b.client()
	if err := c.Submit(context.Background(), "x", "t", nil, cluster.To("w")); err != nil {
		t.Fatal(err)
	}
	bbWait(t, c, "x", 10*time.Second)
	if _, err := cluster.NewClient(ctx, b.conn()); err == nil {
		t.Log("NewClient on a cancelled ctx succeeded")
	}
}

func TestAPILargeBatchesOfWrites(t *testing.T) {
	const max = 512 << 10
	b := newBB(t)
	opts := []cluster.Option{cluster.WithMaxPayload(max), cluster.WithSlots(1)}
	b.worker("w", func(w *cluster.Worker) {
		w.Handle("big", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			return bytes.Repeat([]byte{'r'}, max), nil
		})
		w.Handle("parent", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			for k := 0; k < 6; k++ {
				if _, err := j.Spawn(ctx, "big", bytes.Repeat([]byte{'p'}, max)); err != nil {
					return nil, err
				}
			}
			return bytes.Repeat([]byte{'r'}, max), nil
		})
	}, opts...)
	c := b.client(opts...)
	waitWorkers(t, c, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	jobs := make([]cluster.BatchJob, 8)
	for i := range jobs {
		jobs[i] = cluster.BatchJob{ID: "bb" + strconv.Itoa(i), Type: "big"}
	}
	if err := c.SubmitBundle(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(ctx, "par", "parent", nil); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		wctx, wc := context.WithTimeout(ctx, 15*time.Second)
		r, err := c.Wait(wctx, j.ID)
		wc()
		if err != nil {
			t.Fatalf("%s: %v", j.ID, err)
		}
		if r.Err != nil || len(r.Value) != max {
			t.Errorf("%s: %v %d", j.ID, r.Err, len(r.Value))
		}
	}
	r := bbWait(t, c, "par", 15*time.Second)
	if r.Err != nil {
		t.Error(r.Err)
	}
	for k := 0; k < 6; k++ {
		bbWait(t, c, "par-"+strconv.Itoa(k), 15*time.Second)
	}
}

func TestAPILongFailureText(t *testing.T) {
	b := newBB(t)
	b.worker("w", func(w *cluster.Worker) {
		w.Handle("err", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			return nil, errors.New(strings.Repeat("é", 100<<10))
		})
		w.Handle("panic", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			panic(strings.Repeat("x", 1<<20))
		})
	}, cluster.WithMaxPayload(1024))
	c := b.client()
	waitWorkers(t, c, 1)
	for _, typ := range []string{"err", "panic"} {
		if err := c.Submit(context.Background(), typ, typ, nil); err != nil {
			t.Fatal(err)
		}
		r := bbWait(t, c, typ, 10*time.Second)
		var je *cluster.JobError
		if !errors.As(r.Err, &je) {
			t.Fatalf("%s: %v", typ, r.Err)
		}
		t.Logf("%s: code %s, text %d bytes, valid utf8 %v", typ, je.Code, len(je.Text), strings.ToValidUTF8(je.Text, "?") == je.Text)
		if len(je.Text) > 16<<10 {
			t.Errorf("%s: text %d bytes", typ, len(je.Text))
		}
	}
}

func TestAPIBatchOrder(t *testing.T) {
	b := newBB(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var order []string
	b.worker("w", func(w *cluster.Worker) {
		w.Handle("t", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
			if j.ID == "block" {
				<-release
				return nil, nil
			}
			mu.Lock()
			order = append(order, j.ID)
			mu.Unlock()
			return nil, nil
		})
	}, cluster.WithSlots(1), cluster.WithStealMode(cluster.StealOff))
	c := b.client()
	waitWorkers(t, c, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Submit(ctx, "block", "t", nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	var want []string
	for i := 0; i < 5; i++ {
		id := "s" + strconv.Itoa(i)
		want = append(want, id)
		if err := c.Submit(ctx, id, "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	jobs := make([]cluster.BatchJob, 600)
	for i := range jobs {
		jobs[i] = cluster.BatchJob{ID: fmt.Sprintf("b%03d", i), Type: "t"}
		want = append(want, jobs[i].ID)
	}
	if err := c.SubmitBatch(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		id := "z" + strconv.Itoa(i)
		want = append(want, id)
		if err := c.Submit(ctx, id, "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	close(release)
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(order) != fmt.Sprint(want) {
		for i := range want {
			if i >= len(order) || order[i] != want[i] {
				t.Fatalf("order differs at %d: got %v..., want %v...", i, order[i:min(i+5, len(order))], want[i:min(i+5, len(want))])
			}
		}
		t.Fatalf("got %d, want %d", len(order), len(want))
	}
}

func TestAPISpawnInBundle(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			var runs runCounts
			h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
				runs.add(j.ID)
				if j.Type == "root" {
					for k := 0; k < 3; k++ {
						if _, err := j.Spawn(ctx, "kid", nil); err != nil {
							return nil, err
						}
					}
				}
				return []byte(j.ID), nil
			}
			o := append([]cluster.Option{cluster.WithSlots(2)}, opts...)
			b.worker("w1", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			b.worker("w2", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			c := b.client()
			waitWorkers(t, c, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			jobs := make([]cluster.BatchJob, 40)
			for i := range jobs {
				jobs[i] = cluster.BatchJob{ID: "r" + strconv.Itoa(i), Type: "root"}
			}
			if err := c.SubmitBundle(ctx, jobs); err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				r := bbWait(t, c, j.ID, 15*time.Second)
				if r.Err != nil || string(r.Value) != j.ID {
					t.Errorf("%s: %+v", j.ID, r)
				}
			}
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				for k := 0; k < 3; k++ {
					id := j.ID + "-" + strconv.Itoa(k)
					v, ok := runs.Load(id)
					if !ok || v.(*atomic.Int64).Load() != 1 {
						t.Errorf("%s ran %v", id, v)
					}
					if name != "inmemory" {
						wctx, wc := context.WithTimeout(ctx, time.Second)
						r, err := c.Wait(wctx, id)
						wc()
						if err != nil || r.Err != nil {
							t.Errorf("%s: %v %v", id, err, r)
						}
					}
				}
			}
		})
	}
}

func TestAPIConcurrentSpawn(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			var runs runCounts
			h := func(ctx context.Context, j *cluster.Job) ([]byte, error) {
				runs.add(j.ID)
				if j.Type == "root" {
					var wg sync.WaitGroup
					errs := make(chan error, 8)
					for g := 0; g < 8; g++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for k := 0; k < 25; k++ {
								if _, err := j.Spawn(ctx, "kid", nil); err != nil {
									errs <- err
									return
								}
							}
						}()
					}
					wg.Wait()
					close(errs)
					for err := range errs {
						return nil, err
					}
				}
				return nil, nil
			}
			o := append([]cluster.Option{cluster.WithSlots(2), cluster.WithLease(time.Second)}, opts...)
			b.worker("w1", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			b.worker("w2", func(w *cluster.Worker) { w.HandleAll(h) }, o...)
			c := b.client(cluster.WithLease(time.Second))
			waitWorkers(t, c, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := c.Submit(ctx, "root", "root", nil); err != nil {
				t.Fatal(err)
			}
			r := bbWait(t, c, "root", 30*time.Second)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 200; k++ {
				id := "root-" + strconv.Itoa(k)
				v, ok := runs.Load(id)
				if !ok || v.(*atomic.Int64).Load() != 1 {
					t.Errorf("%s ran %v", id, v)
				}
			}
		})
	}
}

func TestAPISubmitBatchCancelledMidway(t *testing.T) {
	b := newBB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran sync.Map
	b.worker("w", func(w *cluster.Worker) {
		w.Handle("t", func(_ context.Context, j *cluster.Job) ([]byte, error) {
			ran.Store(j.ID, true)
			cancel()
			return nil, nil
		})
	})
	c := b.client()
	waitWorkers(t, c, 1)
	jobs := make([]cluster.BatchJob, 3000)
	for i := range jobs {
		jobs[i] = cluster.BatchJob{ID: "x" + strconv.Itoa(i), Type: "t"}
	}
	err := c.SubmitBatch(ctx, jobs)
	var be *cluster.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("%v", err)
	}
	queued, failed := 0, 0
	firstErr := -1
	for i, e := range be.Errs {
		if e == nil {
			queued++
			if firstErr >= 0 {
				t.Errorf("job %d queued after job %d failed", i, firstErr)
			}
			continue
		}
		failed++
		if firstErr < 0 {
			firstErr = i
		}
		if !errors.Is(e, context.Canceled) {
			t.Errorf("job %d: %v", i, e)
		}
	}
	t.Logf("queued %d, failed %d", queued, failed)
	wctx, wc := context.WithTimeout(context.Background(), 30*time.Second)
	defer wc()
	if err := c.WaitIdle(wctx); err != nil {
		t.Fatal(err)
	}
	stored := 0
	for i := range jobs {
		_, ok := ran.Load(jobs[i].ID)
		if be.Errs[i] == nil && !ok {
			t.Errorf("%s queued but never ran", jobs[i].ID)
		}
		if ok && be.Errs[i] != nil {
			stored++
			if i >= firstErr+256 {
				t.Errorf("%s of a chunk never sent was stored", jobs[i].ID)
			}
		}
	}
	t.Logf("stored although reported failed: %d", stored)
}

func TestAPINoDeadlineCtx(t *testing.T) {
	b := newBB(t)
	w := b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) })
	c := b.client()
	waitWorkers(t, c, 1)
	bg := context.Background()
	if err := c.Submit(bg, "nd", "t", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SubmitBatch(bg, []cluster.BatchJob{{ID: "nd2", Type: "t"}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(bg, "nd")
		if err == nil {
			_, err = c.Wait(bg, "nd2")
		}
		if err == nil {
			err = c.WaitIdle(bg)
		}
		if err == nil {
			_, err = c.Idle(bg)
		}
		if err == nil {
			_, err = c.Workers(bg)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("hangs with a ctx without deadline")
	}
	_ = w
}

func TestAPISameNameRace(t *testing.T) {
	b := newBB(t)
	c := b.client()
	_ = c
	for round := 0; round < 3; round++ {
		name := "dup" + strconv.Itoa(round)
		var wg sync.WaitGroup
		var ok atomic.Int64
		var mu sync.Mutex
		var started []*cluster.Worker
		for g := 0; g < 5; g++ {
			w, err := cluster.NewWorker(b.conn(), name)
			if err != nil {
				t.Fatal(err)
			}
			w.Handle("t", echo)
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := w.Start(ctx)
				if err == nil {
					ok.Add(1)
					mu.Lock()
					started = append(started, w)
					mu.Unlock()
				} else if !errors.Is(err, cluster.ErrNameInUse) {
					t.Errorf("Start: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 1 {
			t.Errorf("round %d: %d workers started as %s", round, ok.Load(), name)
		}
		for _, w := range started {
			w.Close()
		}
	}
}

func TestAPINoWorkers(t *testing.T) {
	b := newBB(t)
	c := b.client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Submit(ctx, "a", "t", nil); !errors.Is(err, cluster.ErrNoWorkers) {
		t.Errorf("Submit: %v", err)
	}
	jobs := []cluster.BatchJob{{ID: "a", Type: "t"}, {ID: "b", Type: "t"}, {ID: "a", Type: "t"}}
	for name, f := range map[string]func(context.Context, []cluster.BatchJob, ...cluster.SubmitOption) error{"batch": c.SubmitBatch, "bundle": c.SubmitBundle} {
		err := f(ctx, jobs)
		var be *cluster.BatchError
		if !errors.As(err, &be) || !errors.Is(be.Errs[0], cluster.ErrNoWorkers) || !errors.Is(be.Errs[1], cluster.ErrNoWorkers) || !errors.Is(be.Errs[2], cluster.ErrDuplicateJob) {
			t.Errorf("%s: %v", name, err)
		}
	}
	b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) })
	for name, f := range map[string]func(context.Context, []cluster.BatchJob, ...cluster.SubmitOption) error{"batch": c.SubmitBatch, "bundle": c.SubmitBundle} {
		err := f(ctx, jobs, cluster.To("nobody"))
		var be *cluster.BatchError
		if !errors.As(err, &be) || !errors.Is(be.Errs[0], cluster.ErrNoWorkers) {
			t.Errorf("%s To(nobody): %v", name, err)
		}
	}
	if idle, err := c.Idle(ctx); !idle {
		t.Errorf("not idle: %v", err)
	}
	if err := c.Submit(ctx, "a", "t", nil); err != nil {
		t.Errorf("a after the refusals: %v", err)
	}
	bbWait(t, c, "a", 10*time.Second)
}

func TestAPIStartBoundedWithoutServer(t *testing.T) {
	b := newBB(t)
	nc := b.conn()
	b.e.Shutdown()
	time.Sleep(100 * time.Millisecond)
	w, err := cluster.NewWorker(nc, "w", cluster.WithRequestTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = w.Start(ctx)
	t.Logf("Start: %v after %v", err, time.Since(start))
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("Start without server: %v after %v", err, time.Since(start))
	}
	start = time.Now()
	_, err = cluster.NewClient(ctx, nc)
	t.Logf("NewClient: %v after %v", err, time.Since(start))
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("NewClient without server: %v after %v", err, time.Since(start))
	}
	w.Close()
}

func TestAPIClientBoundedWithoutServer(t *testing.T) {
	b := newBB(t)
	b.worker("w", func(w *cluster.Worker) { w.Handle("t", echo) }, cluster.WithRequestTimeout(300*time.Millisecond))
	c := b.client(cluster.WithRequestTimeout(300 * time.Millisecond))
	waitWorkers(t, c, 1)
	if err := c.Submit(context.Background(), "warm", "t", nil); err != nil {
		t.Fatal(err)
	}
	bbWait(t, c, "warm", 10*time.Second)
	b.e.Shutdown()
	time.Sleep(100 * time.Millisecond)
	calls := map[string]func(ctx context.Context) error{
		"Submit": func(ctx context.Context) error { return c.Submit(ctx, "s", "t", nil) },
		"SubmitBatch": func(ctx context.Context) error {
			return c.SubmitBatch(ctx, []cluster.BatchJob{{ID: "s", Type: "t"}})
		},
		"SubmitBundle": func(ctx context.Context) error {
			return c.SubmitBundle(ctx, []cluster.BatchJob{{ID: "s", Type: "t"}})
		},
		"Wait":     func(ctx context.Context) error { _, err := c.Wait(ctx, "s"); return err },
		"WaitDone": func(ctx context.Context) error { _, err := c.Wait(ctx, "warm"); return err },
		"Idle":     func(ctx context.Context) error { _, err := c.Idle(ctx); return err },
		"WaitIdle": func(ctx context.Context) error { return c.WaitIdle(ctx) },
		"Workers":  func(ctx context.Context) error { _, err := c.Workers(ctx); return err },
		"Steal":    func(ctx context.Context) error { _, err := c.Steal(ctx, "w", "x", 1); return err },
	}
	for name, f := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
		start := time.Now()
		err := f(ctx)
		d := time.Since(start)
		cancel()
		t.Logf("%s: %v after %v", name, err, d)
		if err == nil {
			t.Errorf("%s returned nil with no server", name)
		}
		if d > 2300*time.Millisecond {
			t.Errorf("%s returned %v after its ctx ended", name, d-800*time.Millisecond)
		}
	}
}

func TestAPICloseDuringStart(t *testing.T) {
	b := newBB(t)
	c := b.client()
	nc := b.conn()
	for i := 0; i < 30; i++ {
		w, err := cluster.NewWorker(nc, "cds", cluster.WithLease(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		w.Handle("t", echo)
		started := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			started <- w.Start(ctx)
		}()
		time.Sleep(time.Duration(i) * time.Millisecond / 2)
		if err := w.Close(); err != nil {
			t.Errorf("round %d: Close: %v", i, err)
		}
		err = <-started
		if err != nil && !errors.Is(err, cluster.ErrClosed) {
			t.Errorf("round %d: Start: %v", i, err)
		}
		if err == nil {
			// Start won: Close may have run during it; wait for the end.
			w.Close()
		}
		select {
		case <-w.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: Done never closed (Start %v)", i, err)
		}
		// The name is free at once, and nothing of the closed worker answers.
		ws, _ := c.Workers(context.Background())
		for _, s := range ws {
			if s.Name == "cds" {
				t.Errorf("round %d: closed worker still answers (Start %v)", i, err)
			}
		}
		w2, err2 := cluster.NewWorker(nc, "cds")
		if err2 != nil {
			t.Fatal(err2)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err2 = w2.Start(ctx)
		cancel()
		if err2 != nil {
			t.Errorf("round %d: name not free after Close (Start %v): %v", i, err, err2)
		}
		w2.Close()
	}
}

func TestAPISpawnAfterReturnChildrenRunning(t *testing.T) {
	modes := spawnModes()
	for name, opts := range modes {
		t.Run(name, func(t *testing.T) {
			b := newBB(t)
			kept := make(chan *cluster.Job, 1)
			release := make(chan struct{})
			slowRunning := make(chan struct{})
			var lateRuns atomic.Int64
			b.worker("w1", func(w *cluster.Worker) {
				w.Handle("root", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					if _, err := j.Spawn(ctx, "slow", nil); err != nil {
						return nil, err
					}
					kept <- j
					return nil, nil
				})
				w.Handle("slow", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					close(slowRunning)
					<-release
					return nil, nil
				})
				w.Handle("late", func(ctx context.Context, j *cluster.Job) ([]byte, error) {
					lateRuns.Add(1)
					return nil, nil
				})
			}, append([]cluster.Option{cluster.WithSlots(2)}, opts...)...)
			c := b.client()
			waitWorkers(t, c, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := c.Submit(ctx, "root", "root", nil); err != nil {
				t.Fatal(err)
			}
			j := <-kept
			<-slowRunning
			if name != "inmemory" {
				bbWait(t, c, "root", 10*time.Second)
			} else {
				time.Sleep(100 * time.Millisecond)
			}
			id, err := j.Spawn(ctx, "late", nil)
			t.Logf("Spawn after the handler returned, a child running: %q %v", id, err)
			close(release)
			if err := c.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			if err == nil && name != "inmemory" {
				wctx, wc := context.WithTimeout(ctx, 2*time.Second)
				_, werr := c.Wait(wctx, id)
				wc()
				if werr != nil {
					t.Errorf("Spawn returned nil, but %s has no completion: %v (ran %d)", id, werr, lateRuns.Load())
				}
			}
			if err == nil && lateRuns.Load() != 1 {
				t.Errorf("Spawn returned nil, late ran %d times", lateRuns.Load())
			}
			if err != nil && lateRuns.Load() != 0 {
				t.Errorf("Spawn returned %v, late ran %d times", err, lateRuns.Load())
			}
		})
	}
}

// spawnModes are the three ways a worker keeps spawned jobs: local spawn
// (the default), a record written at once, and in memory only.
func spawnModes() map[string][]cluster.Option {
	return map[string][]cluster.Option{
		"local":    nil,
		"written":  {cluster.WithLocalSpawn(false)},
		"inmemory": {cluster.WithSpawnRecords(false)},
	}
}

// runCounts counts the runs of each job id: a sync.Map of *atomic.Int64.
type runCounts struct{ sync.Map }

func (r *runCounts) add(id string) {
	v, _ := r.LoadOrStore(id, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}
