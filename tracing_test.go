package steal

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"
)

// tracedWork runs named and unnamed work on p: a named Submit whose task
// runs children in a NewGroup (they inherit the name), a named Pool.Group,
// a named Submit that starts no group, and an unnamed Go.
func tracedWork(t *testing.T, p *Pool) {
	t.Helper()
	done := newCountdown(1 + 3 + 1 + 1)
	// The later tasks are submitted once the first has returned: a task
	// still waiting for its group would lend them to a spare, whose tasks
	// the timeline does not record.
	first := make(chan struct{})
	err := p.Submit(Named(context.Background(), "obs-test-submit"), func(w *Worker) {
		defer close(first)
		g := NewGroup(w)
		for range 3 {
			g.Go(func(*Worker) error { done.dec(); return nil })
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
		done.dec()
	})
	if err != nil {
		t.Fatal(err)
	}
	g := p.Group(Named(context.Background(), "obs-test-group"))
	for range 4 {
		g.Go(func(*Worker) error { return nil })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, first, "the first traced task")
	if err := p.Submit(Named(context.Background(), "obs-test-region"), func(*Worker) { done.dec() }); err != nil {
		t.Fatal(err)
	}
	if err := p.Go(done.dec); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, done.done, "traced work")
}

// startTrace starts the execution tracer into a buffer and returns the
// function that stops it and returns the trace. It skips the test if the
// tracer is already on (go test -trace).
func startTrace(t *testing.T) func() []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("execution tracer busy: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			trace.Stop()
		}
	})
	return func() []byte {
		trace.Stop()
		stopped = true
		return buf.Bytes()
	}
}

// TestExecutionTraceShowsTasks: with the execution tracer on, tasks run as
// trace regions whose type is the task's name ("steal.task" when unnamed),
// and workers log their ids. The check reads the raw trace: region types
// and log categories are written into its string table once used, and
// nothing else writes these strings there (obs-test-region names no group,
// so only its task's region can have written it). Decoding the
// events would take golang.org/x/exp/trace, an unstable API, or go tool
// trace, which is built on first use (over a minute on the CI machine);
// TestExecutionTraceParsed does the latter when asked.
func TestExecutionTraceShowsTasks(t *testing.T) {
	stop := startTrace(t)
	p := New(WithWorkers(2))
	tracedWork(t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	raw := stop()
	for _, want := range []string{"obs-test-region", "obs-test-submit", "obs-test-group", traceTaskRegion, traceWorkerLog} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("execution trace (%d bytes) does not mention %q", len(raw), want)
		}
	}
}

// TestExecutionTraceParsed checks the trace as go tool trace parses it:
// named regions on worker goroutines, each region inside the group's trace
// task for the group's children, and worker id logs. go tool trace is
// built on first use, which takes over a minute on a cold build cache, so
// the test runs only with STEAL_GO_TOOL_TRACE=1 in the environment.
func TestExecutionTraceParsed(t *testing.T) {
	if os.Getenv("STEAL_GO_TOOL_TRACE") != "1" {
		t.Skip("set STEAL_GO_TOOL_TRACE=1 to parse the trace with go tool trace")
	}
	stop := startTrace(t)
	p := New(WithWorkers(2))
	tracedWork(t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "exec.trace")
	if err := os.WriteFile(file, stop(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "tool", "trace", "-d=parsed", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool trace: %v\n%.2000s", err, out)
	}
	parsed := string(out)
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(parsed, -1)) }
	if n := count(`RegionBegin .*Type="obs-test-submit"`); n != 4 {
		t.Errorf("%d regions of type obs-test-submit, want 4 (the task and its 3 children)", n)
	}
	if n := count(`TaskBegin .*Type="obs-test-group"`); n != 1 {
		t.Errorf("%d trace tasks for the group, want 1", n)
	}
	if n := count(`RegionBegin .*Task=[1-9][0-9]* Type="obs-test-group"`); n != 4 {
		t.Errorf("%d regions of the group's children inside a trace task, want 4", n)
	}
	if n := count(`RegionBegin .*Type="obs-test-region"`); n != 1 {
		t.Errorf("%d regions of type obs-test-region, want 1", n)
	}
	if n := count(`RegionBegin .*Type="steal.task"`); n != 1 {
		t.Errorf("%d unnamed task regions, want 1", n)
	}
	if count(`Log .*Category="steal.worker"`) == 0 {
		t.Error("no worker id logged")
	}
}

