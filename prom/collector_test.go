package prom

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/worksteal/steal"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// finishedPool returns a closed pool that ran 5 tasks that returned, 2 that
// panicked and 1 skipped one, every one of them timed for the queue wait.
func finishedPool(t *testing.T) *steal.Pool {
	t.Helper()
	p := steal.New(steal.WithWorkers(2), steal.WithQueueWaitSampling(1), steal.WithPanicLimit(1))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5 {
		p.Go(func() {})
	}
	for range 2 {
		p.Go(func() { panic("boom") })
	}
	p.Submit(cancelled, func(*steal.Worker) {})
	var dropped *steal.DroppedPanicsError
	if err := p.Close(); !errors.As(err, &dropped) || dropped.Count != 1 {
		t.Fatalf("Close: %v, want one panic kept and one dropped", err)
	}
	return p
}

func TestCollectorReportsPool(t *testing.T) {
	c := NewCollector(finishedPool(t), "images")
	want := `
# HELP steal_backlog_tasks Submitted tasks that no worker has started yet.
# TYPE steal_backlog_tasks gauge
steal_backlog_tasks{pool="images"} 0
# HELP steal_panics_dropped_total Panics counted but not kept for Close, past the pool's panic limit.
# TYPE steal_panics_dropped_total counter
steal_panics_dropped_total{pool="images"} 1
# HELP steal_tasks_completed_total Tasks that returned without a panic or runtime.Goexit.
# TYPE steal_tasks_completed_total counter
steal_tasks_completed_total{pool="images"} 5
# HELP steal_tasks_failed_total Tasks that panicked or called runtime.Goexit.
# TYPE steal_tasks_failed_total counter
steal_tasks_failed_total{pool="images"} 2
# HELP steal_tasks_skipped_total Tasks not run because their context was done before they started.
# TYPE steal_tasks_skipped_total counter
steal_tasks_skipped_total{pool="images"} 1
# HELP steal_tasks_submitted_total Tasks queued through the pool's inject queue: by Submit, SubmitBatch, TrySubmit, Go, Run, Join, For, ForRange, PoolSpawn, TryPoolSpawn, the PoolMap functions and the Go of a Pool.Group or PoolResultGroup.
# TYPE steal_tasks_submitted_total counter
steal_tasks_submitted_total{pool="images"} 8
# HELP steal_workers Workers the pool runs.
# TYPE steal_workers gauge
steal_workers{pool="images"} 2
# HELP steal_workers_idle Of the pool's own workers, those parked now: with no work, or asleep in a wait whose tasks run elsewhere (spares left out).
# TYPE steal_workers_idle gauge
steal_workers_idle{pool="images"} 2
# HELP steal_workers_spinning Workers looking for work to steal now, spares standing in for blocked workers included.
# TYPE steal_workers_spinning gauge
steal_workers_spinning{pool="images"} 0
`
	names := []string{"steal_backlog_tasks", "steal_panics_dropped_total", "steal_tasks_completed_total",
		"steal_tasks_failed_total", "steal_tasks_skipped_total", "steal_tasks_submitted_total",
		"steal_workers", "steal_workers_idle", "steal_workers_spinning"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(c, "steal_worker_tasks_ran_total"); n != 2 {
		t.Errorf("%d per-worker series, want 2", n)
	}
	h := gatherHistogram(t, c)
	if h.GetSampleCount() != 8 {
		t.Errorf("queue wait histogram counts %d tasks, want 8", h.GetSampleCount())
	}
	prev := uint64(0)
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() < prev || b.GetCumulativeCount() > h.GetSampleCount() {
			t.Fatalf("buckets not cumulative: %v", h.GetBucket())
		}
		prev = b.GetCumulativeCount()
	}
	if ub := h.GetBucket()[0].GetUpperBound(); ub != 1e-6 {
		t.Errorf("first bucket's bound %v, want 1e-06 s", ub)
	}
}

// gatherHistogram registers c alone and returns its queue wait histogram.
func gatherHistogram(t *testing.T, c prometheus.Collector) *dto.Histogram {
	t.Helper()
	return gatherNamed(t, c, "steal_queue_wait_seconds")
}

// gatherNamed registers c alone and returns its histogram called name.
func gatherNamed(t *testing.T, c prometheus.Collector, name string) *dto.Histogram {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatal("no " + name)
	return nil
}

func TestCollectorLint(t *testing.T) {
	p := steal.New(steal.WithWorkers(1))
	defer p.Close()
	problems, err := testutil.CollectAndLint(NewCollector(p, "lint"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range problems {
		t.Errorf("%s: %s", pr.Metric, pr.Text)
	}
}

func TestCollectorPoolsByName(t *testing.T) {
	a, b := steal.New(steal.WithWorkers(1)), steal.New(steal.WithWorkers(1))
	defer a.Close()
	defer b.Close()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(NewCollector(a, "a")); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(NewCollector(b, "b")); err != nil {
		t.Fatalf("a second pool under another name: %v", err)
	}
	if err := reg.Register(NewCollector(b, "a")); err == nil {
		t.Fatal("a second collector under a name taken was registered")
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
}

func TestCollectorNilPool(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "nil *steal.Pool") {
			t.Errorf("NewCollector(nil) recovered %v, want a panic naming the nil pool", r)
		}
	}()
	NewCollector(nil, "x")
}

// TestCollectorZeroPool: a Pool that steal.New did not make is refused
// when the collector is made, as a nil one is, rather than accepted and
// failing every scrape of the registry it joined (each Gather an error,
// so promhttp answers 500 for every collector on it).
func TestCollectorZeroPool(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "prom: NewCollector") ||
			!strings.Contains(fmt.Sprint(r), "steal.New") {
			t.Errorf("NewCollector(&steal.Pool{}) recovered %v, want a panic saying to make the pool with steal.New", r)
		}
	}()
	NewCollector(new(steal.Pool), "zero")
}

// TestCollectorScrapesBusyPool scrapes while tasks come and go: the race
// detector checks the reads, Gather checks every scrape is consistent.
func TestCollectorScrapesBusyPool(t *testing.T) {
	p := steal.New(steal.WithWorkers(2), steal.WithQueueWaitSampling(1))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(p, "busy"))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20_000 {
			p.Go(func() {})
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 50 && time.Now().Before(deadline); i++ {
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	h := gatherHistogram(t, NewCollector(p, "busy"))
	if h.GetSampleCount() != 20_000 {
		t.Errorf("queue wait histogram counts %d tasks, want 20000", h.GetSampleCount())
	}
}

// Tasks queued by SubmitBatch are submitted tasks, as the help says.
func TestCollectorCountsSubmitBatch(t *testing.T) {
	p := steal.New(steal.WithWorkers(1))
	fns := []func(*steal.Worker){func(*steal.Worker) {}, func(*steal.Worker) {}}
	if n, err := p.SubmitBatch(context.Background(), fns); n != 2 || err != nil {
		t.Fatalf("SubmitBatch: %d, %v", n, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP steal_tasks_submitted_total Tasks queued through the pool's inject queue: by Submit, SubmitBatch, TrySubmit, Go, Run, Join, For, ForRange, PoolSpawn, TryPoolSpawn, the PoolMap functions and the Go of a Pool.Group or PoolResultGroup.
# TYPE steal_tasks_submitted_total counter
steal_tasks_submitted_total{pool="b"} 2
`
	if err := testutil.CollectAndCompare(NewCollector(p, "b"), strings.NewReader(want), "steal_tasks_submitted_total"); err != nil {
		t.Error(err)
	}
}
