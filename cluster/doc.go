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
// ./cmd/stealcluster cluster demo), cluster up, worker, and node --nats,
// which serves the node package's protocol against the live workers.
// Client.Workers and Client.Steal are what such tools use to watch the
// workers' queues and move jobs by hand.
//
// # Submitting many jobs
//
// Client.Submit writes the job's record itself, under the name of a live
// worker picked at random (To names one), checked against the servers'
// duplicate window and the ledger in the same write; that worker's watch
// of its records queues it. Client.SubmitBatch queues many jobs in one
// call: it writes their records in chunks of up to 256 jobs (and about 600
// KiB), each chunk one atomic batch dealt round the live workers. A flat
// job costs about 7 server messages from submission to completion with
// Submit and about 6 in batches (TestSubmitBatchMessages, memory storage).
// Input is checked first: one invalid job fails the whole call and sends
// nothing; otherwise a *BatchError reports, job by job, those not queued
// (a duplicate id, or an outcome unknown after an error); the others
// carry Submit's guarantees. Client.SubmitBundle is for many small jobs:
// it puts up to 32 jobs in one record (a bundle), dealt round the live
// workers, and a worker runs a bundle's jobs one after the other and
// records their completions together, in one atomic batch with the
// bundle's removal. A flat job then costs about 1.5 server messages; what it gives up is the check
// of each id when it is submitted, and the spreading of one job at a time
// (a bundle is stolen and taken over whole).
//
// Programs without a Go client can submit a JSON record (id, type,
// payload) as a request on steal.<cluster>.submit, or on
// steal.<cluster>.w.<name>.submit for a given worker, which writes the
// record and answers {"worker": name} or {"code", "text"}. A record with a
// "bundle" list of such records (at most 32, ids all different, each
// checked as a job) is a bundle, under the record's own id.
//
// The words the guarantees below use:
//
//	worker - a process (or a Worker value) with a name, a lease and a deque.
//	job    - id, type, payload and an optional cost hint; run by the Handler
//	         registered for its type.
//	record - the durable copy of a live job in a JetStream key-value bucket.
//	ledger - the one recorded completion of a job id, in the same bucket.
//	lease  - a worker's registration, which expires unless renewed
//	         (WithLease); a worker whose lease expired is taken for dead.
//
// The design, its message flows and the invariants a change must keep are
// described at the top of worker.go; HACKING.md says how to run the fault
// tests.
//
// # Guarantees and the tests that check them
//
//   - A submitted job is never lost while the servers keep their data:
//     Submit returns only after the record is stored, and a worker killed
//     with SIGKILL has its records taken over by a survivor
//     (TestKillWorker: a worker process is killed in the middle of a job;
//     every job completes). With file storage, queued jobs survive a
//     restart of the servers (TestServerRestart). Completed jobs stay completed
//     when a file-storage server is killed with SIGKILL and restarted: no
//     record of theirs comes back, none runs again
//     (TestServerKilledKeepsJobsDone). A job placed on a worker that left
//     after the client last read the workers is taken over by a survivor
//     (TestSubmitToWorkerThatLeft).
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
//     WorkerStats.Completed counts only the completions the worker recorded,
//     not another run's that reads the same (TestCompletedCountsOwnOnly).
//   - A worker paused past its lease is fenced: its late completion is
//     refused and it re-registers (TestPausedWorkerFenced: SIGSTOP, a
//     survivor re-runs the job and is recorded, SIGCONT, the old worker's
//     completion is refused and it fences itself; TestLoanPausedLender and
//     TestLoanLenderKilled let the late completion come first, so that
//     only the record's revision refuses it). Its late steals are
//     refused by the same revision check, a steal of a job held in memory
//     by its anchor's (TestStealFencedByAnchor), and a Spawn once its
//     job's record moved returns ErrFenced (TestBlackholePastLease;
//     TestStoreBatch checks the server behaviour: a stale batch writes
//     nothing, a guarded put fails once its guard moved).
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
//   - A thief borrows the jobs it steals: the victim lends them over core
//     NATS, with nothing written, and a job's record stays under the
//     victim's name until the thief's completion deletes it there,
//     conditional on its revision, so a paused or dead victim's jobs are
//     fenced exactly as its own runs are (a survivor that took the record
//     over re-runs the job; the thief's completion is refused). A loan
//     whose reply is lost is taken back: the victim audits loans older
//     than a lease, asks the thief which it holds, and queues again the
//     jobs of the others, or all of them when the thief is gone
//     (TestLostLoanReply, TestLoanThiefLost; worker processes killed with
//     SIGKILL or stopped past their lease while holding borrowed jobs:
//     TestLoanThiefKilled, TestLoanPausedThief); a closing thief gives back
//     the borrowed jobs it has not started. A victim killed or paused while
//     its jobs are out on loan has its records taken over, and the thief's
//     completion is refused (TestLoanLenderKilled, TestLoanPausedLender).
//     Client.Steal, and thieves that ask for no loan, still move records
//     to the thief, and never move a job this worker borrowed
//     (TestMoveSkipsBorrowed).
//   - A move of records loses and duplicates nothing when its reply comes
//     after the thief gave up or is lost with a reset connection: the moved
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
//     queued, to run again. Submit retries the same way when the servers'
//     answer to its write does not come within WithRequestTimeout (2 s), as
//     during an election; a retry refused as a duplicate after a lost answer gives
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
//   - With WithSpawnRecords(false), spawned jobs are never written: a tree
//     of 1023 jobs spread over three workers by loans costs the servers
//     the root's writes alone (at most 4), and the root's Wait returns only
//     once every job of the tree ran (TestMemTree); a root whose handler
//     returned stays incomplete while a job spawned under it runs, here or
//     on a thief (TestMemRootWaitsForSubtree). Spawned jobs then run at
//     least once, not once: a thief lost with borrowed jobs has them run
//     again by the lender (TestLoanThiefLost), and a worker killed while
//     it holds a root runs the root's whole tree again on a survivor. The
//     root's completion is still recorded exactly once, also under a
//     seeded mix of kills, pauses, partitions and resets
//     (TestFaultMixMem: every spawned job ran, none has a completion).
//   - The jobs of a bundle (SubmitBundle) each have their completion
//     recorded exactly once, all of a bundle's at once: a worker killed in
//     the middle of a bundle has it taken over whole, and its jobs run
//     again (TestKillWorkerBundles); a paused worker's late completion of
//     a bundle taken over meanwhile is refused whole
//     (TestPausedWorkerFencedBundle). An id submitted in a bundle is not
//     checked then: a job already completed runs again and its completion
//     is left out of its bundle's batch, which records the others
//     (TestSubmitBundleDuplicate).
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
//     nothing; a duplicate id gets ErrDuplicateJob. A batch with one such
//     job is refused whole, naming it, and stores nothing; a duplicate in
//     a batch (of a live or completed job, or of an earlier job of the
//     batch) is refused alone, the others are queued
//     (TestSubmitBatchInvalid, TestSubmitBatchDuplicates). A job whose type has no
//     handler, whose handler panics or fails, whose result is too large, or
//     whose record does not decode is recorded as failed with a code
//     (ErrUnknownType, ErrHandlerPanic, ErrHandler, ErrResultTooLarge,
//     ErrMalformedJob), and the worker goes on (TestBadInput). A handler
//     that calls runtime.Goexit (as t.FailNow does) fails its job as a
//     panic does, and the jobs of its bundle after it do not run and are
//     recorded as failed with the same code, saying why
//     (TestGoexitFailsJob, TestGoexitBundle).
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
// Duplicate submissions are detected within the servers' duplicate window
// (2 minutes by default) and once the job has completed; outside of these
// a resubmitted id that is still queued or running may run again, and one
// of its completions is refused. (Before clients wrote records
// themselves, the receiving worker also refused an id it held.) A restart of the
// servers shortens the window: they rebuild it from the records they still
// hold, so a job that was stolen or taken over before the restart can be
// submitted again while it is live (TestFaultMix counts such cases); one
// of its two completions is refused. The ledger keeps every
// completion until the bucket is purged. A job is at most WithMaxPayload
// bytes (default 256 KiB, at most 512 KiB); larger data should travel by
// reference (for example in a JetStream object store). Server-side limits
// apply to batches: 1000 messages, 50 open batches per stream. A worker
// that closes while jobs it lent (with their records) run on thieves
// waits up to a lease for them to come back (TestLenderCloseWithLoanOut);
// one still out then is handed over with the rest: a survivor runs it
// again and the thief's completion is refused (one completion recorded,
// two runs). Before steals were loans, a stolen record was the thief's
// and a victim's Close did not touch it.
package cluster
