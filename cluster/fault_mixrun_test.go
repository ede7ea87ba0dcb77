package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal/cluster/natsserver"
)

// mix is TestFaultMix's cluster: a server on file storage, worker
// processes each behind a proxy, and a client behind a proxy of its own
// (never faulted; it only follows the server across restarts).
type mix struct {
	t      *testing.T
	seed   uint64
	rng    *rand.Rand // the fault sequence, drawn on the test goroutine only
	dir    string
	cp     *proxy
	client *Client
	named  int // workers started so far, for fresh names
	// mem runs the workers with WithSpawnRecords(false) (TestFaultMixMem):
	// spawned jobs live in memory and have no completion of their own, the
	// workers report each run of a tree job on "test.ran", and the server
	// is not restarted (a report in flight would be lost with it).
	mem bool

	mu         sync.Mutex // guards what follows: read by the workload goroutines
	e          *natsserver.Server
	kids       []*mixKid
	roots      []string        // submissions confirmed stored
	bundled    map[string]bool // roots submitted in a bundle
	violations []string
	idleTrue   int
	faults     map[string]int
	writes     map[string]map[uint64]bool // d.<id> revisions seen by watchLedger
	restarts   int                        // server restarts so far (test goroutine only)
	accepted   int                        // resubmissions accepted after a restart
	runs       map[string]int             // mem: runs reported per id
}

type mixKid struct {
	c *child
	p *proxy
}

// newMix starts a mix's server and workers, which keep spawned jobs in
// memory when mem is set.
func newMix(t *testing.T, seed uint64, mem bool) *mix {
	m := &mix{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 1)), dir: t.TempDir(), faults: map[string]int{},
		writes: map[string]map[uint64]bool{}, mem: mem, runs: map[string]int{}}
	e, err := natsserver.Start(natsserver.StoreDir(m.dir))
	if err != nil {
		t.Fatal(err)
	}
	m.e = e
	t.Cleanup(func() { m.server().Shutdown() })
	if mem {
		m.watchRuns()
	}
	m.cp = newProxy(t, hostPort(e.URL()))
	// The client creates the buckets first: the jobs bucket on file storage.
	c, err := NewClient(context.Background(), tcpConn(t, m.cp.url()), WithLease(time.Second), WithStorage(FileStorage))
	if err != nil {
		t.Fatal(err)
	}
	m.client = c
	m.watchLedger()
	for range 3 {
		m.startKid()
	}
	return m
}

func (m *mix) server() *natsserver.Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.e
}

func (m *mix) fail(format string, args ...any) {
	m.mu.Lock()
	m.violations = append(m.violations, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

// startKid starts a worker process with a fresh name behind a new proxy
// and waits until it answers state requests.
func (m *mix) startKid() {
	name := "k" + strconv.Itoa(m.named)
	m.named++
	k := &mixKid{p: newProxy(m.t, hostPort(m.server().URL()))}
	var env []string
	if m.mem {
		env = append(env, memEnv+"=1")
	}
	k.c = startChild(m.t, k.p.url(), name, env...)
	m.mu.Lock()
	m.kids = append(m.kids, k)
	m.mu.Unlock()
	waitFor(m.t, 20*time.Second, name+" answering", func() bool {
		got, _ := m.client.wave(context.Background(), []string{name})
		_, ok := got[name]
		return ok
	})
}

func (m *mix) names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.kids))
	for i, k := range m.kids {
		out[i] = k.c.name
	}
	return out
}

// round injects one fault, drawn from the seed, and heals it.
func (m *mix) round(r int) {
	m.mu.Lock()
	k := m.kids[m.rng.IntN(len(m.kids))]
	m.mu.Unlock()
	var what string
	var kind int
	if m.mem {
		// No server restart (see mix.mem): the other five kinds, as likely.
		if kind = m.rng.IntN(5); kind == 4 {
			kind = 5
		}
	} else {
		kind = m.rng.IntN(6)
	}
	switch kind {
	case 0:
		k.c.cmd.Process.Kill() // SIGKILL, by the child's own pid
		m.mu.Lock()
		for i := range m.kids {
			if m.kids[i] == k {
				m.kids = append(m.kids[:i], m.kids[i+1:]...)
				break
			}
		}
		m.mu.Unlock()
		m.startKid()
		what = "kill -9 " + k.c.name
	case 1:
		pid := k.c.cmd.Process.Pid
		syscall.Kill(pid, syscall.SIGSTOP)
		d := sleepRand(m.rng, 200, 2500)
		syscall.Kill(pid, syscall.SIGCONT)
		what = fmt.Sprintf("pause %s for %v", k.c.name, d)
	case 2:
		k.p.blackhole(true, true)
		d := sleepRand(m.rng, 200, 2500)
		k.p.heal()
		what = fmt.Sprintf("blackhole %s for %v", k.c.name, d)
	case 3:
		k.p.reset()
		what = "reset " + k.c.name
	case 4:
		m.restartServer()
		what = "restart the server"
	default:
		what = m.resubmit(5)
	}
	m.mu.Lock()
	m.faults[strings.Fields(what)[0]]++
	m.mu.Unlock()
	m.t.Logf("round %d: %s", r, what)
	sleepRand(m.rng, 200, 800)
}

