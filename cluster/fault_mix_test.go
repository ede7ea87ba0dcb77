package cluster

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

var faultsLong = flag.Bool("faults.long", false, "TestFaultMix: run 40 rounds of faults instead of 6 (STEAL_FAULT_ROUNDS overrides both)")

// faultRounds is the number of faults TestFaultMix injects.
func faultRounds() int {
	if n, err := strconv.Atoi(os.Getenv("STEAL_FAULT_ROUNDS")); err == nil && n > 0 {
		return n
	}
	if *faultsLong {
		return 40
	}
	return 6
}

// faultSeed is STEAL_FAULT_SEED when set, else the clock.
func faultSeed() uint64 {
	if n, err := strconv.ParseUint(os.Getenv("STEAL_FAULT_SEED"), 10, 64); err == nil {
		return n
	}
	return uint64(time.Now().UnixNano())
}

// treeDepth: each submitted root spawns a binary tree of this depth.
const treeDepth = 2

// treeHandler runs a job of the tree workload: it works 10 ms and, while
// its payload (the depth left) is above 0, spawns two children
// <id>-0 and <id>-1 one level down. A spawn that fails for a passing
// reason (a reconnect, a restarting server) is retried for up to 10 s, as
// a real handler would; ErrFenced ends the run (the job moved on).
func treeHandler(worker string) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		time.Sleep(10 * time.Millisecond)
		depth, _ := strconv.Atoi(string(j.Payload))
		for i := 0; depth > 0 && i < 2; i++ {
			if err := spawnRetry(ctx, j, j.ID+"-"+strconv.Itoa(i), depth-1); err != nil {
				return nil, err
			}
		}
		return []byte(worker), nil
	}
}

func spawnRetry(ctx context.Context, j *Job, id string, depth int) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := j.SpawnID(ctx, id, "tree", []byte(strconv.Itoa(depth)))
		if err == nil || errors.Is(err, ErrFenced) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// treeIDs lists root's job and every job it spawns, at depth d.
func treeIDs(root string, d int) []string {
	out := []string{root}
	if d > 0 {
		for i := range 2 {
			out = append(out, treeIDs(root+"-"+strconv.Itoa(i), d-1)...)
		}
	}
	return out
}

// TestFaultMix runs a workload of spawning jobs on worker processes, each
// behind its own proxy, on a server with file storage, and injects a
// seeded random sequence of faults, one at a time: kill -9 of a worker
// (a new one replaces it), SIGSTOP and SIGCONT, a blackholed connection
// that heals, a connection reset, a server restart, duplicate submissions.
// Meanwhile Client.Idle is sampled: a true answer must find every job
// submitted before it completed. After the faults: every submitted and
// every spawned id has exactly one completion, no record is left, and the
// cluster is idle.
//
// STEAL_FAULT_SEED=n replays a run (the seed is logged); STEAL_FAULT_ROUNDS
// or -faults.long sets the number of faults.
func TestFaultMix(t *testing.T) {
	if testing.Short() {
		t.Skip("process test with faults; skipped with -short")
	}
	seed, rounds := faultSeed(), faultRounds()
	runMix(t, seed, rounds, false)
}

// memFaultRounds is the number of faults TestFaultMixMem injects:
// STEAL_FAULT_ROUNDS or -faults.long as for TestFaultMix, else 4.
func memFaultRounds() int {
	if os.Getenv("STEAL_FAULT_ROUNDS") != "" || *faultsLong {
		return faultRounds()
	}
	return 4
}

// TestFaultMixMem is TestFaultMix with workers that keep spawned jobs in
// memory (WithSpawnRecords(false)), so that children are lent to
// thieves, not moved, and only roots are recorded: the faults (kill -9,
// SIGSTOP and SIGCONT, blackholes, resets, duplicate submissions; no
// server restart, see mix.mem) hit thieves holding loans and lenders
// whose subtrees are out. After the faults: every confirmed root has
// exactly one completion, written once and without error, no other id
// has one, every job of a completed root's tree ran at least once (the
// workers report their runs), no record is left and the cluster is idle.
// Idle is sampled as in TestFaultMix. STEAL_FAULT_SEED and
// STEAL_FAULT_ROUNDS (or -faults.long) as for TestFaultMix.
func TestFaultMixMem(t *testing.T) {
	if testing.Short() {
		t.Skip("process test with faults; skipped with -short")
	}
	seed, rounds := faultSeed(), memFaultRounds()
	runMix(t, seed, rounds, true)
}

