// Package cluster is distributed work stealing over NATS: worker processes
// each own a deque of jobs, an idle worker steals from a busy one by asking
// it, and JetStream key-value buckets keep every job durable, so that a
// worker killed with SIGKILL loses nothing.
//
// One call runs it on a laptop: natsserver.Start (package
// github.com/worksteal/steal/cluster/natsserver) starts a NATS server with
// JetStream inside the process, on loopback at a random port. It is a
// package of its own, so that a program that only runs workers or clients
// links no nats-server (TestNoServerLinked). To scale out,
// connect workers and clients to an external NATS cluster instead (three
// servers, WithReplicas(3)); nothing else changes.
//
// The program in cmd/stealcluster runs a cluster from the command line:
// stealcluster cluster demo (from the cluster directory, go run
// ./cmd/stealcluster cluster demo), cluster up, worker, and node --nats, which serves the node package's
// protocol against the live workers. Client.Workers and Client.Steal are
// what such tools use to watch the workers' queues and move jobs by hand.
//
// # Design
//
// The main concepts are:
//
//	worker - a process (or a Worker value) with a name, a lease and a deque.
//	job    - id, type, payload and an optional cost hint; run by the Handler
//	         registered for its type.
//	record - the durable copy of a live job: key q.<owner>.<id> in the
//	         bucket steal_<cluster>_jobs. Its revision (the stream sequence
//	         of its last write) is what every compare-and-swap checks.
//	ledger - key d.<id> in the same bucket: the one recorded completion.
//	lease  - key <name> in steal_<cluster>_workers, a bucket whose values
//	         expire after the lease (WithLease, default 3 s). The revision at
//	         registration is the worker's incarnation.
//
// The deque follows coord.Deque: the owner pushes and pops at the front
// (a spawned job runs next, while its data is warm), thieves take from the
// back, submitted and taken-over jobs enter at the back. A worker runs at
// most WithSlots jobs at once on a steal.Pool; the rest wait in the deque,
// where they can be stolen. Jobs a handler spawns go to the spawning
// worker's own deque, never through a central queue, and by default stay
// in its memory alone until they are stolen or their parent completes
// (local spawn, below).
//
// A steal is a request-reply to the victim (subject
// steal.<cluster>.w.<victim>.steal). The thief asks; the victim decides and
// stays the only writer of its deque: it pops n-n/2 of its n queued jobs
// from the back (or one, StealOne; at most 256 jobs or about 600 KiB), moves
// their records to the thief in one atomic batch, and replies with them.
// The thief pushes them at its front. A worker with jobs queued beyond its
// slots says so in a hint (core NATS, steal.<cluster>.hint: its name and
// queue; when its queue grows and every lease/4 while it stays, at most
// every 50 ms). An idle worker picks its victim as the longer queue of two
// random workers that hinted or whose lease shows queued jobs (best of
// two, as in Sparrow), and backs off from 100 µs to 4 ms while it fails;
// a hint resets the wait. When no worker is known to have queued jobs it
// asks nobody, and waits for a hint.
//
// Every state change of a record is one JetStream atomic batch (nats-server
// 2.12 and newer), each delete conditional on the record's revision:
//
//	submit     PUT q.<w>.<id>, message id = job id (duplicate window)
//	spawn      nothing (local spawn); or, with WithLocalSpawn(false),
//	           PUT q.<w>.<child>, conditional on the parent's record revision
//	steal      DEL q.<v>.<id> (revision) + PUT q.<thief>.<id>, per job;
//	           PUT q.<thief>.<id> (anchor's revision) for a job held in memory;
//	           every PUT with a message id of the steal
//	takeover   DEL q.<dead>.<id> (revision) + PUT q.<me>.<id> (its last
//	           write: none or a delete), per job; the DEL alone when this
//	           worker holds a record of the id already
//	complete   DEL q.<w>.<id> (revision) + PUT d.<id> (must not exist)
//	           + PUT q.<w>.<child> per pending child held in memory;
//	           a job held in memory writes no DEL, and its children's PUTs
//	           are conditional on its anchor's revision
//
// Deletes in batches carry no message TTL (on nats-server v2.15.2, such a
// delete on file storage comes back as the record it deleted when the
// server is killed and restarted). Once a batch is stored, each of its
// delete markers is replaced by one that expires after 1 s (a plain
// publish, conditional on the marker still being the key's last write), so
// the bucket keeps nothing of finished or moved jobs and listing live
// records costs O(live).
//
// Local spawn. Spawn writes nothing: the child (its id "<parent>-<n>",
// the same in every run of the parent) waits in the worker's deque with no
// record, listed among its parent's children. Its anchor is its nearest
// ancestor that has a record; that ancestor is running on this worker: a
// job spawns only while it runs, and its completion writes the records of
// the children still pending. A child gets a record in one of two ways:
//
//   - a thief steals it: the victim's steal batch writes q.<thief>.<id>
//     (there is nothing to delete), conditional on the anchor's record
//     still being at the revision the victim holds, as a spawn written at
//     once is conditional on its parent's. A victim whose anchor was taken over
//     (it was paused past its lease) has its steal refused and writes
//     nothing; the revision is what every other write of this worker is
//     fenced on, so no second fence (the lease's incarnation, in another
//     bucket, which a batch cannot check) is needed.
//   - its parent completes first: the parent's completion batch writes the
//     records of its children still pending (queued or running here, not
//     completed or stolen) under this worker's name. From then on they are
//     ordinary jobs; a running one completes with DEL + PUT d.<id>. When
//     more children are pending than one batch holds (256 jobs or about
//     600 KiB; the servers take at most 1000 messages a batch), they are
//     written first in batches conditional on the parent's record (or its
//     anchor's), then the completion.
//
// A child that completes before its parent writes d.<id> alone (must not
// exist), plus the records of its own pending children, conditional on its
// anchor: the same rule, one level down. A job's own completion, its
// parent's completion and a steal each claim the in-memory jobs they write
// (under the worker's lock, all at once, waiting while another batch holds
// one), so that no two of them race: a child is never both completed and
// given a record. A batch fenced on an anchor also pins it: the anchor's
// completion (which moves the anchor of the jobs under it) waits until the
// batch is answered, so a refused check means the anchor was taken over. The queue size in
// hints and leases and the busy flag count such
// children like any other job, so thieves see them and Client.Idle is false
// while one is queued or running.
//
// Why a crash loses nothing: until a child has a record or a completion,
// its anchor's record exists (the anchor's completion would have written
// the child's record), and the anchor is a job of this worker. A worker
// killed with SIGKILL has the anchor's record taken over; its re-run spawns
// the same ids, children that had completed find d.<id> at their
// completion (one completion recorded, as for any re-run), and the others
// run. A tree of spawn-and-return jobs therefore costs about as many
// messages as before (most children are pending when their parent
// completes: a PUT in the parent's batch, then DEL + PUT d.<id>), but no
// round trip at spawn; children that complete before their parent (a
// parent that works or waits after spawning) cost one write each.
//
// Liveness. A worker renews its lease every lease/4 with a compare-and-swap
// on its last revision, and only then (thieves learn queue sizes from
// hints). A lease that expires is purged by the server. The three workers
// whose names sort lowest (the monitors) watch the workers bucket; the
// others read it every 4 leases, so that a renewal reaches 3 watchers, not
// every worker, and the servers' work for leases grows as O(W), not O(W²)
// (TestIdleControlTraffic: idle, each worker costs about 21 server
// messages a second with a 1 s lease, at W=4 as at W=16). On a departure
// the live worker whose name sorts first lists the records of owners that
// hold no lease and moves them to itself (orphan scan; also run at start
// and every 4 leases). A worker whose renewal is refused, and
// whose lease then reads as gone or another incarnation's, has been taken
// for dead: it fences itself: drops its deque, registers again under a new
// incarnation (if another process registered its name meanwhile, it stops
// serving instead: see below), and reloads whatever records still carry its name, but for
// those of jobs it is still running, which are not queued a second time
// (TestFenceKeepsRunningJob). (If that read fails too, it tries again at
// the next renewal.)
// Children held in memory go with the deque; a parent still running here
// writes their records when it completes, if its own record was not taken
// over (else the new owner's re-run spawns them again). A child that was
// running finishes; with nothing pending under it, its completion d.<id>
// may be the one recorded (TestFencedRunningChild: when the re-run
// completed it first, the fenced worker's is refused). A job running
// through the fence that spawns asks the servers whether its anchor's
// record is still this worker's, and goes on if so (TestSpawnAfterFence);
// if not, Spawn returns ErrFenced, and a handler that gives up with it has
// nothing recorded for that run, so the new owner's re-run, which spawns
// the children again, is the one recorded (TestFencedChildGivesUp). A job
// without a record whose completion was refused is not remembered as done:
// a re-run of its anchor here spawns it again.
//
// Each worker also watches its own records, which covers the two ways a
// record reaches it without its own hands: a steal whose reply was lost (the
// records are already under the thief's name) and a takeover into it.
// Revisions it recently let go are remembered so that a record delivered
// twice runs once. No record under a live worker's name is left that the
// worker neither runs nor deletes: one it let go of but that is live still
// (a server killed with SIGKILL can bring back a record it had deleted) is
// deleted when the ledger holds the job's completion, else written again
// (conditional on its revision) and run. Records loaded when the watch
// starts (at start and after a fence) and records taken over are checked
// against the ledger before they run: the record of a completed job is
// deleted, and the job does not run again (TestLetGoRecordNotLeft,
// TestStartSkipsCompletedRecord).
//
// # Invariants
//
//  1. A live job has at most one record, q.<owner>.<id>; moves are atomic.
//     A live job without one is held in the memory of the worker that
//     spawned it, whose record of its anchor (an ancestor running there)
//     is live.
//  2. Only the owner's revision can retire or move a record: a worker that
//     lost a record (taken over while it was paused) has every later write
//     about it refused, because the revision it holds is stale. Writes
//     about a job held in memory are fenced by its anchor's revision; the
//     one exception is the completion of such a job that spawned nothing
//     pending (d.<id> alone): a fenced worker's may be recorded, and it is
//     a completion of a run that did happen.
//  3. d.<id> is written at most once, in the same batch that deletes the
//     record (if the job has one) and writes the records of its pending
//     children: a job is live or completed, and between the two there is
//     no instant where it is neither, nor where its children are.
//  4. A worker counts as busy while it holds a job in any state: queued,
//     running, being moved by a steal or takeover, or being written by a
//     submission, with or without a record. Its epoch rises each time it
//     leaves idle, and every record is written by a busy worker.
//
// # Guarantees and the tests that check them
//
//   - A submitted job is never lost while the servers keep their data:
//     Submit returns only after the record is stored, and a worker killed
//     with SIGKILL has its records taken over by a survivor
//     (TestKillWorker: a worker process is killed in the middle of a job;
//     every job completes). With file storage, queued jobs survive a
//     restart of the servers (TestServerRestart; with memory storage the
//     same test loses them, as it should). Completed jobs stay completed
//     when a file-storage server is killed with SIGKILL and restarted: no
//     record of theirs comes back, none runs again
//     (TestServerKilledKeepsJobsDone).
//   - Exactly one completion is recorded per job id, although a job may run
//     more than once after a crash, a fence, a takeover or a steal the
//     servers left unanswered (see below): handler effects
//     outside the ledger must be idempotent by job id, as with any
//     at-least-once queue (TestKillWorker: the killed job runs again on a
//     survivor, one completion; TestDuplicateSubmit: a second record of a
//     completed job runs, its completion is refused; TestSkewedStart: each
//     of 300 jobs runs once and completes once). A takeover never writes
//     over a record the taking worker holds: it deletes the dead worker's
//     copy of such a job and keeps its own (TestTakeoverKeepsHeldRecord).
//     Stats.Completed counts only the completions the worker recorded,
//     not another run's that reads the same (TestCompletedCountsOwnOnly).
//   - A worker paused past its lease is fenced: its late completion is
//     refused and it re-registers (TestPausedWorkerFenced: SIGSTOP, a
//     survivor re-runs the job and is recorded, SIGCONT, the old worker's
//     completion is refused and it fences itself). Its late steals are
//     refused by the same revision check, a steal of a job held in memory
//     by its anchor's (TestStealFencedByAnchor), and once fenced its
//     Spawn returns ErrFenced (TestStoreBatch checks the server behaviour:
//     a stale batch writes nothing, a guarded put fails once its guard
//     moved).
//   - A worker cut off by the network (its sockets open, no bytes
//     flowing) past its lease is treated like a paused one: taken over,
//     its late spawn and completion refused; when the network heals it
//     registers again and works, unless another process took its name
//     meanwhile (below) (TestBlackholePastLease, through a TCP proxy in
//     the test).
//   - Two processes never serve one worker name: a worker taken for dead
//     that finds, when it is heard again, its name registered by another
//     process stops serving at once: it unsubscribes, stops its watches,
//     forgets its deque and writes nothing; Done is closed and Err returns
//     ErrSuperseded (TestSupersededStopsServing: jobs submitted to the name
//     then run once, on the new worker).
//   - A worker whose servers are gone stops: after WithServerLossLimit
//     (default 1 minute) without renewing its lease, it stops serving as
//     above and Err wraps ErrServerLost; Close returns ErrNotHandedOver when
//     no server took its lease back (TestWorkerWithoutServer, in
//     cmd/stealcluster).
//   - A steal loses and duplicates nothing when its reply comes after
//     the thief gave up or is lost with a reset connection: the moved
//     records are under the thief's name and its watch of its own records
//     runs them; a victim whose move never reached the servers puts the
//     jobs back (TestLateStealReply, TestResetMidSteal). When the victim's
//     own answer from the servers is lost and its retry finds the move
//     applied, the retry writes nothing: every record a steal writes
//     carries a message id of the steal, which the servers refuse to store
//     twice, and the victim reports the jobs as moved
//     (TestStealRetryAckLost, TestStealCountAckLost). A victim that gets
//     no answer at all asks again with the same batch for half the
//     servers' duplicate window (1 minute by default), within which the
//     refusal tells that the move was applied: a job held without a record
//     is not kept by a victim whose move went through
//     (TestStealOutcomeUnknown). Past that window, or when the victim
//     closes, it keeps the job, which may then run on both, with one
//     completion recorded.
//   - A worker that stays up through a restart of the servers carries
//     on: the restart loses the leases (kept in memory), and the worker
//     creates the workers bucket again and registers again
//     (TestRestartLiveWorker).
//   - Under a seeded random mix of these faults (kill -9, SIGSTOP and
//     SIGCONT, partitions, resets, server restarts on file storage,
//     duplicate submissions) against a workload of spawning jobs, every
//     submitted and spawned job completes exactly once, no record is
//     left, and Idle is never true while a job submitted before the call
//     is incomplete (TestFaultMix; STEAL_FAULT_SEED replays a run,
//     STEAL_FAULT_ROUNDS or -faults.long runs more faults).
//   - Losing a minority of servers delays jobs but does not fail them. With
//     WithReplicas(3) on three servers, the buckets elect new leaders when
//     one server is lost (the Raft election timeout of nats-server, 4 to 9
//     s). Meanwhile a worker retries each write that fails with a
//     transient error (a timeout, no responders, JetStream temporarily
//     unavailable, a batch cut by the leader change, a message id whose
//     earlier write a replicated stream has not stored yet, a reconnecting
//     connection) with backoff from 50 ms to 1 s, for at most 30 s (a
//     steal of jobs held without a record: see above). Retries
//     are safe: each write is a compare-and-swap or deduplicated by id, so
//     a retry whose first attempt was applied is refused and the caller
//     reads it as done (a spawn or submission as already stored, a steal or
//     takeover as moved, a completion as recorded). Only when the servers
//     fail for the whole window does Spawn return an error wrapping
//     ErrUnavailable; a completion that cannot be written leaves the job
//     queued, to run again. Submit retries the same way when the worker's
//     answer does not come within WithRequestTimeout (2 s), as during an
//     election; a retry refused as a duplicate after a lost answer gives
//     ErrMaybeStored, since the job may be another submission's.
//     A lease shorter than the election may expire during
//     it: the worker fences itself and its jobs may run again, with one
//     completion each (TestClusterLosesServer, run with STEAL_CLUSTER3=1:
//     three server processes, the one leading both buckets killed with
//     SIGKILL while 363 spawning jobs run; every job completes once, none
//     fails, about 8 s after the kill).
//   - Idle workers steal: with every job submitted to one worker, the others
//     run a share (TestSkewedStart).
//   - Spawned jobs stay on the spawning worker unless stolen
//     (TestSpawnStaysLocal, with stealing off: every child of a tree runs on
//     its root's worker), and in its memory alone until stolen or their
//     parent completes: a tree on two workers that steal from each other
//     records one completion per id and leaves no record, with local spawn
//     and without (TestLocalTree); a fork-join tree of 15 jobs writes at
//     most 18 messages to the jobs bucket (the root's record, its delete
//     and that delete's expiring replacement, and 15 completions), against
//     at least 45 when each spawn is written (TestLocalSpawnWrites); stolen children get their records
//     under the thief's name in the steal's batch and the victim holds
//     only the parent's (TestStealLocalChildren); a parent that completes
//     with 1100 children pending writes all their records, in five
//     batches (TestCompleteManyChildren); and a worker process killed with
//     SIGKILL in the middle of a tree of 255 jobs loses none
//     (TestKillMidTree).
//   - Children held in memory count in the worker's lease and hints (queue and
//     busy) and keep Idle false (TestLocalChildrenCount).
//   - Cluster idle is never reported while a job is queued, running or in
//     flight in a steal. Client.Idle explains the check: two waves of worker
//     states with equal epochs around an empty listing of records
//     (TestIdleCheck: an orphan record, a silent lease holder, an epoch that
//     moves between the waves and a busy worker each keep it false;
//     TestSkewedStart samples Idle every 10 ms during a run and checks each
//     true answer against the ledger).
//   - A worker that closes hands its jobs over at once: it gives up its
//     lease, and a survivor takes over its queued jobs and the ones its
//     handlers abandoned (TestCloseHandsOver).
//   - Bad input: a submission with an invalid id, type or worker name, or a
//     payload over WithMaxPayload, is refused with ErrInvalidID,
//     ErrInvalidType, ErrInvalidName or ErrPayloadTooLarge and stores
//     nothing; a duplicate id gets ErrDuplicateJob. A job whose type has no
//     handler, whose handler panics or fails, whose result is too large, or
//     whose record does not decode is recorded as failed with a code
//     (ErrUnknownType, ErrHandlerPanic, ErrHandler, ErrResultTooLarge,
//     ErrMalformedJob), and the worker goes on (TestBadInput).
//
// # Security
//
// The NATS account the workers and clients use is the trust boundary. Any
// client of that account can do everything a worker does, through the
// same subjects and buckets: read every job and result, submit jobs, write
// or forge completions in the ledger, answer a steal in a victim's place
// (or intercept its reply), delete or move records, and take a worker's
// name once its lease expires. Nothing in the protocol authenticates one
// worker to another. Run a cluster on an account of its own, and give its
// credentials only to processes trusted to run its jobs. natsserver.Start
// listens on loopback by default (every user of the machine is then a
// client); beyond loopback, require credentials (natsserver.UserPassword)
// or client certificates (natsserver.TLS with a client CA). stealcluster cluster up
// refuses -listen beyond loopback without one of them unless given
// -insecure.
//
// # Limits
//
// Duplicate submissions are detected while the id is queued or running on
// the receiving worker, within the servers' duplicate window (2 minutes by
// default) and once the job has completed; outside of these a resubmitted
// id may run again, and its completion is refused. A restart of the
// servers shortens the window: they rebuild it from the records they still
// hold, so a job that was stolen or taken over before the restart can be
// submitted again while it is live (TestFaultMix counts such cases); one
// of its two completions is refused. The ledger keeps every
// completion until the bucket is purged. A job is at most WithMaxPayload
// bytes (default 256 KiB, at most 512 KiB); larger data should travel by
// reference (for example in a JetStream object store). Server-side limits
// apply to batches: 1000 messages, 50 open batches per stream.
//
// # Tests
//
// go test ./... runs everything in about a minute under the race detector
// on two cores; -short skips the process tests (TestKillWorker,
// TestPausedWorkerFenced, TestKillMidTree, TestFaultMix), which start
// worker processes by re-running the test binary and wait out 1 s leases.
// TestClusterLosesServer runs only with STEAL_CLUSTER3=1 (about 30 s:
// forming three servers and replicated buckets takes up to 20 s).
package cluster