// restartServer stops the server and starts it again on the same store
// directory (a new port: every proxy dials the new one). Clients are cut
// off first, so that little arrives while the server stops: nats-server
// can leave the goroutines of an atomic batch that arrives during its
// shutdown running. The 50 ms for bytes already passed is no guarantee on
// a loaded machine, so TestMain's leak check ignores those goroutines
// (natsBatchStoreLeaks).
func (m *mix) restartServer() {
	m.mu.Lock()
	ps := []*proxy{m.cp}
	for _, k := range m.kids {
		ps = append(ps, k.p)
	}
	m.mu.Unlock()
	for _, p := range ps {
		p.blackhole(true, false)
	}
	time.Sleep(50 * time.Millisecond) // bytes already passed reach the server
	m.server().Shutdown()
	e, err := natsserver.Start(natsserver.StoreDir(m.dir))
	if err != nil {
		m.t.Fatalf("seed %d: restart: %v", m.seed, err)
	}
	m.mu.Lock()
	m.e = e
	m.restarts++
	m.mu.Unlock()
	for _, p := range ps {
		p.setTarget(hostPort(e.URL()))
		p.reset() // what the clients sent meanwhile is lost, as in a crash
		p.heal()
	}
}

// resubmit submits n ids again, picked among the confirmed roots and the
// completed jobs (a spawned id that is not yet in the ledger may not exist
// yet); each must be refused as a duplicate (other errors are passing
// faults).
func (m *mix) resubmit(n int) string {
	m.mu.Lock()
	ids := append([]string(nil), m.roots...)
	m.mu.Unlock()
	done, _ := m.ledger()
	for id := range done {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return "resubmit nothing yet"
	}
	slices.Sort(ids) // the seed picks the same ids from the same sets
	refused := 0
	for range n {
		id := ids[m.rng.IntN(len(ids))]
		depth := treeDepth - strings.Count(id, "-")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := m.client.Submit(ctx, id, "tree", []byte(strconv.Itoa(depth)))
		cancel()
		m.mu.Lock()
		_, completed := done[id]
		inBundle := m.bundled[id] && !completed
		m.mu.Unlock()
		switch {
		case err == nil && m.restarts == 0 && !inBundle:
			m.fail("a second submission of %s was accepted", id)
		case err == nil:
			// Documented: a restart forgets the duplicate window of
			// records that moved, and the window never knew the ids of a
			// bundle's jobs (only the bundle's); one of the two
			// completions is refused.
			m.mu.Lock()
			m.accepted++
			m.mu.Unlock()
		case errors.Is(err, ErrDuplicateJob):
			refused++
		}
	}
	return fmt.Sprintf("resubmit %d ids: %d refused as duplicates", n, refused)
}