// probeBlock blocks a task until released, after saying it is running; its
// name marks the task's goroutine in a goroutine profile.
//
//go:noinline
func probeBlock(ready chan<- struct{}, release <-chan struct{}) {
	ready <- struct{}{}
	<-release
}

// probeLabels waits for a task in probeBlock, returns the profile labels
// of its goroutine ("" for none), and releases it.
func probeLabels(t *testing.T, ready, release chan struct{}) string {
	t.Helper()
	waitClosed(t, ready, "a task reaching probeBlock")
	defer func() { release <- struct{}{} }()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, "steal.probeBlock") {
			continue
		}
		if _, after, ok := strings.Cut(rec, "# labels: "); ok {
			labels, _, _ := strings.Cut(after, "\n")
			return labels
		}
		return ""
	}
	t.Fatal("no goroutine in probeBlock in the goroutine profile")
	return ""
}

// TestProfileLabelsFollowTasks: with WithProfileLabels a task runs with its
// context's labels, the worker drops them after the task, and a task that
// waits gets its own back after the tasks it ran while waiting.
func TestProfileLabelsFollowTasks(t *testing.T) {
	ready, release := make(chan struct{}), make(chan struct{})
	probe := func(*Worker) { probeBlock(ready, release) }
	p := New(WithWorkers(1), WithProfileLabels())
	defer p.Close()

	ctx := Named(pprof.WithLabels(context.Background(), pprof.Labels("request", "7")), "outer")
	if err := p.Submit(ctx, probe); err != nil {
		t.Fatal(err)
	}
	if got, want := probeLabels(t, ready, release), `{"request":"7", "steal.task":"outer"}`; got != want {
		t.Errorf("labels of a labelled task: %s, want %s", got, want)
	}
	if err := p.Go(func() { probeBlock(ready, release) }); err != nil {
		t.Fatal(err)
	}
	if got := probeLabels(t, ready, release); got != "" {
		t.Errorf("labels of an unlabelled task after a labelled one: %s, want none", got)
	}

	waited := make(chan error, 1)
	err := p.Submit(Named(context.Background(), "outer"), func(w *Worker) {
		g := p.Group(Named(w.Context(), "inner"))
		g.Go(func(w *Worker) error { probe(w); return nil })
		waited <- g.Wait() // the only worker runs the child while it waits
		probe(w)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := probeLabels(t, ready, release), `{"steal.task":"inner"}`; got != want {
		t.Errorf("labels of a task run while another waits: %s, want %s", got, want)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if got, want := probeLabels(t, ready, release), `{"steal.task":"outer"}`; got != want {
		t.Errorf("labels of a task after its wait: %s, want %s", got, want)
	}
}

// TestProfileLabelsOffByDefault: without the option, tasks run with the
// worker goroutine's labels, which are none.
func TestProfileLabelsOffByDefault(t *testing.T) {
	ready, release := make(chan struct{}), make(chan struct{})
	p := New(WithWorkers(1))
	defer p.Close()
	if err := p.Submit(Named(context.Background(), "outer"), func(*Worker) { probeBlock(ready, release) }); err != nil {
		t.Fatal(err)
	}
	if got := probeLabels(t, ready, release); got != "" {
		t.Errorf("labels without WithProfileLabels: %s, want none", got)
	}
}

// TestTimelineNamesSlices: the timeline's slices carry task names.
func TestTimelineNamesSlices(t *testing.T) {
	p := New(WithWorkers(2), WithTimeline(1<<12))
	tracedWork(t, p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	var tr chromeTrace
	if err := json.Unmarshal(buf.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	begun, ended := map[string]int{}, map[string]int{}
	for _, e := range tr.TraceEvents {
		switch e.Ph {
		case "B":
			begun[e.Name]++
		case "E":
			ended[e.Name]++
		}
	}
	want := map[string]int{"obs-test-submit": 4, "obs-test-group": 4, "obs-test-region": 1, "task": 1}
	for name, n := range want {
		if begun[name] != n || ended[name] != n {
			t.Errorf("%q: %d slices begun, %d ended, want %d", name, begun[name], ended[name], n)
		}
	}
}

// TestTaskNames: what Named sets, tasks inherit.
func TestTaskNames(t *testing.T) {
	if got := TaskName(context.Background()); got != "" {
		t.Errorf("TaskName of a bare context = %q", got)
	}
	if got := TaskName(nil); got != "" {
		t.Errorf("TaskName(nil) = %q", got)
	}
	if got := TaskName(Named(nil, "x")); got != "x" {
		t.Errorf("TaskName(Named(nil, x)) = %q", got)
	}
	p := New(WithWorkers(2))
	defer p.Close()
	names := make(chan string, 16)
	err := p.Submit(Named(context.Background(), "job"), func(w *Worker) {
		names <- TaskName(w.Context())
		w.Spawn(func(w *Worker) { names <- TaskName(w.Context()) })
		Join(w, func(w *Worker) { names <- TaskName(w.Context()) },
			func(w *Worker) { names <- TaskName(w.Context()) })
		g := NewGroup(w)
		g.Go(func(w *Worker) error { names <- TaskName(w.Context()); return nil })
		g.Wait()
		inner := p.Group(Named(w.Context(), "step"))
		inner.Go(func(w *Worker) error { names <- TaskName(w.Context()); return nil })
		inner.Wait()
		cleared := p.Group(Named(w.Context(), ""))
		cleared.Go(func(w *Worker) error { names <- TaskName(w.Context()); return nil })
		cleared.Wait()
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"job": 5, "step": 1, "": 1}
	got := map[string]int{}
	for range 7 {
		n, ok := await(names)
		if !ok {
			t.Fatalf("names so far %v, want %v", got, want)
		}
		got[n]++
	}
	for n, c := range want {
		if got[n] != c {
			t.Errorf("names %v, want %v", got, want)
			break
		}
	}
}

// TestProfileLabelsNotInherited: under WithProfileLabels, workers carry no
// labels between tasks, even when the pool was made by a labelled
// goroutine (whose labels its goroutines inherit).
func TestProfileLabelsNotInherited(t *testing.T) {
	var p *Pool
	pprof.Do(context.Background(), pprof.Labels("creator", "test"), func(context.Context) {
		p = New(WithWorkers(2), WithProfileLabels())
	})
	defer p.Close()
	waitAllParked(t, p)
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	parked := 0
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, "steal.(*core).park") {
			continue
		}
		parked++
		if strings.Contains(rec, "# labels:") {
			t.Errorf("a parked worker carries labels:\n%s", rec)
		}
	}
	if parked == 0 {
		t.Fatal("no parked worker in the goroutine profile")
	}
}

// BenchmarkObserve: what watching tasks costs, per tiny task (a
// WaitGroup.Done), spawned from inside a named task as in
// BenchmarkSpawn1M's steal-spawn-inner (a pool is started and closed per
// 100,000 tasks). Run it with
//
//	go test -run XXX -bench Observe -count 5 .
//
// "off" is the default pool with the tracer off; "no-context" is "off"
// with the root submitted with context.Background() instead of a named
// context, whose tasks get a cancellable context each; "tracer" runs under
// runtime/trace writing to io.Discard; "labels" sets WithProfileLabels;
// "timeline" records WithTimeline.
func BenchmarkObserve(b *testing.B) {
	const tasks = 100_000
	for _, c := range []struct {
		name   string
		opts   []Option
		tracer bool
	}{
		{"off", nil, false},
		{"no-context", nil, false},
		{"tracer", nil, true},
		{"labels", []Option{WithProfileLabels()}, false},
		{"timeline", []Option{WithTimeline(tasks + 1000)}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.tracer {
				if err := trace.Start(io.Discard); err != nil {
					b.Skipf("tracer busy: %v", err)
				}
				defer trace.Stop()
			}
			var wg sync.WaitGroup
			fn := func(*Worker) { wg.Done() }
			root := func(w *Worker) {
				for range tasks {
					w.Spawn(fn)
				}
				// Spawned tasks see root's context, which Submit cancels
				// when root returns: wait for them, lending the worker to
				// a spare meanwhile.
				w.Block(wg.Wait)
			}
			ctx := Named(context.Background(), "bench")
			if c.name == "no-context" {
				ctx = context.Background()
			}
			for range b.N {
				p := New(c.opts...) // a fresh timeline each time
				wg.Add(tasks)
				p.Submit(ctx, root)
				wg.Wait()
				p.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
		})
	}
}
