package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/steal/cluster"
)

// demoFlags are cluster demo's workload flags. The defaults make 8 trees
// of 40 jobs of 10 ms each, 320 jobs, all rooted on w1.
type demoFlags struct {
	roots, depth, fanout int
	sleep, every, limit  time.Duration
}

func (f *demoFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.roots, "roots", 8, "root jobs, all submitted to w1, at most 1000")
	fs.IntVar(&f.depth, "depth", 3, fmt.Sprintf("generations of children under each root; a tree holds at most %d jobs", maxTreeJobs))
	fs.IntVar(&f.fanout, "fanout", 3, fmt.Sprintf("children each job spawns, at most %d", maxTreeFanout))
	fs.DurationVar(&f.sleep, "sleep", 10*time.Millisecond, fmt.Sprintf("how long each job sleeps (stands for I/O), in whole milliseconds, at most %v",
		maxTreeSleepMS*time.Millisecond))
	fs.DurationVar(&f.every, "every", 200*time.Millisecond, "progress line interval")
	fs.DurationVar(&f.limit, "timeout", time.Minute, "give up (exit 1) if the work is not done by then")
}

func (f *demoFlags) check() error {
	if f.roots < 1 || f.roots > 1000 {
		return fmt.Errorf("-roots must be 1 to 1000, not %d", f.roots)
	}
	// Each flag against its own bound, in the flag's words: the tree
	// job's own check speaks of its payload's fields.
	if f.depth < 0 {
		return fmt.Errorf("-depth must not be negative, not %d", f.depth)
	}
	if f.fanout < 0 || f.fanout > maxTreeFanout {
		return fmt.Errorf("-fanout must be 0 to %d, not %d", maxTreeFanout, f.fanout)
	}
	if maxSleep := maxTreeSleepMS * time.Millisecond; f.sleep < 0 || f.sleep > maxSleep {
		return fmt.Errorf("-sleep must be 0 to %v, not %v", maxSleep, f.sleep)
	}
	if f.sleep%time.Millisecond != 0 {
		// A tree job's payload has sleep_ms: anything finer was dropped.
		return fmt.Errorf("-sleep must be whole milliseconds, not %v", f.sleep)
	}
	if _, err := f.tree().size(); err != nil {
		return fmt.Errorf("-depth %d and -fanout %d make trees of more than %d jobs", f.depth, f.fanout, maxTreeJobs)
	}
	if f.every < 10*time.Millisecond { // as cluster up's: each line asks every worker
		return fmt.Errorf("-every must be at least 10ms, not %v", f.every)
	}
	if f.limit <= 0 {
		return fmt.Errorf("-timeout must be positive, not %v", f.limit)
	}
	return nil
}

func (f *demoFlags) tree() treeJob {
	return treeJob{Depth: f.depth, Fanout: f.fanout, SleepMS: int(f.sleep / time.Millisecond)}
}

// runDemo submits the roots to w1, prints progress until the cluster is
// idle, and checks that every job was done.
func runDemo(ctx context.Context, c *runningCluster, f *demoFlags, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeoutCause(ctx, f.limit, fmt.Errorf("the work was not done within -timeout %v", f.limit))
	defer cancel()
	per, _ := f.tree().size()
	total := per * f.roots
	base, err := c.client.Workers(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "stealcluster cluster demo:", why(ctx, err))
		return 1
	}
	fmt.Fprintf(stdout, "\n%d root jobs on w1, each a tree of %d jobs (depth %d, fanout %d) sleeping %v: %d jobs\n",
		f.roots, per, f.depth, f.fanout, f.sleep, total)
	recorded := total // jobs with a completion of their own
	if !c.f.conn.spawnRecords {
		recorded = f.roots
		fmt.Fprintln(stdout, "spawned jobs stay in memory: only the roots are recorded, each once its tree is done")
	}
	fmt.Fprintln(stdout)
	start := time.Now()
	roots, err := submitRoots(ctx, c.client, f)
	if err != nil {
		fmt.Fprintln(stderr, "stealcluster cluster demo: submitting:", why(ctx, err))
		return 1
	}
	if err := watch(ctx, c.client, f.every, start, recorded, base, stdout); err != nil {
		fmt.Fprintln(stderr, "stealcluster cluster demo:", why(ctx, err))
		return 1
	}
	ids := roots
	if recorded == total {
		ids = treeIDs(roots, f.depth, f.fanout)
	}
	return summary(ctx, c.client, ids, total, base, time.Since(start), stdout, stderr)
}

