package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// clusterName keeps the benchmark's subjects and buckets apart.
const clusterName = "bench"

// distSystem is the cluster package's workers: one deque each, one slot,
// stealing by mode (StealOff: jobs stay where they were placed).
type distSystem struct {
	dial    dialer
	opts    []cluster.Option
	wl      workload
	gate    <-chan struct{}
	onDone  func() // when set, called each time a handler returns
	client  *cluster.Client
	late    atomic.Int64 // see lateSubmits
	bundles bool         // submitBatch calls Client.SubmitBundle
	mu      sync.Mutex
	workers []*cluster.Worker
	conns   []*nats.Conn
}

func newDistSystem(e *natsserver.Server, m cluster.StealMode, wl workload, gate <-chan struct{}, lease time.Duration, opts ...cluster.Option) (*distSystem, error) {
	s := newDistWorkers(inProcess(e), m, wl, gate, lease, opts...)
	nc, err := s.connect("client")
	if err != nil {
		return nil, err
	}
	s.client, err = cluster.NewClient(context.Background(), nc, s.opts...)
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// newDistWorkers is the workers' side alone, without a client: what a
// worker process runs. Its connections come from dial.
func newDistWorkers(dial dialer, m cluster.StealMode, wl workload, gate <-chan struct{}, lease time.Duration, opts ...cluster.Option) *distSystem {
	return &distSystem{dial: dial, wl: wl, gate: gate, opts: append([]cluster.Option{
		cluster.WithCluster(clusterName), cluster.WithSlots(1), cluster.WithStealMode(m), cluster.WithLease(lease)}, opts...)}
}

// connect opens a connection whose replies come to inboxes under
// _BI.<name>, so that the steal observer can follow them.
func (s *distSystem) connect(name string) (*nats.Conn, error) {
	nc, err := s.dial(nats.CustomInboxPrefix(inboxRoot + "." + name))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conns = append(s.conns, nc)
	s.mu.Unlock()
	return nc, nil
}

func workerName(i int) string { return "w" + strconv.Itoa(i) }

func (s *distSystem) start(ctx context.Context, from, to int) error {
	for i := from; i < to; i++ {
		nc, err := s.connect(workerName(i))
		if err != nil {
			return err
		}
		w, err := cluster.NewWorker(nc, workerName(i), s.opts...)
		if err != nil {
			return err
		}
		w.Handle("job", s.handle)
		if err := w.Start(ctx); err != nil {
			return err
		}
		s.mu.Lock()
		s.workers = append(s.workers, w)
		s.mu.Unlock()
	}
	return nil
}

// handle waits for the gate, does the job's work and spawns its children
// on this worker's own deque.
func (s *distSystem) handle(ctx context.Context, j *cluster.Job) ([]byte, error) {
	if s.onDone != nil {
		defer s.onDone()
	}
	<-s.gate
	s.wl.work()
	d := parseDepth(j.Payload)
	for range s.wl.children(d) {
		if _, err := j.Spawn(ctx, "job", depthPayload(d-1)); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *distSystem) submit(ctx context.Context, id string, payload []byte, first bool) error {
	var opts []cluster.SubmitOption
	if first {
		opts = append(opts, cluster.To(workerName(0)))
	}
	err := s.client.Submit(ctx, id, "job", payload, opts...)
	if errors.Is(err, cluster.ErrMaybeStored) {
		// The job is stored: an attempt's answer came too late and its
		// retry was refused as a duplicate. It runs like any other.
		s.late.Add(1)
		return nil
	}
	return err
}

// submitBatch submits the jobs with one Client.SubmitBatch (SubmitBundle
// with bundles set): one request
// per bundle to a worker the servers pick, whose records are stored in
// one atomic batch. A job stored by an attempt whose answer was lost
// (ErrMaybeStored) counts as submitted, as in submit.
func (s *distSystem) submitBatch(ctx context.Context, ids []string, payload []byte) error {
	jobs := make([]cluster.BatchJob, len(ids))
	for i, id := range ids {
		jobs[i] = cluster.BatchJob{ID: id, Type: "job", Payload: payload}
	}
	submit := s.client.SubmitBatch
	if s.bundles {
		submit = s.client.SubmitBundle
	}
	err := submit(ctx, jobs)
	var be *cluster.BatchError
	if !errors.As(err, &be) {
		return err
	}
	for i, e := range be.Errs {
		switch {
		case e == nil:
		case errors.Is(e, cluster.ErrMaybeStored):
			s.late.Add(1)
		default:
			return fmt.Errorf("%s: %w", ids[i], e)
		}
	}
	return nil
}

// lateSubmits counts the submissions that returned cluster.ErrMaybeStored.
func (s *distSystem) lateSubmits() int64 { return s.late.Load() }

func (s *distSystem) sum(f func(cluster.WorkerStats) int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, w := range s.workers {
		n += f(w.Stats())
	}
	return n
}

// completed counts recorded completions and runs of in-memory jobs: a
// root of an in-memory tree is recorded only once its tree has run, so
// the count reaches the workload's total when the last root is recorded.
func (s *distSystem) completed() int64 {
	return s.sum(func(st cluster.WorkerStats) int64 { return st.Completed + st.MemRuns })
}

func (s *distSystem) stolen() int64 {
	return s.sum(func(st cluster.WorkerStats) int64 { return st.Stolen })
}

// close closes the workers in parallel, then the connections.
func (s *distSystem) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Go(func() { w.Close() })
	}
	wg.Wait()
	for _, nc := range s.conns {
		nc.Close()
	}
}
