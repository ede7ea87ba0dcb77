package schedcheck

import (
	"context"
	"math"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
)

// quotaFS is a cgroup v2 tree whose cgroup allows 1 CPU.
var quotaFS = fstest.MapFS{
	"proc/self/cgroup":          {Data: []byte("0::/app\n")},
	"proc/self/mountinfo":       {Data: []byte(v2Mounts)},
	"sys/fs/cgroup/app/cpu.max": {Data: []byte("100000 100000\n")},
}

// setGOMAXPROCS sets GOMAXPROCS for the test and puts it back after.
func setGOMAXPROCS(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

func TestMonitorReportsEachFindingOnceAndStops(t *testing.T) {
	setGOMAXPROCS(t, 4) // over the 1-CPU quota's 2
	var mu sync.Mutex
	var calls []string
	seen := make(chan struct{}, 1)
	m := Start(context.Background(), withFS(quotaFS), WithInterval(2*time.Millisecond),
		WithOnFinding(func(f Finding) {
			mu.Lock()
			calls = append(calls, f.Name)
			mu.Unlock()
			select {
			case seen <- struct{}{}:
			default:
			}
		}))
	<-seen
	time.Sleep(20 * time.Millisecond) // more samples, the same finding
	r := m.Stop()
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0] != "container-quota" {
		t.Fatalf("callbacks %v, want one container-quota", calls)
	}
	if len(r.Findings) != 1 || r.Findings[0].Name != "container-quota" || r.Samples < 2 ||
		r.End.Before(r.Start) || r.Last.CPUQuota != 1 || r.Last.Time != r.End {
		t.Fatalf("report %+v", r)
	}
	if again := m.Stop(); again.Samples != r.Samples || len(again.Findings) != 1 {
		t.Fatalf("second Stop: %+v, first %+v", again, r)
	}
	if !strings.Contains(r.String(), "container-quota: GOMAXPROCS is 4 but the cgroup allows 1 CPU (/sys/fs/cgroup/app/cpu.max; NumCPU") {
		t.Fatalf("report text:\n%s", r)
	}
}

// TestMonitorEndsWithItsContext: a Monitor whose context ends takes a
// last sample and returns; Stop then only collects the report. goleak, in
// TestMain, fails the package if its goroutine outlived the test.
func TestMonitorEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := Start(ctx, WithInterval(time.Hour))
	cancel()
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the Monitor did not end with its context")
	}
	if r := m.Stop(); r.Samples != 2 {
		t.Fatalf("%d samples, want the first and the last", r.Samples)
	}
}

// TestMonitorCountsLockedGoroutines locks goroutines to threads in this
// process and checks that the Monitor, seeing the threads unexplained,
// counts them and reports pinned-threads.
func TestMonitorCountsLockedGoroutines(t *testing.T) {
	// Two Ps: the threads are compared with GOMAXPROCS, and an idle test
	// process under -cpu 8 need not have a thread for each of 8 Ps.
	setGOMAXPROCS(t, 2)
	const n = 6
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	for range n {
		ready.Add(1)
		done.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-release
		})
	}
	defer done.Wait()
	defer close(release)
	ready.Wait()
	if got := LockedGoroutines(); got != n {
		t.Errorf("LockedGoroutines() = %d, want %d", got, n)
	}
	found := make(chan Finding, 1)
	m := Start(context.Background(), WithInterval(2*time.Millisecond), WithWindow(3), WithThreadSlack(n/2), WithLockedGoroutines(n),
		WithOnFinding(func(f Finding) {
			if f.Name == "pinned-threads" {
				found <- f
			}
		}))
	defer m.Stop()
	select {
	case f := <-found:
		if !strings.Contains(f.Seen, "6 goroutines are locked to OS threads") {
			t.Errorf("finding: %s", f)
		}
	case <-time.After(10 * time.Second):
		r := m.Stop()
		t.Fatalf("no pinned-threads finding in 10 s; last sample %+v", r.Last)
	}
}

func TestCountLocked(t *testing.T) {
	dump := "goroutine 1 [running]:\nmain.main()\n\n" +
		"goroutine 7 [chan receive, locked to thread]:\nmain.worker()\n\n" +
		"goroutine 9 [running, locked to thread]:\n\n" +
		"goroutine 10 [select]:\n\tcalled from locked to thread]\n"
	if got := countLocked([]byte(dump)); got != 2 {
		t.Fatalf("countLocked = %d, want 2", got)
	}
}