// submitRoots submits the roots to w1 under ids unique to this run, so
// that a demo can run again on the same NATS server.
func submitRoots(ctx context.Context, cl *cluster.Client, f *demoFlags) ([]string, error) {
	payload, _ := json.Marshal(f.tree())
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var ids []string
	for i := range f.roots {
		id := "demo" + run + "-r" + strconv.Itoa(i)
		if err := cl.Submit(ctx, id, "tree", payload, cluster.To("w1")); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// idlePoll bounds how often watch asks whether the cluster is idle: a
// long -every spaces the progress lines, not the check for the end.
const idlePoll = 100 * time.Millisecond

// watch prints a progress line every interval until the cluster is idle,
// which it checks every idlePoll at least.
func watch(ctx context.Context, cl *cluster.Client, every time.Duration, start time.Time, total int, base []cluster.WorkerState, out io.Writer) error {
	t := time.NewTicker(min(every, idlePoll))
	defer t.Stop()
	printed := time.Now()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped before the work was done: %v", ctx.Err())
		case <-t.C:
		}
		if time.Since(printed) >= every {
			printed = time.Now()
			if states, err := cl.Workers(ctx); err == nil {
				fmt.Fprintln(out, progress(time.Since(start), total, states, base))
			}
		}
		if idle, _ := cl.Idle(ctx); idle {
			return nil
		}
	}
}

// progress is one line: time, jobs done, jobs stolen, each queue.
func progress(at time.Duration, total int, states, base []cluster.WorkerState) string {
	states = inNumberOrder(states)
	done, stolen := since(states, base)
	var b strings.Builder
	fmt.Fprintf(&b, "%6.2fs  done %4d/%d  stolen %4d  queues", at.Seconds(), done, total, stolen)
	for _, s := range states {
		fmt.Fprintf(&b, " %s=%d", s.Name, s.Queue)
	}
	return b.String()
}

// since sums the jobs completed and stolen since base was taken.
func since(states, base []cluster.WorkerState) (done, stolen int64) {
	for _, s := range states {
		b := lookup(base, s.Name)
		done += s.Completed - b.Completed
		stolen += s.Stolen - b.Stolen
	}
	return done, stolen
}

func lookup(states []cluster.WorkerState, name string) cluster.WorkerState {
	for _, s := range states {
		if s.Name == name {
			return s
		}
	}
	return cluster.WorkerState{}
}

// treeIDs lists every job of the trees under roots: a child's id is
// "<parent>-<n>" for the parent's n-th spawn (cluster.Job.Spawn).
func treeIDs(roots []string, depth, fanout int) []string {
	ids := append([]string(nil), roots...)
	level := roots
	for range depth {
		if len(level) == 0 { // fanout 0: no more levels, however deep
			break
		}
		var next []string
		for _, p := range level {
			for n := range fanout {
				next = append(next, p+"-"+strconv.Itoa(n))
			}
		}
		ids = append(ids, next...)
		level = next
	}
	return ids
}

// summary checks the ledger: every job of ids (every job of every tree,
// or only the roots when spawned jobs stay in memory) has its one recorded
// completion, without an error. It then prints what each worker did. The
// workers' own counts are what they saw, which after a failure (a server
// lost mid-write, a worker fenced) can differ from the ledger by the
// completions whose outcome a worker did not learn.
func summary(ctx context.Context, cl *cluster.Client, ids []string, total int, base []cluster.WorkerState,
	took time.Duration, out, errw io.Writer) int {
	recorded := 0
	for _, id := range ids {
		r, err := cl.Wait(ctx, id)
		if err == nil && r.Err != nil {
			err = r.Err
		}
		if err != nil {
			fmt.Fprintf(errw, "stealcluster cluster demo: job %s: %v\n", id, why(ctx, err))
			return 1
		}
		recorded++
	}
	states, err := cl.Workers(ctx)
	if err != nil {
		fmt.Fprintln(errw, "stealcluster cluster demo:", why(ctx, err))
		return 1
	}
	_, stolen := since(states, base)
	if recorded == total {
		fmt.Fprintf(out, "\nsummary: %d of %d jobs completed (each recorded once) in %v, %d jobs stolen\n",
			recorded, total, took.Round(time.Millisecond), stolen)
	} else {
		fmt.Fprintf(out, "\nsummary: %d of %d root jobs completed (each recorded once, after its whole tree): %d jobs in %v, %d jobs stolen\n",
			recorded, len(ids), total, took.Round(time.Millisecond), stolen)
	}
	what := "completed %d jobs"
	if recorded != total {
		what = "recorded %d roots"
	}
	for _, s := range states {
		b := lookup(base, s.Name)
		fmt.Fprintf(out, "  %s "+what+", stole %d, gave %d\n", s.Name,
			s.Completed-b.Completed, s.Stolen-b.Stolen, s.Given-b.Given)
	}
	return 0
}

// why is err, or, once ctx has ended, its cause: every call fails with
// the context's error once -timeout passes, which said only "context
// deadline exceeded".
func why(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
