package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The process faults of loans (loan.go): a thief killed holding borrowed
// work, a lender killed or paused while its work is out on loan. Each
// test starts its worker processes one at a time, so that who borrows
// what from whom is set by the test, not by a race: a worker started
// later is idle and borrows from the one that has jobs queued. Names sort
// as the roles need: w1, the survivor, is the one that takes a dead
// worker's records over (the live worker whose name sorts first).

// loanProcs is an embedded server and worker processes (lease 1 s, one
// slot each), started by start.
type loanProcs struct {
	h    *harness
	st   *starts
	kids map[string]*child
	env  []string
	rel  *releaser
}

func newLoanProcs(t *testing.T, mem bool) *loanProcs {
	if testing.Short() {
		t.Skip("process tests start worker processes and wait out leases; skipped with -short")
	}
	h := newHarness(t, WithLease(time.Second))
	p := &loanProcs{h: h, st: watchStarts(t, h.conn()), kids: map[string]*child{}}
	if mem {
		p.env = []string{memEnv + "=1"}
	}
	p.rel = newReleaser(t, h)
	return p
}

// start runs worker process name and waits until it holds its lease and
// answers state requests.
func (p *loanProcs) start(t *testing.T, name string) {
	t.Helper()
	p.kids[name] = startChild(t, p.h.e.URL(), name, p.env...)
	waitFor(t, 30*time.Second, name+" to register", func() bool { return p.h.leaseHeld(name) })
	p.h.ready(name)
}

func (p *loanProcs) submit(t *testing.T, id, typ, payload, to string) {
	t.Helper()
	if err := p.h.client.Submit(context.Background(), id, typ, []byte(payload), To(to)); err != nil {
		t.Fatalf("submit %s: %v", id, err)
	}
}

// hold submits a job that holds its first run (see holdRun) to worker
// and waits until that worker starts it.
func (p *loanProcs) hold(t *testing.T, id, worker string) {
	t.Helper()
	p.submit(t, id, "sleep", "hold", worker)
	if got := p.st.next(t, worker); got != id {
		t.Fatalf("%s started %s, want %s", worker, got, id)
	}
}

func (p *loanProcs) kill(t *testing.T, name string) {
	t.Helper()
	if err := p.kids[name].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
}

// waitStats waits (at most 20 s) until worker process name reports
// counters for which ok holds, and returns them.
func (p *loanProcs) waitStats(t *testing.T, name, what string, ok func(WorkerStats) bool) WorkerStats {
	t.Helper()
	var ws WorkerStats
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var s WorkerStats
		if s, err = childStats(p.h.client.nc, name); err == nil {
			if ws = s; ok(s) {
				return ws
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after 20s waiting for %s: %s last said %+v (%v)", what, name, ws, err)
		}
	}
}

// takenOver waits until a survivor has taken the records of dead over:
// none is left under its name.
func (p *loanProcs) takenOver(t *testing.T, dead string) {
	t.Helper()
	waitFor(t, 20*time.Second, "the records of "+dead+" to be taken over", func() bool {
		keys, err := p.h.client.st.keys(context.Background(), "q."+dead+".>")
		return err == nil && len(keys) == 0
	})
}

// ranAll checks that every id started at least once.
func (p *loanProcs) ranAll(t *testing.T, ids []string) {
	t.Helper()
	for _, id := range ids {
		if len(p.st.of(id)) == 0 {
			t.Errorf("%s never ran", id)
		}
	}
}

// waitStopped waits (at most 10 s) until every thread of process pid is
// stopped, where /proc tells. kill(2) returns before a SIGSTOP takes
// effect: the stop begins when one thread of the process handles the
// signal, and on a loaded machine the others run on meanwhile, long
// enough to finish a job released right after the kill (seen: a paused
// thief's completion recorded 2 s into its test, 1 run in 10 with two
// test processes on two cores).
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	if _, err := os.Stat(dir); err != nil {
		return // no /proc: the signal's delay is left to chance
	}
	waitFor(t, 10*time.Second, fmt.Sprintf("process %d to stop", pid), func() bool {
		tasks, err := os.ReadDir(dir)
		if err != nil || len(tasks) == 0 {
			return false
		}
		for _, task := range tasks {
			b, err := os.ReadFile(dir + "/" + task.Name() + "/stat")
			// The state follows the command name, which is in parentheses.
			i := bytes.LastIndexByte(b, ')')
			if err != nil || i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
				return false
			}
		}
		return true
	})
}

// releaser ends the held runs (see holdRun) of the jobs it was given: it
// publishes "test.release.<id>" for each every 50 ms until the test ends.
type releaser struct {
	mu  sync.Mutex
	ids []string
}