// runMix runs rounds faults drawn from seed against a mix (of workers
// keeping spawned jobs in memory when mem is set), then lets it settle and
// checks it; the seed is logged, to replay a failure.
func runMix(t *testing.T, seed uint64, rounds int, mem bool) {
	t.Helper()
	t.Logf("STEAL_FAULT_SEED=%d STEAL_FAULT_ROUNDS=%d", seed, rounds)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with STEAL_FAULT_SEED=%d STEAL_FAULT_ROUNDS=%d", seed, rounds)
		}
	})
	m := newMix(t, seed, mem)
	stopSub := m.submitLoop()
	stopIdle := m.sampleIdle()
	for r := range rounds {
		m.round(r)
	}
	stopSub()
	t0 := time.Now()
	m.settle()
	stopIdle()
	t.Logf("settled %v after the last fault", time.Since(t0))
	m.check()
}

// sleepRand sleeps between lo and hi milliseconds, drawn from rng.
func sleepRand(rng *rand.Rand, lo, hi int) time.Duration {
	d := time.Duration(lo+rng.IntN(hi-lo+1)) * time.Millisecond
	time.Sleep(d)
	return d
}

// settle waits (at most 60 s) until every confirmed tree has completed,
// then for the cluster to be idle (at most 30 s).
func (m *mix) settle() {
	t := m.t
	want := m.wanted()
	deadline := time.Now().Add(60 * time.Second)
	for missing := ""; ; time.Sleep(200 * time.Millisecond) {
		if got, err := m.ledger(); err == nil {
			if missing = firstMissing(want, got); missing == "" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("seed %d: %s (and maybe more) has no completion 60 s after the last fault", m.seed, missing)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.client.WaitIdle(ctx); err != nil {
		t.Fatalf("seed %d: every job completed, but WaitIdle: %v", m.seed, err)
	}
}

// wanted is every id of every confirmed tree.
func (m *mix) wanted() map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	want := map[string]bool{}
	for _, r := range m.roots {
		for _, id := range m.recorded(r) {
			want[id] = true
		}
	}
	return want
}

func firstMissing(want map[string]bool, got map[string]outcome) string {
	for id := range want {
		if _, ok := got[id]; !ok {
			return id
		}
	}
	return ""
}

// check runs once the cluster is idle: no violation was seen during the
// run, the ledger holds exactly the wanted ids, each completed without
// error and written once, and no record is left.
func (m *mix) check() {
	t := m.t
	for _, v := range m.violations {
		t.Errorf("seed %d: %s", m.seed, v)
	}
	want, writes := m.wanted(), m.ledgerWrites()
	got, err := m.ledger()
	if err != nil {
		t.Fatalf("seed %d: reading the ledger: %v", m.seed, err)
	}
	for id, o := range got {
		switch {
		case !want[id]:
			t.Errorf("seed %d: completion of %s, which was never submitted nor spawned", m.seed, id)
		case o.Code != "":
			t.Errorf("seed %d: %s failed on %s: %s %s", m.seed, id, o.Worker, o.Code, o.Text)
		case writes[id] > 1:
			t.Errorf("seed %d: %s completed %d times", m.seed, id, writes[id])
		}
	}
	if m.mem {
		// Each run reported itself before it ended, so before its
		// root's completion; the report may still be on its way here.
		for end := time.Now().Add(5 * time.Second); m.notRun(got) != "" && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if id := m.notRun(got); id != "" {
			t.Errorf("seed %d: %s never ran, yet its root completed", m.seed, id)
		}
		var lent, back int64
		for _, n := range m.names() {
			if ws, err := childStats(m.client.nc, n); err == nil {
				lent, back = lent+ws.Given, back+ws.TakenBack
			}
		}
		m.mu.Lock()
		runs := 0
		for _, n := range m.runs {
			runs += n
		}
		m.mu.Unlock()
		t.Logf("mem: %d runs reported; the workers alive at the end lent %d jobs and took back %d", runs, lent, back)
	}
	keys, err := m.client.st.keys(context.Background(), "q.>")
	if err != nil || len(keys) != 0 || len(got) != len(want) {
		t.Fatalf("seed %d: %d completions for %d ids, live records %v (%v)", m.seed, len(got), len(want), keys, err)
	}
	t.Logf("%d roots, %d jobs completed once each; Idle true %d times during the run; faults %v; "+
		"resubmissions accepted (after a restart, or of a job queued in a bundle) %d", len(m.roots), len(got), m.idleTrue, m.faults, m.accepted)
}
