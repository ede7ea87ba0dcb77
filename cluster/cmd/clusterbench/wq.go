package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal/cluster/natsserver"
)

// steal-wq measures a record layout the cluster package does not have: a
// job is one message that a worker's consumer takes and acknowledges, as
// a central queue's is, and a steal is a fetch from another worker's
// consumer. It is a prototype, run only when -designs names it: no
// fencing, no idle check, no loans, and nothing takes over the jobs of a
// worker that is gone.
//
//   - One work-queue stream (memory storage) holds every queued job, on
//     the subject wq.<partition>.<id>; each worker owns a partition and
//     its durable pull consumer (filter wq.<partition>.>). A submission
//     is one publish, deduplicated by the job's id; the server's answer
//     is its only reply.
//   - A worker long-polls its own partition for up to wqOwnFetch jobs at
//     a time, so that the rest stay there for thieves. While more wait
//     (the delivered message's pending count says so), it publishes a
//     hint, on core NATS, at most every wqHintEvery. A worker with none of
//     its own fetches up to wqFetch jobs from a hinted partition, and from
//     it again while it gets a full batch: the server hands out each
//     message once, so it arbitrates between owner and thieves as a
//     deque's compare-and-swap does.
//   - A completion is one create-only write of wd.<id> to a ledger stream
//     (Nats-Expected-Last-Subject-Sequence: 0), published asynchronously;
//     once the server has stored it, and the job's children, the job is
//     acknowledged (the ack expects no answer). So one completion is
//     recorded per id. A job whose worker dies before its ack is delivered
//     again after AckWait to the next fetch from its partition (in this
//     prototype, by a worker of the same name started again: thieves find
//     a partition only by its owner's hints), and its second ledger write
//     is refused. A submission is refused as a duplicate only within the
//     duplicate window, and never for an id already completed.
//   - A job's children are published to the spawning worker's own
//     partition.
//
// steal-wq-streams is the same with a stream for each partition (WQ_<p>,
// created by its worker) instead of one for all: no lock, store or
// ordering of the queued jobs is shared between workers.
const (
	wqStream      = "WQ"
	wqLedger      = "WD"
	wqFetch       = 16
	wqOwnFetch    = 4
	wqHintEvery   = time.Millisecond
	wqHintSubject = "wqhint" // outside the stream's subjects
	wqAckWaitJS   = 30 * time.Second
)

// wqSystem is the submitter's side and, in-process, the workers.
type wqSystem struct {
	jsBase
	stole atomic.Int64
	deal  atomic.Uint64
	parts []string // the submitter's list of partitions, read once (under mu)
	// streams: a stream for each partition (steal-wq-streams).
	streams bool
}

func wqDesign(name string, streams bool) design {
	return design{Name: name, Mode: modeInProcess,
		make: func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error) {
			return newWQSystem(e, wl, gate, streams)
		},
		workers: func(dial dialer, wl workload, gate <-chan struct{}, onDone func()) system {
			s := newWQWorkers(dial, wl, gate, streams)
			s.onDone = onDone
			return s
		}}
}

func newWQSystem(e *natsserver.Server, wl workload, gate <-chan struct{}, streams bool) (*wqSystem, error) {
	s := newWQWorkers(inProcess(e), wl, gate, streams)
	cfgs := []jetstream.StreamConfig{{Name: wqLedger, Subjects: []string{"wd.>"}, Storage: jetstream.MemoryStorage}}
	if !streams {
		cfgs = append(cfgs, wqStreamConfig(wqStream, "wq.>"))
	}
	if err := s.submitter(e, cfgs...); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func newWQWorkers(dial dialer, wl workload, gate <-chan struct{}, streams bool) *wqSystem {
	s := &wqSystem{streams: streams}
	s.init(dial, wl, gate)
	return s
}

func wqStreamConfig(name, subject string) jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage}
}

// stream is the name of the stream that holds partition p's jobs.
func (s *wqSystem) stream(p string) string {
	if s.streams {
		return wqStream + "_" + p
	}
	return wqStream
}

func wqPart(i int) string { return "p" + strconv.Itoa(i) }

