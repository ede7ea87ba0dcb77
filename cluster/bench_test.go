package cluster

import (
	"context"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// benchCluster is three in-process workers (two slots each) on one
// embedded server with memory storage, and a client.
func benchCluster(b *testing.B, register func(*Worker), extra ...Option) *Client {
	e, err := natsserver.Start(natsserver.StoreDir(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Shutdown)
	opts := append([]Option{WithLease(time.Second), WithSlots(2)}, extra...)
	for _, n := range []string{"w1", "w2", "w3"} {
		nc, _ := e.Connect()
		b.Cleanup(nc.Close)
		w, err := NewWorker(nc, n, opts...)
		if err != nil {
			b.Fatal(err)
		}
		register(w)
		if err := w.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { w.Close() })
	}
	nc, _ := e.Connect()
	b.Cleanup(nc.Close)
	c, err := NewClient(context.Background(), nc, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func noop(context.Context, *Job) ([]byte, error) { return nil, nil }

func waitIdle(b *testing.B, c *Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitIdle(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSubmit: no-op jobs submitted by 8 goroutines to any worker, run
// and recorded; the time includes the final idle check.
func BenchmarkSubmit(b *testing.B) {
	c := benchCluster(b, func(w *Worker) { w.Handle("noop", noop) })
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < b.N; i += 8 {
				if err := c.Submit(context.Background(), "s"+strconv.Itoa(i), "noop", nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	waitIdle(b, c)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkSubmitBatch and BenchmarkSubmitBundle: no-op jobs submitted in
// calls of 100 by 8 goroutines, with SubmitBatch and with SubmitBundle;
// the time includes the final idle check.
func BenchmarkSubmitBatch(b *testing.B)  { benchBatches(b, (*Client).SubmitBatch) }
func BenchmarkSubmitBundle(b *testing.B) { benchBatches(b, (*Client).SubmitBundle) }

func benchBatches(b *testing.B, submit func(*Client, context.Context, []BatchJob, ...SubmitOption) error) {
	c := benchCluster(b, func(w *Worker) { w.Handle("noop", noop) })
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for from := g * 100; from < b.N; from += 800 {
				jobs := make([]BatchJob, 0, 100)
				for i := from; i < min(from+100, b.N); i++ {
					jobs = append(jobs, BatchJob{ID: "s" + strconv.Itoa(i), Type: "noop"})
				}
				if err := submit(c, context.Background(), jobs); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	waitIdle(b, c)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkSpawnSteal: one root job on w1 spawns b.N no-op children on its
// own deque; w2 and w3 steal. Measures spawn, steal and completion.
func BenchmarkSpawnSteal(b *testing.B) {
	var stolen sync.Map
	c := benchCluster(b, func(w *Worker) {
		w.Handle("noop", noop)
		w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
			n, _ := strconv.Atoi(string(j.Payload))
			for range n {
				if _, err := j.Spawn(ctx, "noop", nil); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		stolen.Store(w.name, w)
	})
	b.ResetTimer()
	if err := c.Submit(context.Background(), "root", "root", []byte(strconv.Itoa(b.N)), To("w1")); err != nil {
		b.Fatal(err)
	}
	waitIdle(b, c)
	b.StopTimer()
	var n int64
	stolen.Range(func(_, v any) bool { n += v.(*Worker).Stats().Stolen; return true })
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(n)/float64(b.N), "stolen/job")
}

// BenchmarkSpawnMemTree: each iteration one root on w1 spawns a binary
// tree of 16,383 jobs held in memory (WithSpawnRecords(false)), each
// spinning about 20 µs; w2 and w3 borrow. Measures what each in-memory
// child costs beyond its handler's work (spawn, deque, dispatch, slot
// hand-off, subtree accounting, loans), up to the root's completion.
// cpu-ns/job is this process's CPU (workers, server and client) per job,
// of which the handler's spin is 20,000; on a shared machine it moves
// less with the other load than ns/job does.
func BenchmarkSpawnMemTree(b *testing.B) {
	const depth = 13
	spin := func() {
		for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
		}
	}
	c := benchCluster(b, func(w *Worker) {
		w.Handle("node", func(ctx context.Context, j *Job) ([]byte, error) {
			spin()
			d, _ := strconv.Atoi(string(j.Payload))
			if d == 0 {
				return nil, nil
			}
			p := []byte(strconv.Itoa(d - 1))
			for range 2 {
				if _, err := j.Spawn(ctx, "node", p); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
	}, WithSpawnRecords(false))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		id := "root" + strconv.Itoa(i)
		if err := c.Submit(ctx, id, "node", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
			b.Fatal(err)
		}
		if r, err := c.Wait(ctx, id); err != nil || r.Err != nil {
			b.Fatal(err, r)
		}
	}
	b.StopTimer()
	jobs := float64(b.N) * (1<<(depth+1) - 1)
	b.ReportMetric(jobs/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/jobs, "ns/job")
	b.ReportMetric(float64(cpuTime()-cpu0)/jobs, "cpu-ns/job")
}

// cpuTime is the CPU time this process used so far (user and system).
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
