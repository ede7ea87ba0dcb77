// Package repro holds small programs that show scheduler pitfalls, and a
// healthy program under load, each run under a schedcheck.Monitor. The
// commands beside it (pinned, gomaxprocs1, unbounded, quota, healthy) run
// one each; the schedcheck tests run the same workloads in child
// processes and check what the Monitor reports.
package repro

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/worksteal/steal/schedcheck"
)

// Options are the Monitor settings every workload, the healthy one
// included, runs under: 20 samples a second, so that a run of a second or
// two fills several windows, and a goroutine growth threshold of 25 over a
// window. The default, 1000 over the 4 s that 5 samples a second apart
// span, is 250 a second, or 50 over the 0.2 s of 5 samples 50 ms apart;
// half that lets the crawler below show its growth even when other
// processes leave it a fifth of its CPUs. The other thresholds are the
// defaults.
func Options() []schedcheck.Option {
	return []schedcheck.Option{
		schedcheck.WithInterval(50 * time.Millisecond),
		schedcheck.WithGoroutineGrowth(25),
	}
}

// Workloads maps a name to the finding it should produce ("" for none) and
// the workload, which runs until ctx is done.
var Workloads = map[string]struct {
	Want string
	Run  func(ctx context.Context)
}{
	"pinned":      {"pinned-threads", pinned},
	"gomaxprocs1": {"gomaxprocs-one", gomaxprocsOne},
	"unbounded":   {"unbounded-goroutines", unbounded},
	"quota":       {"container-quota", pool},
	"healthy":     {"", pool},
}

// Names returns the workloads' names, sorted.
func Names() []string {
	var n []string
	for k := range Workloads {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Run runs the named workload under a Monitor for d, or, unless keepGoing,
// until the finding it should produce is reported (a workload that makes
// goroutines without bound should not run longer than it must), then
// writes the Monitor's report to out and returns it.
func Run(name string, d time.Duration, keepGoing bool, out io.Writer, opts ...schedcheck.Option) (schedcheck.Report, error) {
	wl, ok := Workloads[name]
	if !ok {
		return schedcheck.Report{}, fmt.Errorf("no workload %q (have %v)", name, Names())
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var once sync.Once
	found := func(f schedcheck.Finding) {
		if f.Name == wl.Want && !keepGoing {
			once.Do(cancel)
		}
	}
	opts = append(append(Options(), schedcheck.WithOnFinding(found)), opts...)
	m := schedcheck.Start(ctx, opts...)
	wl.Run(ctx)
	r := m.Stop()
	fmt.Fprintf(out, "%s: GOMAXPROCS %d, NumCPU %d, CPU quota %g (%s), %d threads, %d goroutines at the end\n",
		name, r.Last.GOMAXPROCS, r.Last.NumCPU, r.Last.CPUQuota, orNone(r.Last.QuotaFile), r.Last.Threads, r.Last.Goroutines)
	fmt.Fprintln(out, r)
	return r, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Main is the commands' main: it runs the named workload for -for (default
// 3s, less once the finding it should produce shows unless -keep-going)
// and exits 0.
func Main(name string) {
	d := flag.Duration("for", 3*time.Second, "run at most this long")
	keep := flag.Bool("keep-going", false, "run for the whole -for, not just until the expected finding shows")
	flag.Parse()
	if _, err := Run(name, *d, *keep, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// spin burns CPU for about d, without blocking, as a request's work.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
		for range 1000 {
		}
	}
}

// spinCtx is spin in 100 µs steps that stops early once ctx is done.
func spinCtx(ctx context.Context, d time.Duration) {
	for ; d > 0 && ctx.Err() == nil; d -= 100 * time.Microsecond {
		spin(100 * time.Microsecond)
	}
}

// pinned is a worker pool whose workers each lock their goroutine to an OS
// thread and serve their own channel: four workers per P. Most requests go
// to worker 0, so most workers sit blocked, each holding its thread.
func pinned(ctx context.Context) {
	n := 4 * runtime.GOMAXPROCS(0)
	reqs := make([]chan time.Duration, n)
	var wg sync.WaitGroup
	for i := range reqs {
		reqs[i] = make(chan time.Duration, 16)
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for d := range reqs[i] {
				spin(d)
			}
		})
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; ctx.Err() == nil; i++ {
		<-t.C
		w := 0
		if i%8 == 0 {
			w = i / 8 % n
		}
		select {
		case reqs[w] <- 200 * time.Microsecond:
		case <-ctx.Done():
		}
	}
	for _, c := range reqs {
		close(c)
	}
	wg.Wait()
}

// pool is the healthy shape: GOMAXPROCS workers serve requests from one
// channel, 50 µs of CPU each, sent by four clients per P that each wait
// for the reply to one before they send the next. The Ps are kept busy,
// the work in flight is bounded by the clients, and every request wakes
// a client, tens of thousands of times a second, which gives the latency
// histogram plenty to measure.
func pool(ctx context.Context) {
	procs := runtime.GOMAXPROCS(0)
	type request struct{ reply chan struct{} }
	work := make(chan request)
	var workers, clients sync.WaitGroup
	for range procs {
		workers.Go(func() {
			for r := range work {
				spin(50 * time.Microsecond)
				r.reply <- struct{}{}
			}
		})
	}
	for range 4 * procs {
		clients.Go(func() {
			r := request{make(chan struct{})}
			for ctx.Err() == nil {
				work <- r
				<-r.reply
			}
		})
	}
	clients.Wait()
	close(work)
	workers.Wait()
}

// gomaxprocsOne is the healthy pool after runtime.GOMAXPROCS(1).
func gomaxprocsOne(ctx context.Context) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pool(ctx)
}

// unbounded is a crawler that starts a goroutine for every link it finds,
// with no bound: each page takes 200 µs of CPU and links to one page,
// every tenth page to two, so every page finished leaves a tenth of a
// goroutine more behind it, and the goroutine count grows at a tenth of
// the rate the Ps finish pages, whatever that rate is: about 1000 a second
// on 2 CPUs.
//
// It stops starting goroutines at 150 live per P, which at full speed is
// about six samples of growth. Past the 256 slots of a P's run queue, half
// of it moves to the global run queue, which a P looks at once every 61
// schedules while its own queue has work (proc.go, findRunnable), and a
// goroutine woken by a timer, such as the Monitor's, is displaced from
// runnext by the next go statement: with 250 live per P, in a build
// without the race detector, the Monitor, moved to the global queue
// behind the backlog, went without a sample for the whole 5 s of a test
// run. Once ctx is done the pages left skip their work, so that the
// backlog drains in milliseconds.
func unbounded(ctx context.Context) {
	maxLive := 150 * runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var pages atomic.Int64
	var crawl func()
	crawl = func() {
		links := 1
		if pages.Add(1)%10 == 0 {
			links = 2
		}
		for range links {
			if ctx.Err() != nil || runtime.NumGoroutine() >= maxLive {
				break
			}
			wg.Go(crawl)
		}
		spinCtx(ctx, 200*time.Microsecond)
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Go(crawl)
	}
	<-ctx.Done()
	wg.Wait()
}