func (s *wqSystem) start(ctx context.Context, from, to int) error {
	for i := from; i < to; i++ {
		nc, js, err := s.workerConn()
		if err != nil {
			return err
		}
		me := wqPart(i)
		if s.streams {
			if _, err := js.CreateOrUpdateStream(ctx, wqStreamConfig(s.stream(me), "wq."+me+".>")); err != nil {
				return err
			}
		}
		own, err := js.CreateOrUpdateConsumer(ctx, s.stream(me), jetstream.ConsumerConfig{
			Durable: me, FilterSubject: "wq." + me + ".>", AckPolicy: jetstream.AckExplicitPolicy, AckWait: wqAckWaitJS,
		})
		if err != nil {
			return err
		}
		w := &wqWorker{s: s, nc: nc, js: js, me: me, own: own, mine: make(chan jetstream.Msg),
			hints: make(chan string, 1), acks: make(chan pendingAck, 4*wqFetch)}
		if _, err := nc.QueueSubscribe(wqHintSubject, "thieves", func(m *nats.Msg) {
			select {
			case w.hints <- string(m.Data):
			default:
			}
		}); err != nil {
			return err
		}
		s.wg.Go(w.acker)
		s.wg.Go(w.fetcher)
		s.wg.Go(w.loop)
	}
	return nil
}

// wqWorker is one worker of one slot: a fetcher goroutine long-polls its
// own partition (up to wqOwnFetch jobs held at once, so that the rest stay
// stealable), the runner runs them, and steals when it has none.
type wqWorker struct {
	s       *wqSystem
	nc      *nats.Conn
	js      jetstream.JetStream
	me      string
	own     jetstream.Consumer
	mine    chan jetstream.Msg // from the fetcher
	hints   chan string        // partitions with jobs to spare
	acks    chan pendingAck
	victims map[string]jetstream.Consumer
	hinted  time.Time // when this worker last published a hint
}

func (w *wqWorker) fetcher() {
	for w.s.ctx.Err() == nil {
		// The long poll ends with the system: close waits for it.
		ctx, cancel := context.WithTimeout(w.s.ctx, fetchWait)
		b, err := w.own.Fetch(wqOwnFetch, jetstream.FetchContext(ctx))
		if err != nil {
			cancel()
			w.s.pause()
			continue
		}
		for m := range b.Messages() {
			select {
			case w.mine <- m:
			case <-w.s.ctx.Done():
			}
		}
		cancel()
	}
}

// loop runs this worker's own jobs first; with none ready, it steals from
// the victim of its last fruitful steal, else waits for its own or a hint.
func (w *wqWorker) loop() {
	last := ""
	for w.s.ctx.Err() == nil {
		select {
		case m := <-w.mine:
			w.runOwn(m)
			continue
		default:
		}
		if last != "" {
			if w.steal(last) < wqFetch {
				last = ""
			}
			continue
		}
		select {
		case m := <-w.mine:
			w.runOwn(m)
		case v := <-w.hints:
			if v != w.me && w.steal(v) > 0 {
				last = v
			}
		case <-w.s.ctx.Done():
		}
	}
}

// runOwn runs m, a job of this worker's partition, and hints that jobs
// are to spare when more wait there (at most once per wqHintEvery).
func (w *wqWorker) runOwn(m jetstream.Msg) {
	if md, err := m.Metadata(); err == nil && md.NumPending > 0 && time.Since(w.hinted) >= wqHintEvery {
		w.hinted = time.Now()
		w.nc.Publish(wqHintSubject, []byte(w.me))
	}
	w.run(m)
}

// steal fetches up to wqFetch jobs from v's partition at once and runs
// them; it returns how many there were.
func (w *wqWorker) steal(v string) int {
	c, err := w.victim(v)
	if err != nil {
		return 0
	}
	b, err := c.FetchNoWait(wqFetch)
	if err != nil {
		return 0
	}
	return w.runAll(b)
}

