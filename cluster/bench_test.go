package cluster

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// benchCluster is three in-process workers (two slots each) on one
// embedded server with memory storage, and a client.
func benchCluster(b *testing.B, register func(*Worker)) *Client {
	e, err := natsserver.Start(natsserver.StoreDir(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Shutdown)
	opts := []Option{WithLease(time.Second), WithSlots(2)}
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