func newReleaser(t *testing.T, h *harness) *releaser {
	r := &releaser{}
	nc := h.conn()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			r.mu.Lock()
			ids := slices.Clone(r.ids)
			r.mu.Unlock()
			for _, id := range ids {
				nc.Publish("test.release."+id, nil)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return r
}

func (r *releaser) add(ids ...string) {
	r.mu.Lock()
	r.ids = append(r.ids, ids...)
	r.mu.Unlock()
}

// kidsOf lists the ids of the n jobs a "fan" job spawns.
func kidsOf(root string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = root + "-" + strconv.Itoa(i)
	}
	return out
}

// TestLoanThiefKilled: a thief process killed with SIGKILL while it runs
// a borrowed job. Its loan is in the lender's memory alone (the record
// of a borrowed job stays under the lender's name, an in-memory job has
// none), so no takeover finds it: the lender's audit, finding no thief to
// answer and its lease gone, takes the loan back and runs it again.
//
// records: the borrowed job has a record; it completes once, recorded by
// the lender, after runs on the thief and then the lender.
//
// mem: with WithSpawnRecords(false) the lender lends children of a root;
// the root completes once, after every child ran, and no child has a
// completion of its own.
func TestLoanThiefKilled(t *testing.T) {
	t.Run("records", func(t *testing.T) {
		p := newLoanProcs(t, false)
		p.start(t, "w2") // the lender
		p.hold(t, "lblock", "w2")
		p.submit(t, "x", "sleep", "hold", "w2") // queued behind lblock
		p.start(t, "w3")                        // the thief
		if id := p.st.next(t, "w3"); id != "x" {
			t.Fatalf("the thief started %s, want x", id)
		}
		if n := p.h.count("q.w3.>"); n != 0 {
			t.Fatalf("%d records under the thief's name: a borrowed job's record stays the lender's", n)
		}
		p.kill(t, "w3")
		p.rel.add("lblock", "x")
		r := p.h.wait("x")
		if r.Err != nil || r.Worker != "w2" {
			t.Fatalf("x: recorded by %s, err %v; want the lender's run", r.Worker, r.Err)
		}
		if runs := p.st.of("x"); !slices.Equal(runs, []string{"w3", "w2"}) {
			t.Fatalf("x started on %v, want the thief, then the lender", runs)
		}
		ws := p.waitStats(t, "w2", "the lender's stats", func(WorkerStats) bool { return true })
		if ws.TakenBack < 1 {
			t.Fatalf("lender: %+v, want x taken back", ws)
		}
		checkQuiet(t, p.h, 2)
	})
	t.Run("mem", func(t *testing.T) {
		p := newLoanProcs(t, true)
		p.start(t, "w2")
		kids := kidsOf("r", 4)
		p.submit(t, "r", "fan", "4", "w2") // r-3 holds w2's slot, the rest wait
		p.st.next(t, "w2")
		p.start(t, "w3")
		lent := p.st.next(t, "w3")
		p.kill(t, "w3")
		p.rel.add(kids...)
		r := p.h.wait("r")
		if r.Err != nil || r.Worker != "w2" {
			t.Fatalf("r: recorded by %s, err %v", r.Worker, r.Err)
		}
		p.ranAll(t, kids)
		if runs := p.st.of(lent); !slices.Equal(runs, []string{"w3", "w2"}) {
			t.Fatalf("%s, borrowed by the thief that was killed, started on %v: want w3, then w2", lent, runs)
		}
		ws := p.waitStats(t, "w2", "the lender's stats", func(WorkerStats) bool { return true })
		if ws.TakenBack < 1 {
			t.Fatalf("lender: %+v, want the loan taken back", ws)
		}
		checkQuiet(t, p.h, 1) // the root's completion alone
	})
}

