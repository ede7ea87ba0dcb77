package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// A system is one design under test, running on one embedded server for
// one trial. Every worker runs one job at a time, so W workers run at most
// W jobs at once in every design.
type system interface {
	// start starts workers from..to-1.
	start(ctx context.Context, from, to int) error
	// submit queues one job; first puts it on the first worker where the
	// design has worker queues.
	submit(ctx context.Context, id string, payload []byte, first bool) error
	// submitBatch queues jobs ids, each with payload, in one batch call,
	// to any worker.
	submitBatch(ctx context.Context, ids []string, payload []byte) error
	// completed counts the recorded completions so far.
	completed() int64
	// stolen counts jobs moved by steals so far (0 for a central queue).
	stolen() int64
	close()
}

// A dialer opens a connection to the trial's server: in-process, or over
// loopback TCP from a worker process.
type dialer func(opts ...nats.Option) (*nats.Conn, error)

func inProcess(e *natsserver.Server) dialer { return e.Connect }

func overTCP(url string) dialer {
	return func(opts ...nats.Option) (*nats.Conn, error) { return nats.Connect(url, opts...) }
}

// jsBase is what the designs built on JetStream alone (the central queues
// and steal-wq) share: the workload, the gate, the submitter's connection
// (when the system submits), the workers' connections, and the count of
// completed jobs.
type jsBase struct {
	dial   dialer
	wl     workload
	gate   <-chan struct{}
	nc     *nats.Conn // the submitter's; nil in a worker process
	js     jetstream.JetStream
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   atomic.Int64
	mu     sync.Mutex
	conns  []*nats.Conn
	onDone func() // when set, called each time a job has run
}

func (b *jsBase) init(dial dialer, wl workload, gate <-chan struct{}) {
	b.dial, b.wl, b.gate = dial, wl, gate
	b.ctx, b.cancel = context.WithCancel(context.Background())
}

// submitter connects the submitting side to e, and creates streams.
func (b *jsBase) submitter(e *natsserver.Server, streams ...jetstream.StreamConfig) error {
	nc, err := e.Connect()
	if err != nil {
		return err
	}
	b.nc = nc
	if b.js, err = jetstream.New(nc); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	for _, c := range streams {
		if _, err := b.js.CreateOrUpdateStream(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// workerConn opens a worker's connection, kept for close, and returns it
// with its JetStream context.
func (b *jsBase) workerConn() (*nats.Conn, jetstream.JetStream, error) {
	nc, err := b.dial()
	if err != nil {
		return nil, nil, err
	}
	b.mu.Lock()
	b.conns = append(b.conns, nc)
	b.mu.Unlock()
	js, err := jetstream.New(nc)
	return nc, js, err
}

func (b *jsBase) completed() int64 { return b.done.Load() }

// close stops the workers, waits for their goroutines and closes every
// connection.
func (b *jsBase) close() {
	b.cancel()
	b.wg.Wait()
	b.mu.Lock()
	for _, nc := range b.conns {
		nc.Close()
	}
	b.mu.Unlock()
	if b.nc != nil {
		b.nc.Close()
	}
}

// A design names a system and how to build one: make builds the whole
// system on the trial's server (its workers in this process); workers
// builds the workers' side alone, which is what a worker process runs.
type design struct {
	Name      string
	Mode      string // modeInProcess or modeProcesses
	BatchOnly bool   // runs only the workloads submitted in batches (elsewhere it is another design)
	make      func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error)
	workers   func(dial dialer, wl workload, gate <-chan struct{}, onDone func()) system
}

// Where a design's workers run: goroutines of this process, each on its
// own in-process connection, or one child process each (-procs).
const (
	modeInProcess = "in-process"
	modeProcesses = "processes"
)

// the cluster package's default lease, and JetStream's default AckWait.
const (
	distLease   = 3 * time.Second
	centralWait = 30 * time.Second
)

// designs lists the designs compared, in the order tables show them, with
// their workers in this process.
func designs(fetchK int) []design {
	return []design{
		distDesign("steal", cluster.StealHalf),
		distDesign("steal-mem", cluster.StealHalf, cluster.WithSpawnRecords(false)),
		distDesign("steal-one", cluster.StealOne),
		distDesign("no-steal", cluster.StealOff),
		centralDesign(1),
		centralDesign(fetchK),
	}
}

func distDesign(name string, m cluster.StealMode, opts ...cluster.Option) design {
	return design{Name: name, Mode: modeInProcess,
		make: func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error) {
			return newDistSystem(e, m, wl, gate, distLease, opts...)
		},
		workers: func(dial dialer, wl workload, gate <-chan struct{}, onDone func()) system {
			s := newDistWorkers(dial, m, wl, gate, distLease, opts...)
			s.onDone = onDone
			return s
		}}
}

// bundleDesign is d with its batches submitted by Client.SubmitBundle
// instead of SubmitBatch; the rest is d's, so it runs only the workloads
// submitted in batches.
func bundleDesign(d design) design {
	d.BatchOnly = true
	mk := d.make
	d.make = func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error) {
		s, err := mk(e, wl, gate)
		if ds, ok := s.(*distSystem); ok {
			ds.bundles = true
		}
		return s, err
	}
	return d
}

func centralDesign(k int) design {
	return centralVariant(fmt.Sprintf("central-f%d", k), k, centralSync)
}

// compareDesigns adds to designs those of the comparison (-compare):
// steal-bundle, steal with its batches submitted as bundles, two further
// central queues: central-async, Fetch(fetchK) with children published
// asynchronously, and central-local, Fetch(1) with each fetched job's
// subtree run in the worker's own steal.Pool; and, only when -designs
// names them, central-ledger and central-pipelined (central-async with
// its acks pipelined, with and without a ledger write per job) and
// steal-wq and steal-wq-streams, prototypes of a layout where a job is
// one message (wq.go).
func compareDesigns(fetchK int) []design {
	return append(designs(fetchK),
		bundleDesign(distDesign("steal-bundle", cluster.StealHalf)),
		centralVariant("central-async", fetchK, centralAsync),
		centralVariant("central-local", 1, centralLocal),
		centralVariant("central-ledger", fetchK, centralLedger),
		centralVariant("central-pipelined", fetchK, centralPipelined),
		wqDesign("steal-wq", false),
		wqDesign("steal-wq-streams", true))
}

func centralVariant(name string, k int, kind centralKind) design {
	return design{Name: name, Mode: modeInProcess,
		make: func(e *natsserver.Server, wl workload, gate <-chan struct{}) (system, error) {
			return newCentralSystem(e, k, kind, wl, gate, centralWait)
		},
		workers: func(dial dialer, wl workload, gate <-chan struct{}, onDone func()) system {
			s := newCentralWorkers(dial, k, kind, wl, gate)
			s.onDone = onDone
			return s
		}}
}
