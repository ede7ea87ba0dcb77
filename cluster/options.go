package cluster

import (
	"fmt"
	"runtime"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal"
)

// Storage selects where the cluster's buckets keep their data.
type Storage int

const (
	// MemoryStorage keeps jobs and results in the servers' memory: they
	// survive worker crashes, not a restart of every server.
	MemoryStorage Storage = iota
	// FileStorage keeps jobs and results on the servers' disks.
	FileStorage
)

// StealMode says how much an idle worker takes from a victim.
type StealMode int

const (
	// StealHalf takes n - n/2 of the victim's n queued jobs, from the back.
	StealHalf StealMode = iota
	// StealOne takes one job from the back.
	StealOne
	// StealOff never steals (the worker still gives jobs to thieves).
	StealOff
)

// Limits that apply whatever the options.
const (
	MaxIDLen      = 200 // longest job id
	maxTypeLen    = 128
	maxNameLen    = 64
	maxStealJobs  = 256 // most jobs moved by one steal
	maxTakeover   = 200 // most jobs moved by one takeover batch (2 messages each)
	minLease      = time.Second
	maxLease      = time.Hour // past it, a worker's waits (4 leases × ⌈W/8⌉) outgrow time.Duration
	defaultLease  = 3 * time.Second
	defaultMaxPay = 256 << 10
	// defaultLossLimit outlasts a server restart and a replicated
	// cluster's leader elections several times over.
	defaultLossLimit = time.Minute
)

type config struct {
	cluster    string
	storage    Storage
	replicas   int
	lease      time.Duration
	slots      int
	steal      StealMode
	maxPayload int
	timeout    time.Duration
	localSpawn bool
	// spawnRecords: false keeps spawned jobs in memory (loan.go).
	spawnRecords bool
	// moveOnly, for tests only: a thief asks for no loan, so that its
	// victims move records to it (the path Client.Steal takes).
	moveOnly bool
	// wrapWorkers, for tests only, wraps the workers bucket's handle (to
	// inject the errors of a server in trouble).
	wrapWorkers func(jetstream.KeyValue) jetstream.KeyValue
	// lossLimit: how long a worker goes on without renewing its lease
	// before it stops serving (ErrServerLost).
	lossLimit time.Duration
	// retry bounds the retries of the store's writes and reads through
	// transient errors: retryWindow, shorter in tests only.
	retry time.Duration
}

func defaults() config {
	return config{
		cluster:      "default",
		replicas:     1,
		lease:        defaultLease,
		slots:        min(runtime.GOMAXPROCS(0), steal.MaxWorkers),
		maxPayload:   defaultMaxPay,
		timeout:      2 * time.Second,
		localSpawn:   true,
		spawnRecords: true,
		lossLimit:    defaultLossLimit,
		retry:        retryWindow,
	}
}

// Option configures a Worker or a Client. Options that do not apply to the
// value being built have no effect on it, but every option's value is
// checked: an invalid one makes NewWorker and NewClient alike return
// ErrInvalidOption, so that one list of options serves both.
type Option func(*config)

// WithCluster names the cluster (default "default"): subjects live under
// steal.<name> and buckets are named steal_<name>_jobs and
// steal_<name>_workers, so clusters on one NATS system stay apart.
func WithCluster(name string) Option { return func(c *config) { c.cluster = name } }

// WithStorage picks memory (default) or file storage for buckets this
// process creates. Existing buckets keep their settings.
func WithStorage(s Storage) Option { return func(c *config) { c.storage = s } }

// WithReplicas sets the replica count for buckets this process creates
// (default 1; 3 on a three-server cluster survives the loss of one server).
func WithReplicas(n int) Option { return func(c *config) { c.replicas = n } }

// WithLease sets the worker lease (default 3 s, 1 s to 1 h) for a workers
// bucket this process creates. A worker that has not renewed its lease for
// this long is taken for dead: its jobs go to a survivor and its later
// writes are refused. Workers heartbeat every lease/4. The bucket's setting
// wins over this option when the bucket already exists.
func WithLease(d time.Duration) Option { return func(c *config) { c.lease = d } }

// WithSlots sets how many jobs a worker runs at once, 1 to steal.MaxWorkers
// (default runtime.GOMAXPROCS(0)); it is also the size of the worker's
// steal.Pool.
// Jobs beyond that wait in the worker's deque, where thieves can take them.
func WithSlots(n int) Option { return func(c *config) { c.slots = n } }

// WithStealMode sets how an idle worker steals (default StealHalf).
func WithStealMode(m StealMode) Option { return func(c *config) { c.steal = m } }

