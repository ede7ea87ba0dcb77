// Package node is a cluster node that coordinates work stealing over the
// seed protocol: Maelstrom-style JSON envelopes
// {"src", "dest", "body": {"type", "msg_id", ...}}, one per line in and one
// per line out, replies in request order, each reply's src being its
// request's dest. Replies are written byte for byte as the seed prints them,
// keys in a fixed order with ", " and ": " separators:
//
//	{"src": "cluster", "dest": "client", "body": {"type": "init_ok", "in_reply_to": 1}}
//
// # Messages
//
// init, steal_job, check_cluster_state, run_simulation, push_job, pop_job
// and complete_job; each handler's documentation gives its request and
// reply. Before any init the node holds the example cluster of the work-stealing cluster exercise (w1:
// job0 job1 job2, w2: job3 job4 job5, w3 idle; see cluster.NewExample).
// init distributes its jobs with "first" (all on the first worker) unless
// told otherwise. Victims are chosen as cluster.MostLoaded does unless init
// asks for "random" or "best_of_two" (seeded).
//
// # Simulation
//
// run_simulation runs the queued jobs in the simulator (package sim) for
// duration_ms of virtual time under each listed policy, then leaves the
// cluster as the first policy's run left it:
//
//	{"type": "run_simulation", "msg_id": 2, "duration_ms": 1000, "policies": ["one/most_loaded", "none"]}
//
// The reply has one result per policy, in request order:
//
//	{"type": "run_simulation_ok", "in_reply_to": 2, "duration_ms": 1000,
//	 "results": [{"policy": "one/most_loaded", "finished": true,
//	   "makespan_ms": 20, "lower_bound_ms": 20, "makespan_ratio": 1,
//	   "utilisation": 1, "steals": 4, "failed_steals": 0, "jobs_moved": 4,
//	   "jobs_completed": 6, "completed": {"w1": 2, ...},
//	   "idle_ms": {"w1": 0, ...}, "queue_sizes": {"w1": 0, ...}}, ...],
//	 "all_idle": true}
//
// A result's fields:
//
//	finished        true when every queued job ran within duration_ms
//	makespan_ms     when the last job completed; only when finished
//	lower_bound_ms  the bound no schedule beats: max(total work / workers,
//	                longest job), however much work that is
//	makespan_ratio  makespan_ms / lower_bound_ms, 1 at best; only when finished
//	utilisation     busy worker time / (workers × makespan_ms, or × duration_ms
//	                when not finished)
//	steals, failed_steals, jobs_moved
//	                steals that took jobs, steal requests that found their
//	                victim empty (only with a steal latency), jobs they took
//	jobs_completed  jobs run to completion
//	jobs_left       jobs still queued, a cut-off one among them with what
//	                is left of its cost; only when not finished
//	completed, idle_ms, queue_sizes
//	                per worker: jobs completed, idle time within the
//	                makespan (or duration_ms), deque length at the end
//
// Times are milliseconds, rounded to the microsecond. A run that is cut off
// reports no makespan, since it has none: "finished": false, with
// jobs_completed and jobs_left, says how far it got.
//
// # Errors
//
// An error reply is {"type": "error", "in_reply_to", "code", "text"}:
//
//	  10  unknown message type
//	  12  malformed request: missing or mistyped field, bad value, or a
//	      value over one of the Limits
//	1000  unknown worker
//	1001  duplicate worker (init)
//	1002  nothing to steal (steal_job, pop_job)
//	1003  unknown job: not in flight at that worker (complete_job)
//	1004  duplicate job: the id is already live (push_job)
//
// A request that fails changes nothing. Input that is not JSON, or has no
// body object, gets no reply (there is nothing to reply to); it is reported
// on the log (stderr) and skipped, as is any line, or JSON value spread over
// lines, longer than MaxMessageBytes (1 MiB), which is discarded in chunks
// as it is read.
//
// # Limits
//
// So that no message can make the node take much more than a second of CPU
// or a hundred MB of memory, requests are checked against these limits
// before they change anything; one over a limit gets error 12 with a text
// naming the limit and the value asked for:
//
//	MaxWorkers          10,000     workers in init
//	MaxJobs          1,000,000     live jobs: init's jobs_to_distribute, and
//	                               push_job once the cluster holds this many
//	MaxDuration            1 year  every _ms field: duration_ms, cost_ms, ...
//	MaxPolicies             16     policies in one run_simulation
//	MaxSimulatedJobs 1,000,000     queued jobs × policies in one run_simulation
//	MaxSimulatedEvents 4,000,000   events over a run_simulation's policies
//	MaxReplyBytes       16 MiB     one reply; a run_simulation whose reply
//	                               could be longer is refused before it runs
//
// A run_simulation runs one policy over a million jobs, or sixteen over
// 62,500. Its events are jobs finishing and steal requests arriving; with a
// steal latency, thieves that find their victim emptied retry, and a
// request that would take more than MaxSimulatedEvents is refused once it
// has used them (about half a second), asking for a shorter duration_ms or
// fewer policies. Messages longer than MaxMessageBytes are skipped (see
// Errors).
//
// # Input framing
//
// A line whose brackets balance is one message (the fast, common case). A
// line that leaves brackets open starts a message spread over lines, as in
// the exercise's pretty-printed sample: lines are joined until the value
// closes, provided what has been read stays a valid JSON prefix.
//
// # Costs
//
// Messages are handled one at a time on the calling goroutine: no locks, no
// goroutines. The common message shapes are decoded by a small scanner
// (fastDecode) and everything else by encoding/json; replies are encoded
// into one reused buffer, and output is flushed before every read of the
// input, so a peer never waits for a reply the node holds. steal_job runs at about 400,000 messages per second on two
// cores (BenchmarkNodeStealJob).
package node