func (w *wqWorker) victim(p string) (jetstream.Consumer, error) {
	if c, ok := w.victims[p]; ok {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(w.s.ctx, fetchWait)
	defer cancel()
	c, err := w.js.Consumer(ctx, w.s.stream(p), p)
	if err != nil {
		return nil, err
	}
	if w.victims == nil {
		w.victims = map[string]jetstream.Consumer{}
	}
	w.victims[p] = c
	return c, nil
}

// listParts lists the partitions: the consumers of the one stream, or
// with a stream each, the streams' names.
func (s *wqSystem) listParts(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchWait)
	defer cancel()
	if s.streams {
		var out []string
		l := s.js.StreamNames(ctx)
		for n := range l.Name() {
			if p, ok := strings.CutPrefix(n, wqStream+"_"); ok {
				out = append(out, p)
			}
		}
		return out, l.Err()
	}
	st, err := s.js.Stream(ctx, wqStream)
	if err != nil {
		return nil, err
	}
	var out []string
	l := st.ConsumerNames(ctx)
	for n := range l.Name() {
		out = append(out, n)
	}
	return out, l.Err()
}

// runAll runs the stolen jobs of b one by one.
func (w *wqWorker) runAll(b jetstream.MessageBatch) int {
	n := 0
	for m := range b.Messages() {
		n++
		w.s.stole.Add(1)
		if !w.run(m) {
			m.Nak() // and the rest of b: delivered again at once, not after AckWait
			for m := range b.Messages() {
				m.Nak()
			}
			break
		}
	}
	return n
}

// run runs one job: its work, its children published to this worker's
// partition, its ledger write; the acker acknowledges it once all of them
// are stored.
func (w *wqWorker) run(m jetstream.Msg) bool {
	select {
	case <-w.s.gate:
	case <-w.s.ctx.Done():
		return false
	}
	id := wqID(m.Subject())
	d := parseDepth(m.Data())
	w.s.wl.work()
	var futs []jetstream.PubAckFuture
	for k := range w.s.wl.children(d) {
		cid := id + "." + strconv.Itoa(k)
		f, err := w.js.PublishAsync("wq."+w.me+"."+cid, depthPayload(d-1), jetstream.WithMsgID(cid))
		if err != nil {
			return false
		}
		futs = append(futs, f)
	}
	f, err := w.js.PublishAsync("wd."+id, nil, jetstream.WithExpectLastSequencePerSubject(0))
	if err != nil {
		return false
	}
	select {
	case w.acks <- pendingAck{m: m, futs: append(futs, f)}:
		return true
	case <-w.s.ctx.Done():
		return false
	}
}

// wqID is the job id of a subject wq.<partition>.<id>.
func wqID(subj string) string {
	_, rest, _ := strings.Cut(strings.TrimPrefix(subj, "wq."), ".")
	return rest
}

// acker acknowledges each job that has run once its writes are stored
// (ackStored).
func (w *wqWorker) acker() { ackStored(w.s.ctx, w.acks, &w.s.done, w.s.onDone) }

// submit publishes one job to a partition, dealt round (first: the first
// partition), deduplicated by its id.
func (s *wqSystem) submit(ctx context.Context, id string, payload []byte, first bool) error {
	p, err := s.partition(ctx, first)
	if err != nil {
		return err
	}
	_, err = s.js.Publish(ctx, "wq."+p+"."+id, payload, jetstream.WithMsgID(id))
	return err
}

// submitBatch publishes the jobs with PublishAsync to one partition, dealt
// round, and awaits every ack.
func (s *wqSystem) submitBatch(ctx context.Context, ids []string, payload []byte) error {
	p, err := s.partition(ctx, false)
	if err != nil {
		return err
	}
	futs := make([]jetstream.PubAckFuture, 0, len(ids))
	for _, id := range ids {
		f, err := s.js.PublishAsync("wq."+p+"."+id, payload, jetstream.WithMsgID(id))
		if err != nil {
			return err
		}
		futs = append(futs, f)
	}
	return awaitAcks(ctx, futs)
}

func (s *wqSystem) partition(ctx context.Context, first bool) (string, error) {
	if first {
		return wqPart(0), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parts == nil {
		ps, err := s.listParts(ctx)
		if err != nil {
			return "", err
		}
		if len(ps) == 0 {
			return "", errors.New("steal-wq: no partitions")
		}
		s.parts = ps
	}
	return s.parts[s.deal.Add(1)%uint64(len(s.parts))], nil
}

// pause waits a little after a failed Fetch, unless the system closes.
func (s *wqSystem) pause() {
	select {
	case <-s.ctx.Done():
	case <-time.After(10 * time.Millisecond):
	}
}

func (s *wqSystem) stolen() int64 { return s.stole.Load() }