func TestSampleReadsThisProcess(t *testing.T) {
	s := Sample()
	if s.GOMAXPROCS != runtime.GOMAXPROCS(0) || s.NumCPU != runtime.NumCPU() || s.Goroutines < 1 ||
		s.Threads < 1 || s.Runnable < 0 || s.NotInGo < 0 || s.Created < s.Goroutines || s.Locked != -1 ||
		len(s.Latencies.Buckets) != len(s.Latencies.Counts)+1 {
		t.Fatalf("%+v", s)
	}
	if runtime.GOOS == "linux" && s.CPUTime <= 0 {
		t.Fatalf("CPUTime %v on Linux", s.CPUTime)
	}
	// The counts are a copy: a later read must not change them.
	before := append([]uint64(nil), s.Latencies.Counts...)
	runtime.Gosched()
	Sample()
	for i := range before {
		if s.Latencies.Counts[i] != before[i] {
			t.Fatal("a later Sample changed an earlier one's histogram")
		}
	}
}

func TestLatencyQuantile(t *testing.T) {
	b := []float64{math.Inf(-1), 0, 1e-3, 1e-2, math.Inf(1)}
	snap := func(c ...uint64) Snapshot { return Snapshot{Latencies: metricsHist(b, c)} }
	prev, cur := snap(5, 5, 0, 0), snap(5, 95, 10, 1) // 90 in [0,1ms), 10 in [1ms,10ms), 1 over 10ms
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 0}, {0.89, 0}, {0.9, time.Millisecond}, {0.95, time.Millisecond}, {0.999, 10 * time.Millisecond}} {
		if got, n := latency(prev, cur, tc.q); got != tc.want || n != 101 {
			t.Errorf("q %v: %v over %d, want %v over 101", tc.q, got, n, tc.want)
		}
	}
	if got, n := latency(cur, prev, 0.99); got != 0 || n != 0 {
		t.Errorf("snapshots swapped: %v over %d", got, n)
	}
	if got, n := latency(snap(1, 2), cur, 0.99); got != 0 || n != 0 {
		t.Errorf("histograms that differ: %v over %d", got, n)
	}
	if got, n := latency(Snapshot{}, cur, 0.5); got != 0 || n != 111 {
		t.Errorf("from an empty snapshot (since the start): %v over %d", got, n)
	}
}

func TestOptionsRefuseNonsense(t *testing.T) {
	for name, f := range map[string]func(){
		"WithInterval(0)":         func() { WithInterval(0) },
		"WithWindow(1)":           func() { WithWindow(1) },
		"WithLatencyTail(-1, 0)":  func() { WithLatencyTail(-1, 0) },
		"WithGoroutineGrowth(0)":  func() { WithGoroutineGrowth(0) },
		"WithThreadSlack(-1)":     func() { WithThreadSlack(-1) },
		"WithLockedGoroutines(0)": func() { WithLockedGoroutines(0) },
		"WithCgoInFlight(0)":      func() { WithCgoInFlight(0) },
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), strings.Split(name, "(")[0]) {
					t.Errorf("%s: panic %v", name, p)
				}
			}()
			f()
		}()
	}
}

func metricsHist(buckets []float64, counts []uint64) metrics.Float64Histogram {
	return metrics.Float64Histogram{Buckets: buckets, Counts: counts}
}

// TestZeroMonitorStop: a Monitor that Start did not make never ran, so
// Stop returns an empty Report instead of panicking: its zero value, and
// a nil *Monitor, as a program that starts one only when asked holds.
func TestZeroMonitorStop(t *testing.T) {
	var m Monitor
	if r := m.Stop(); r.Samples != 0 || len(r.Findings) != 0 {
		t.Fatalf("Stop of a zero Monitor = %+v, want an empty Report", r)
	}
	var nilm *Monitor
	if r := nilm.Stop(); r.Samples != 0 || len(r.Findings) != 0 {
		t.Fatalf("Stop of a nil *Monitor = %+v, want an empty Report", r)
	}
}

// TestMonitorHugeWindow: WithWindow accepts any n >= 2, and a Monitor
// keeps only the samples it has taken, up to n: a window of math.MaxInt
// samples, which no program lives long enough to fill, must not make the
// Monitor allocate it up front (which panicked in its goroutine, ending
// the program, or ran out of memory).
func TestMonitorHugeWindow(t *testing.T) {
	for _, n := range []int{math.MaxInt, math.MaxInt32} {
		m := Start(context.Background(), WithWindow(n), WithInterval(time.Millisecond))
		time.Sleep(10 * time.Millisecond)
		if r := m.Stop(); r.Samples < 2 {
			t.Fatalf("WithWindow(%d): %d samples", n, r.Samples)
		}
	}
}
