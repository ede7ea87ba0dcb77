package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// stealScene is a victim behind a proxy, holding a job that blocks its one
// slot and n queued jobs, with its outgoing bytes held by the proxy from
// the moment a thief may ask: the victim receives the steal request, pops
// the jobs and sends their move to the servers, and that write (and the
// reply after it) waits in the proxy until the test lets it through.
type stealScene struct {
	h       *harness
	pv      *proxy
	victim  *Worker
	log     *runLog
	release chan struct{}
	ids     []string
}

func newStealScene(t *testing.T, n int) *stealScene {
	s := &stealScene{log: newRunLog(), release: make(chan struct{})}
	s.h = newHarness(t, WithLease(3*time.Second), WithRequestTimeout(4*time.Second))
	s.pv = newProxy(t, hostPort(s.h.e.URL()))
	started := make(chan struct{}, 1)
	s.victim = s.h.workerOn(tcpConn(t, s.pv.url()), "victim", func(w *Worker) {
		w.Handle("job", s.handler("victim", started))
	}, WithSlots(1))
	s.h.ready("victim")
	if err := s.h.client.Submit(context.Background(), "block", "job", nil, To("victim")); err != nil {
		t.Fatal(err)
	}
	<-started
	s.ids = submitTo(t, s.h, "s", n, "victim")
	waitFor(t, 10*time.Second, "the victim's heartbeat to show its queue", func() bool {
		return s.leaseQueue() == n
	})
	s.pv.blackhole(true, false)
	return s
}

// handler logs each run; "block" holds the slot until release.
func (s *stealScene) handler(name string, started chan<- struct{}) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		s.log.add(j.ID, name)
		if j.ID == "block" && started != nil {
			started <- struct{}{}
			select {
			case <-s.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return []byte(name), nil
	}
}

func (s *stealScene) leaseQueue() int {
	e, err := s.h.client.st.workers.Get(context.Background(), "victim")
	if err != nil {
		return -1
	}
	var b beat
	json.Unmarshal(e.Value(), &b)
	return b.Queue
}

// moving waits until the victim has popped jobs for a steal (its move is
// held in the proxy) and returns how many.
func (s *stealScene) moving(t *testing.T) int {
	k := 0
	waitFor(t, 10*time.Second, "the victim to take jobs out for a thief", func() bool {
		k = movingOf(s.victim)
		return k > 0
	})
	return k
}

// finish releases the victim's slot and checks that every job completed
// exactly once, ran once, and that nothing is left.
func (s *stealScene) finish(t *testing.T) {
	close(s.release)
	for _, id := range append([]string{"block"}, s.ids...) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := s.h.client.Wait(ctx, id)
		cancel()
		if err != nil {
			t.Fatalf("%s never completed: %v", id, err)
		}
		if runs := s.log.of(id); len(runs) != 1 {
			t.Errorf("%s ran on %v, want once; recorded by %s", id, runs, r.Worker)
		}
	}
	checkQuiet(t, s.h, len(s.ids)+1)
}

// seenQueue is the victim's queue as the thief last saw it; a thief whose
// request went unanswered sets it to 0.
func seenQueue(w *Worker, name string) int {
	w.members.mu.Lock()
	defer w.members.mu.Unlock()
	return w.members.m[name].Queue
}

// TestLateStealReply: the victim's reply (and the move of the records
// before it) reaches the servers only after the thief gave up waiting.
// The moved records are under the thief's name, and its watch of its own
// records runs them: every job completes once, none runs twice, and the
// jobs the thief holds without having read a reply are exactly those of
// the late steal.
func TestLateStealReply(t *testing.T) {
	s := newStealScene(t, 8)
	thief := s.h.worker("thief", func(w *Worker) { w.Handle("job", s.handler("thief", nil)) }, WithSlots(1), moveOnly)
	k := s.moving(t)
	waitFor(t, 10*time.Second, "the thief to give up on the victim", func() bool {
		return seenQueue(thief, "victim") == 0
	})
	s.pv.heal() // the move lands now, and the reply after it, too late
	s.finish(t)
	given, stolen := s.victim.Stats().Given, thief.Stats().Stolen
	t.Logf("late steal of %d jobs; victim gave %d in all, thief read replies for %d", k, given, stolen)
	if given-stolen != int64(k) {
		t.Fatalf("victim gave %d, thief took %d by reply: want the %d of the late steal taken without one", given, stolen, k)
	}
}

