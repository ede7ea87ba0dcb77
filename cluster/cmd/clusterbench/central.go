package main

import (
	"context"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal"
	"github.com/worksteal/steal/cluster/natsserver"
)

// The central queue is what a user would build with JetStream alone: one
// work-queue stream (a message is deleted once acknowledged) with memory
// storage, and one durable pull consumer shared by every worker.
const (
	queueStream   = "CQ"
	queueSubject  = "cq.jobs"
	queueConsumer = "workers"
	fetchWait     = time.Second // how long one Fetch waits for messages
)

// centralSystem: each worker loops Fetch(k), runs the jobs it got one by
// one, publishes their children back to the stream (a synchronous publish,
// so a child is stored before its parent is acknowledged) and acknowledges
// each job. Acks are the client's plain Ack, which the server does not
// confirm; completions are counted when Ack returns.
type centralSystem struct {
	jsBase
	k     int
	kind  centralKind
	fetch []time.Duration // time to the first message of each Fetch that got one
	pools []*steal.Pool   // centralLocal: each worker's own
	onMsg func(jetstream.Msg)
}

// centralKind is how a central worker runs a job's children.
type centralKind int

const (
	// centralSync publishes each child with a synchronous Publish (the
	// server's ack awaited before the next), then acknowledges the job.
	centralSync centralKind = iota
	// centralAsync publishes every child with PublishAsync, awaits all
	// their acks, then acknowledges the job: no round trip per child, but
	// one per job with children, during which the worker waits.
	centralAsync
	// centralLocal runs a fetched job's whole subtree in the worker's own
	// steal.Pool (one worker, so one job at a time, as every design here),
	// publishing nothing, and acknowledges the job once the subtree is
	// done: local stealing alone, no balancing between workers.
	centralLocal
	// centralLedger is centralAsync that also records each job's
	// completion, as the cluster package does, under the job message's
	// stream sequence (these jobs carry no id): a create-only write of
	// cd.<sequence> to a ledger stream, published asynchronously.
	// The worker runs its next job at once; an acker goroutine of its own
	// acknowledges the job once that write and its children are stored.
	// It shows what a central queue pays for one recorded completion per
	// job.
	centralLedger
	// centralPipelined is centralLedger without the ledger: children
	// published asynchronously, the next job run at once, the job
	// acknowledged by the acker once its children are stored. The
	// strongest durable central queue measured here: no worker waits for
	// the server between jobs.
	centralPipelined
)

// The ledger of centralLedger.
const (
	ledgerStream  = "CD"
	ledgerSubject = "cd."
)