// TestLoanLenderKilled: a lender process killed with SIGKILL while its
// work is out on loan. Its records are taken over by the survivor w1,
// which runs them again; what the thief w3 finishes afterwards goes
// nowhere: its completion of a borrowed job is refused by the revision
// its record had under the dead lender's name, and the return of a loan
// of in-memory jobs names a lender that is gone. The survivor holds a
// job of its own until the thief's completion has been refused, so that
// the create-only completion cannot be what refuses it.
//
// records: a job with a record is borrowed.
//
// mem: children of a root (WithSpawnRecords(false)) are borrowed; the
// root is run again from the start, its children at least once each.
//
// memroot: the root itself is borrowed (WithSpawnRecords(false)) and runs
// with its subtree on the thief; the thief's completion of the root, once
// the subtree ran, is refused.
func TestLoanLenderKilled(t *testing.T) {
	t.Run("records", func(t *testing.T) {
		p := newLoanProcs(t, false)
		p.start(t, "w1")
		p.hold(t, "sblock", "w1") // the survivor runs nothing else yet
		p.start(t, "w2")          // the lender
		p.hold(t, "lblock", "w2")
		p.submit(t, "x", "sleep", "hold", "w2")
		p.start(t, "w3") // the thief
		if id := p.st.next(t, "w3"); id != "x" {
			t.Fatalf("the thief started %s, want x", id)
		}
		p.kill(t, "w2")
		p.takenOver(t, "w2")
		p.rel.add("x") // the thief's run of x ends now, after the takeover
		p.waitStats(t, "w3", "the thief's completion of x to be refused", func(s WorkerStats) bool { return s.Refused >= 1 })
		p.rel.add("sblock", "lblock")
		r := p.h.wait("x")
		if r.Err != nil || r.Attempt < 1 {
			t.Fatalf("x: recorded by %s at attempt %d, err %v; want a run after the takeover", r.Worker, r.Attempt, r.Err)
		}
		checkQuiet(t, p.h, 3)
	})
	t.Run("mem", func(t *testing.T) {
		p := newLoanProcs(t, true)
		p.start(t, "w1")
		p.hold(t, "sblock", "w1")
		p.start(t, "w2")
		kids := kidsOf("r", 4)
		p.submit(t, "r", "fan", "4", "w2")
		p.st.next(t, "w2")
		p.start(t, "w3")
		p.st.next(t, "w3")
		p.kill(t, "w2")
		p.takenOver(t, "w2")
		p.rel.add(kids...) // the thief's loan finishes; its return goes nowhere
		p.waitStats(t, "w3", "the thief to finish its loan", func(s WorkerStats) bool { return s.MemRuns >= 2 })
		p.rel.add("sblock")
		r := p.h.wait("r")
		if r.Err != nil || r.Attempt < 1 {
			t.Fatalf("r: recorded by %s at attempt %d, err %v; want a run after the takeover", r.Worker, r.Attempt, r.Err)
		}
		p.ranAll(t, kids)
		checkQuiet(t, p.h, 2) // sblock and r; no child has a completion
	})
	t.Run("memroot", func(t *testing.T) {
		p := newLoanProcs(t, true)
		p.start(t, "w1")
		p.hold(t, "sblock", "w1")
		p.start(t, "w2")
		p.hold(t, "lblock", "w2")
		kids := kidsOf("r", 4)
		p.submit(t, "r", "fan", "4", "w2") // queued behind lblock: the thief borrows it
		p.start(t, "w3")
		if id := p.st.next(t, "w3"); id != "r-3" {
			t.Fatalf("the thief started %s, want r-3, a child of the borrowed root", id)
		}
		p.kill(t, "w2")
		p.takenOver(t, "w2")
		p.rel.add(kids...) // the subtree finishes on the thief, which then completes r
		p.waitStats(t, "w3", "the thief's completion of r to be refused", func(s WorkerStats) bool { return s.Refused >= 1 })
		p.rel.add("sblock", "lblock")
		r := p.h.wait("r")
		if r.Err != nil || r.Attempt < 1 {
			t.Fatalf("r: recorded by %s at attempt %d, err %v; want a run after the takeover", r.Worker, r.Attempt, r.Err)
		}
		p.ranAll(t, kids)
		checkQuiet(t, p.h, 3)
	})
}

// TestLoanPausedLender: a lender stopped (SIGSTOP) past its lease while
// its root waits for a subtree that is partly out on loan. The survivor
// w1 takes the root's record over and runs it again; the lender, resumed
// (SIGCONT), fences itself, its subtree finishes (the thief returns its
// loan) and its completion of the root is refused. One completion is
// recorded, of a run after the takeover. The survivor holds a job of its
// own until then, so that the lender's completion comes first and only
// the record's revision can refuse it.
func TestLoanPausedLender(t *testing.T) {
	p := newLoanProcs(t, true)
	p.start(t, "w1")
	p.hold(t, "sblock", "w1")
	p.start(t, "w2") // the lender
	kids := kidsOf("r", 4)
	p.submit(t, "r", "fan", "4", "w2") // r returns at once; its subtree holds
	p.st.next(t, "w2")
	p.start(t, "w3") // the thief
	p.st.next(t, "w3")
	pid := p.kids["w2"].cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	waitStopped(t, pid)
	p.takenOver(t, "w2")
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	p.rel.add(kids...)
	ws := p.waitStats(t, "w2", "the resumed lender's completion of r to be refused", func(s WorkerStats) bool {
		return s.Refused+s.Duplicates >= 1
	})
	t.Logf("resumed lender: %+v", ws)
	p.rel.add("sblock")
	r := p.h.wait("r")
	if r.Err != nil || r.Attempt < 1 {
		t.Fatalf("r: recorded by %s at attempt %d, err %v; want a run after the takeover", r.Worker, r.Attempt, r.Err)
	}
	p.waitStats(t, "w2", "the resumed lender to fence itself", func(s WorkerStats) bool { return s.Fenced >= 1 })
	p.ranAll(t, kids)
	checkQuiet(t, p.h, 2)
}