// TestResetMidSteal: a connection reset while a steal is in flight loses
// and duplicates nothing.
//
// victim: the victim's connection is reset while its move of the records
// is held in the proxy, so the move never reaches the servers; its wait
// for the answer fails, it puts the jobs back, and they are stolen again
// or run at home.
//
// thief: the thief's connection is reset while it waits for the reply;
// the move then lands and the reply goes to a connection that is gone.
// The thief reconnects, and its watch of its own records, resumed on the
// new connection, runs the moved jobs. It reconnects only once it has
// given up waiting for the reply: had it reconnected sooner (50 ms), a
// reply sent after that would reach its request, still open, through the
// inbox the reconnect subscribes again (under load, 3 runs in 48).
func TestResetMidSteal(t *testing.T) {
	t.Run("victim", func(t *testing.T) {
		s := newStealScene(t, 8)
		s.h.worker("thief", func(w *Worker) { w.Handle("job", s.handler("thief", nil)) }, WithSlots(1), moveOnly)
		k := s.moving(t)
		s.pv.reset()
		s.pv.heal()
		waitFor(t, 10*time.Second, "the victim to put the jobs back", func() bool {
			return movingOf(s.victim) == 0
		})
		t.Logf("reset with %d jobs in the victim's move; victim reconnected %d times",
			k, s.victim.nc.Stats().Reconnects)
		s.finish(t)
	})
	t.Run("thief", func(t *testing.T) {
		s := newStealScene(t, 8)
		pt := newProxy(t, hostPort(s.h.e.URL()))
		thief := s.h.workerOn(tcpConn(t, pt.url()), "thief", func(w *Worker) {
			w.Handle("job", s.handler("thief", nil))
		}, WithSlots(1), moveOnly)
		k := s.moving(t)
		pt.blackhole(true, true) // no reconnect of the thief until it has given up
		pt.reset()
		s.pv.heal() // the move lands, the reply finds the thief's old connection gone
		waitFor(t, 10*time.Second, "the thief to give up on the victim", func() bool {
			return seenQueue(thief, "victim") == 0
		})
		pt.heal()
		s.finish(t)
		given, stolen := s.victim.Stats().Given, thief.Stats().Stolen
		t.Logf("reset of the thief during a steal of %d jobs; victim gave %d, thief read replies for %d; thief reconnected %d times",
			k, given, stolen, thief.nc.Stats().Reconnects)
		if given-stolen != int64(k) || thief.nc.Stats().Reconnects == 0 {
			t.Fatalf("victim gave %d, thief took %d by reply: want the %d of the interrupted steal taken by its watch after a reconnect",
				given, stolen, k)
		}
	})
}

// moveOnly makes a thief that asks for no loan: its victims move records
// to it, as for Client.Steal.
func moveOnly(c *config) { c.moveOnly = true }

// TestLostLoanReply: the victim's reply to a steal, a loan, never reaches
// the thief (the victim's connection drops what it sends). The victim
// holds the loan until its audit finds that the thief does not hold it,
// then takes the jobs back: every job completes once and runs once.
func TestLostLoanReply(t *testing.T) {
	s := newStealScene(t, 8)
	thief := s.h.worker("thief", func(w *Worker) { w.Handle("job", s.handler("thief", nil)) }, WithSlots(1))
	waitFor(t, 10*time.Second, "a loan the thief never got", func() bool {
		s.victim.mu.Lock()
		defer s.victim.mu.Unlock()
		return len(s.victim.loans) > 0
	})
	waitFor(t, 10*time.Second, "the thief to give up on the victim", func() bool {
		return seenQueue(thief, "victim") == 0
	})
	s.pv.heal()
	waitFor(t, 20*time.Second, "the victim to take the loan back", func() bool {
		return s.victim.Stats().TakenBack > 0
	})
	s.finish(t)
	if n := thief.Stats().Stolen; n != 0 {
		t.Logf("the thief borrowed %d jobs after the heal", n)
	}
}