func newCentralSystem(e *natsserver.Server, k int, kind centralKind, wl workload, gate <-chan struct{}, ackWait time.Duration) (*centralSystem, error) {
	s := newCentralWorkers(inProcess(e), k, kind, wl, gate)
	streams := []jetstream.StreamConfig{{Name: queueStream, Subjects: []string{queueSubject},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage}}
	if kind == centralLedger {
		streams = append(streams, jetstream.StreamConfig{Name: ledgerStream, Subjects: []string{ledgerSubject + ">"},
			Storage: jetstream.MemoryStorage})
	}
	err := s.submitter(e, streams...)
	if err == nil {
		err = s.consumer(ackWait)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// newCentralWorkers is the workers' side alone, without the stream or a
// submitting connection: what a worker process runs. Its connections come
// from dial.
func newCentralWorkers(dial dialer, k int, kind centralKind, wl workload, gate <-chan struct{}) *centralSystem {
	s := &centralSystem{k: k, kind: kind}
	s.init(dial, wl, gate)
	return s
}

// consumer creates the durable consumer every worker fetches from.
func (s *centralSystem) consumer(ackWait time.Duration) error {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	_, err := s.js.CreateOrUpdateConsumer(ctx, queueStream, jetstream.ConsumerConfig{
		Durable: queueConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
	})
	return err
}

func (s *centralSystem) start(ctx context.Context, from, to int) error {
	for range to - from {
		_, js, err := s.workerConn()
		if err != nil {
			return err
		}
		cons, err := js.Consumer(ctx, queueStream, queueConsumer)
		if err != nil {
			return err
		}
		var pool *steal.Pool
		if s.kind == centralLocal {
			pool = steal.New(steal.WithWorkers(1))
			s.mu.Lock()
			s.pools = append(s.pools, pool)
			s.mu.Unlock()
		}
		var acks chan pendingAck
		if s.pipelined() {
			acks = make(chan pendingAck, 4*s.k)
			s.wg.Go(func() { ackStored(s.ctx, acks, &s.done, s.onDone) })
		}
		s.wg.Go(func() { s.loop(js, cons, pool, acks) })
	}
	return nil
}

// loop is one worker: fetch up to k jobs, run each as it arrives.
func (s *centralSystem) loop(js jetstream.JetStream, cons jetstream.Consumer, pool *steal.Pool, acks chan<- pendingAck) {
	for s.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(s.ctx, fetchWait)
		t0 := time.Now()
		batch, err := cons.Fetch(s.k, jetstream.FetchContext(ctx))
		if err != nil {
			cancel()
			s.pause()
			continue
		}
		first := true
		for m := range batch.Messages() {
			if first {
				s.noteFetch(time.Since(t0))
				first = false
			}
			s.run(js, m, pool, acks)
		}
		cancel()
	}
}

// pause waits a little after a failed Fetch, unless the system closes.
func (s *centralSystem) pause() {
	select {
	case <-s.ctx.Done():
	case <-time.After(10 * time.Millisecond):
	}
}

func (s *centralSystem) noteFetch(d time.Duration) {
	s.mu.Lock()
	s.fetch = append(s.fetch, d)
	s.mu.Unlock()
}

// pipelined reports whether s's workers hand their jobs' acks to an
// acker and run the next job at once.
func (s *centralSystem) pipelined() bool {
	return s.kind == centralLedger || s.kind == centralPipelined
}

// run runs one job: its work, its children published to the stream (or,
// centralLocal, its subtree run on pool), then its Ack (centralLedger and
// centralPipelined: hands it to acks, whose acker acknowledges it).
func (s *centralSystem) run(js jetstream.JetStream, m jetstream.Msg, pool *steal.Pool, acks chan<- pendingAck) {
	select {
	case <-s.gate:
	case <-s.ctx.Done():
		return
	}
	if s.onMsg != nil {
		s.onMsg(m)
	}
	d := parseDepth(m.Data())
	switch s.kind {
	case centralLocal:
		if err := pool.Run(func(w *steal.Worker) { s.subtree(w, d) }); err != nil {
			return
		}
	case centralLedger, centralPipelined:
		s.wl.work()
		futs, ok := s.publishAsync(js, m, d)
		if !ok {
			return
		}
		select {
		case acks <- pendingAck{m: m, futs: futs}:
		case <-s.ctx.Done():
		}
		return // the acker acknowledges it and counts it done
	case centralAsync:
		s.wl.work()
		futs, ok := s.publishAsync(js, m, d)
		if !ok || !allStored(s.ctx, futs) {
			return
		}
	default:
		s.wl.work()
		for range s.wl.children(d) {
			if _, err := js.Publish(s.ctx, queueSubject, depthPayload(d-1)); err != nil {
				return // not acknowledged: the job is delivered again
			}
		}
	}
	if m.Ack() == nil {
		s.done.Add(1)
	}
	if s.onDone != nil {
		s.onDone()
	}
}

// publishAsync publishes the children of m, a job of payload d, at once
// (centralLedger: and its completion) and returns their acks to come.
func (s *centralSystem) publishAsync(js jetstream.JetStream, m jetstream.Msg, d int) ([]jetstream.PubAckFuture, bool) {
	n := s.wl.children(d)
	futs := make([]jetstream.PubAckFuture, 0, n+1)
	for range n {
		f, err := js.PublishAsync(queueSubject, depthPayload(d-1))
		if err != nil {
			return nil, false
		}
		futs = append(futs, f)
	}
	if s.kind == centralLedger {
		md, err := m.Metadata()
		if err != nil {
			return nil, false
		}
		f, err := js.PublishAsync(ledgerSubject+strconv.FormatUint(md.Sequence.Stream, 10), nil,
			jetstream.WithExpectLastSequencePerSubject(0))
		if err != nil {
			return nil, false
		}
		futs = append(futs, f)
	}
	return futs, true
}

// subtree runs the job of payload d and then, depth-first on w's pool,
// its children and theirs; each job but the fetched root is counted done
// when its own work is (the root when its Ack returns).
func (s *centralSystem) subtree(w *steal.Worker, d int) {
	s.wl.work()
	n := s.wl.children(d)
	if n == 0 {
		return
	}
	g := steal.NewGroup(w)
	for range n {
		g.Go(func(w *steal.Worker) error {
			s.subtree(w, d-1)
			s.done.Add(1)
			if s.onDone != nil {
				s.onDone()
			}
			return nil
		})
	}
	g.Wait()
}

func (s *centralSystem) submit(ctx context.Context, _ string, payload []byte, _ bool) error {
	_, err := s.js.Publish(ctx, queueSubject, payload)
	return err
}

// submitBatch publishes the jobs with PublishAsync and awaits every ack:
// the central queue's batch submission, one message and one ack a job as
// with submit, without a round trip each.
func (s *centralSystem) submitBatch(ctx context.Context, ids []string, payload []byte) error {
	futs := make([]jetstream.PubAckFuture, 0, len(ids))
	for range ids {
		f, err := s.js.PublishAsync(queueSubject, payload)
		if err != nil {
			return err
		}
		futs = append(futs, f)
	}
	return awaitAcks(ctx, futs)
}

func (s *centralSystem) stolen() int64 { return 0 }

// fetchTimes returns the recorded Fetch latencies.
func (s *centralSystem) fetchTimes() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.fetch...)
}

func (s *centralSystem) close() {
	s.jsBase.close()
	s.mu.Lock()
	for _, p := range s.pools {
		p.Close()
	}
	s.mu.Unlock()
}