// TestLoanPausedThief: a thief stopped (SIGSTOP) past its lease while it
// runs a borrowed job. The lender's audit asks it which loans it holds,
// gets no answer, finds its lease gone and takes the loan back: the jobs
// run again at the lender, which records the completion while the thief
// is still stopped. Resumed (SIGCONT), the thief fences itself and
// finishes what it held, too late.
//
// records: the thief's completion of the borrowed job is refused (the
// lender's completion deleted the record it was conditional on).
//
// mem: the thief's return of its loan names a loan the lender took back
// and is dropped: the lender does not finish the root a second time (no
// completion of its refused, none found a duplicate), and the thief,
// done, leaves the cluster idle.
func TestLoanPausedThief(t *testing.T) {
	pause := func(t *testing.T, p *loanProcs, name string) func() {
		pid := p.kids[name].cmd.Process.Pid
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
		waitStopped(t, pid)
		return func() {
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("records", func(t *testing.T) {
		p := newLoanProcs(t, false)
		p.start(t, "w2") // the lender
		p.hold(t, "lblock", "w2")
		p.submit(t, "x", "sleep", "hold", "w2")
		p.start(t, "w3") // the thief
		if id := p.st.next(t, "w3"); id != "x" {
			t.Fatalf("the thief started %s, want x", id)
		}
		resume := pause(t, p, "w3")
		p.rel.add("lblock", "x") // the lender's run of x; the thief's once resumed
		r := p.h.wait("x")
		if r.Err != nil || r.Worker != "w2" {
			t.Fatalf("x: recorded by %s, err %v; want the lender's run, the thief stopped", r.Worker, r.Err)
		}
		resume()
		p.waitStats(t, "w3", "the resumed thief's completion of x to be refused", func(s WorkerStats) bool {
			return s.Refused+s.Duplicates >= 1 && s.Fenced >= 1
		})
		if ws := p.waitStats(t, "w2", "the lender's stats", func(WorkerStats) bool { return true }); ws.TakenBack < 1 {
			t.Fatalf("lender: %+v, want x taken back", ws)
		}
		if again := p.h.wait("x"); again.Worker != "w2" {
			t.Fatalf("x's completion changed after the thief resumed: now %s's", again.Worker)
		}
		checkQuiet(t, p.h, 2)
	})
	t.Run("mem", func(t *testing.T) {
		p := newLoanProcs(t, true)
		p.start(t, "w2")
		kids := kidsOf("r", 4)
		p.submit(t, "r", "fan", "4", "w2")
		p.st.next(t, "w2")
		p.start(t, "w3")
		lent := p.st.next(t, "w3")
		resume := pause(t, p, "w3")
		p.rel.add(kids...)
		r := p.h.wait("r")
		if r.Err != nil || r.Worker != "w2" {
			t.Fatalf("r: recorded by %s, err %v", r.Worker, r.Err)
		}
		p.ranAll(t, kids)
		if runs := p.st.of(lent); len(runs) < 2 || runs[0] != "w3" || runs[1] != "w2" {
			t.Fatalf("%s, borrowed by the thief that was stopped, started on %v: want w3, then w2", lent, runs)
		}
		resume()
		// It runs the two jobs of its loan, or lends the one it had not
		// started on to the idle lender.
		p.waitStats(t, "w3", "the resumed thief to finish its loan", func(s WorkerStats) bool {
			return s.Fenced >= 1 && s.MemRuns+s.Given >= 2
		})
		checkQuiet(t, p.h, 1)
		ws := p.waitStats(t, "w2", "the lender's stats", func(WorkerStats) bool { return true })
		if ws.TakenBack < 1 || ws.Refused != 0 || ws.Duplicates != 0 || ws.Completed != 1 {
			t.Fatalf("lender: %+v, want the loan taken back and the root completed once, never again", ws)
		}
	})
}