// WithMaxPayload sets the largest payload and result, in bytes (default
// 256 KiB, at most 512 KiB): a record carries the payload base64-encoded
// in JSON, and must fit in a NATS message (1 MiB by default).
func WithMaxPayload(n int) Option { return func(c *config) { c.maxPayload = n } }

// WithRequestTimeout bounds each request to a worker or to the servers
// (default 2 s).
func WithRequestTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithLocalSpawn sets whether jobs a handler spawns stay in the worker's
// memory until stolen or until their parent completes (default true), or
// are written to the servers at once, as a submission is. Locally, Spawn
// makes no round trip; a child that completes before its parent costs one
// write (its completion) instead of three (its record, the record's
// delete, its completion), and one still pending when its parent completes
// costs the same three, its record riding in the parent's completion
// batch. Nothing is lost in a crash: the parent's record stays until the
// parent's completion writes the records of its unfinished children, and a
// re-run of the parent spawns the same ids; children that had completed
// run again then, and their completions are refused. Written at once, a
// crash re-runs only the jobs that were live (a re-spawn is skipped while
// the servers' duplicate window remembers the id), and Spawn tells a
// handler at once (ErrFenced) when its job's record was taken over.
func WithLocalSpawn(on bool) Option { return func(c *config) { c.localSpawn = on } }

// WithSpawnRecords(false) keeps every job a handler spawns in memory for
// good: it gets no record and no recorded completion, and costs the
// servers nothing unless a thief takes it, which borrows it over core NATS
// (two messages to ask, two for the answer, two for the return, whatever
// the number of jobs lent) and sends it back once it and everything
// spawned under it have run. A job's completion is recorded once its run
// and every job spawned under it have finished, so Client.Wait on a root
// job returns when its whole tree is done. In exchange, spawned jobs run at
// least once, not once: a crash of the worker holding a root runs the
// root's whole tree again, a thief that dies or loses its lease has what
// it borrowed run again by the lender, and a spawned job's id, result and
// failure are recorded nowhere (WorkerStats.ChildFailures counts the
// failures). The default (true) records each spawned job as WithLocalSpawn
// says. Give every worker of a cluster the same setting: the worker that
// runs a job decides how its children live, and a job borrowed from a
// worker with false keeps its tree in memory everywhere.
func WithSpawnRecords(on bool) Option { return func(c *config) { c.spawnRecords = on } }

// WithServerLossLimit sets how long a worker goes on when it cannot renew
// its lease (default 1 minute, at least 2 s; the limit in force is at least
// two leases). Past it, the worker has long been taken for dead: it stops
// serving, as if closed, and Worker.Err returns an error wrapping
// ErrServerLost. A server that comes back within the limit finds the
// worker registering again.
func WithServerLossLimit(d time.Duration) Option { return func(c *config) { c.lossLimit = d } }

func buildConfig(opts []Option) (config, error) {
	c := defaults()
	for _, o := range opts {
		o(&c)
	}
	switch {
	case !validName(c.cluster):
		return c, ErrInvalidName
	case c.lease < minLease || c.lease > maxLease:
		return c, &Error{ErrInvalidOption.Code, fmt.Sprintf("lease must be 1s to 1h, not %v", c.lease)}
	case c.slots < 1 || c.slots > steal.MaxWorkers:
		return c, &Error{ErrInvalidOption.Code, fmt.Sprintf("slots must be 1 to %d (steal.MaxWorkers), not %d", steal.MaxWorkers, c.slots)}
	case c.replicas < 1 || c.replicas > 5:
		return c, &Error{ErrInvalidOption.Code, "replicas must be 1 to 5"}
	case c.maxPayload < 1 || c.maxPayload > maxPayloadLimit:
		return c, &Error{ErrInvalidOption.Code, "max payload must be 1 byte to 512 KiB"}
	case c.timeout <= 0:
		return c, &Error{ErrInvalidOption.Code, "request timeout must be positive"}
	case c.lossLimit < 2*time.Second:
		return c, &Error{ErrInvalidOption.Code, "server loss limit shorter than 2s"}
	case c.steal < StealHalf || c.steal > StealOff:
		// Unchecked, an unknown mode stole as StealHalf and a
		// StealMode(-1) meant as "off" stole all the same.
		return c, &Error{ErrInvalidOption.Code, fmt.Sprintf("steal mode must be StealHalf, StealOne or StealOff, not %d", c.steal)}
	case c.storage != MemoryStorage && c.storage != FileStorage:
		// Unchecked, an unknown storage made memory buckets.
		return c, &Error{ErrInvalidOption.Code, fmt.Sprintf("storage must be MemoryStorage or FileStorage, not %d", c.storage)}
	}
	return c, nil
}