// submitLoop submits roots m0, m1, ... in bursts with lulls between them,
// until stopped (the returned func stops it and waits). A root counts once Submit returned nil, or
// ErrDuplicateJob after an attempt whose outcome was unknown.
func (m *mix) submitLoop() func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rng := rand.New(rand.NewPCG(m.seed, 2))
		for i := 0; i < 2000 && ctx.Err() == nil; i++ {
			if id := "m" + strconv.Itoa(i); rng.IntN(3) > 0 {
				m.submitRoot(id, rng)
			} else {
				m.submitBundle([]string{id, id + "b", id + "c"}, rng)
			}
			gap := 10 + rng.IntN(60)
			if rng.IntN(4) == 0 {
				gap = 200 + rng.IntN(600) // a lull: the cluster may go idle
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(gap) * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

func (m *mix) submitRoot(id string, rng *rand.Rand) {
	payload := []byte(strconv.Itoa(treeDepth))
	deadline := time.Now().Add(30 * time.Second)
	for attempt := 0; time.Now().Before(deadline); attempt++ {
		var opts []SubmitOption
		if names := m.names(); rng.IntN(2) == 0 {
			opts = append(opts, To(names[rng.IntN(len(names))]))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := m.client.Submit(ctx, id, "tree", payload, opts...)
		cancel()
		switch {
		case err == nil || attempt > 0 && errors.Is(err, ErrDuplicateJob):
			m.mu.Lock()
			m.roots = append(m.roots, id)
			m.mu.Unlock()
			return
		case errors.Is(err, ErrDuplicateJob):
			m.fail("first submission of %s refused as a duplicate", id)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.fail("submission of %s never answered within 30s", id)
}

// submitBundle submits the roots ids in one SubmitBundle call, again
// after an error (the outcome is then unknown, and a bundle's ids are not
// refused as duplicates: a job stored twice runs twice and is recorded
// once); they count once a call returned nil.
func (m *mix) submitBundle(ids []string, rng *rand.Rand) {
	jobs := make([]BatchJob, len(ids))
	for i, id := range ids {
		jobs[i] = BatchJob{ID: id, Type: "tree", Payload: []byte(strconv.Itoa(treeDepth))}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var opts []SubmitOption
		if names := m.names(); rng.IntN(2) == 0 {
			opts = append(opts, To(names[rng.IntN(len(names))]))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := m.client.SubmitBundle(ctx, jobs, opts...)
		cancel()
		if err == nil {
			m.mu.Lock()
			m.roots = append(m.roots, ids...)
			if m.bundled == nil {
				m.bundled = map[string]bool{}
			}
			for _, id := range ids {
				m.bundled[id] = true
			}
			m.mu.Unlock()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.fail("bundle %v never answered within 30s", ids)
}

// sampleIdle asks Idle every 20 ms until stopped; a true answer must find
// every tree confirmed before the question completed.
func (m *mix) sampleIdle() func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 10000 && ctx.Err() == nil; i++ {
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
			m.mu.Lock()
			roots := append([]string(nil), m.roots...)
			m.mu.Unlock()
			qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
			idle, _ := m.client.Idle(qctx)
			qcancel()
			if idle {
				m.checkIdle(roots)
			}
		}
	}()
	return func() { cancel(); <-done }
}

func (m *mix) checkIdle(roots []string) {
	done, err := m.ledger()
	if err != nil {
		return // the server is restarting: no verdict from this sample
	}
	m.mu.Lock()
	m.idleTrue++
	m.mu.Unlock()
	for _, r := range roots {
		for _, id := range m.recorded(r) {
			if _, ok := done[id]; !ok {
				m.fail("Idle reported true while %s had no completion", id)
				return
			}
		}
	}
}

// ledger reads every completion: id -> outcome.
func (m *mix) ledger() (map[string]outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kw, err := m.client.st.jobs.Watch(ctx, "d.>")
	if err != nil {
		return nil, err
	}
	defer kw.Stop()
	out := map[string]outcome{}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e := <-kw.Updates():
			if e == nil {
				return out, nil
			}
			var o outcome
			json.Unmarshal(e.Value(), &o)
			out[strings.TrimPrefix(e.Key(), "d.")] = o
		}
	}
}

// watchLedger follows every completion written from now on, counting the
// distinct revisions of each d.<id>: a second write of a completion would
// show as a second revision. The test's cleanup stops it.
func (m *mix) watchLedger() {
	ctx, cancel := context.WithCancel(context.Background())
	kw, err := m.client.st.jobs.Watch(ctx, "d.>", jetstream.UpdatesOnly())
	if err != nil {
		m.t.Fatal(err)
	}
	done := make(chan struct{})
	m.t.Cleanup(func() { cancel(); kw.Stop(); <-done })
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-kw.Updates():
				if !ok {
					return
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue
				}
				id := strings.TrimPrefix(e.Key(), "d.")
				m.mu.Lock()
				if m.writes[id] == nil {
					m.writes[id] = map[uint64]bool{}
				}
				m.writes[id][e.Revision()] = true
				m.mu.Unlock()
			}
		}
	}()
}

// ledgerWrites counts the distinct writes seen of each completion.
func (m *mix) ledgerWrites() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for id, revs := range m.writes {
		out[id] = len(revs)
	}
	return out
}

// recorded lists the ids of root's tree that get a completion: every id,
// or in mem mode the root's alone.
func (m *mix) recorded(root string) []string {
	if m.mem {
		return []string{root}
	}
	return treeIDs(root, treeDepth)
}

// watchRuns counts the runs the workers report on "test.ran" (mem mode,
// see reportRun), on a connection of its own to the server, which is not
// restarted in mem mode.
func (m *mix) watchRuns() {
	nc, err := m.e.Connect()
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(nc.Close)
	_, err = nc.Subscribe("test.ran", func(msg *nats.Msg) {
		_, id, _ := strings.Cut(string(msg.Data), " ")
		m.mu.Lock()
		m.runs[id]++
		m.mu.Unlock()
	})
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		m.t.Fatal(err)
	}
}

// notRun returns an id of a tree of a completed root that no run was
// reported for, or "".
func (m *mix) notRun(roots map[string]outcome) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for r := range roots {
		for _, id := range treeIDs(r, treeDepth) {
			if m.runs[id] == 0 {
				return id
			}
		}
	}
	return ""
}
