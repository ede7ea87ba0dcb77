// Package node is a cluster node that coordinates work stealing over the
// protocol of the work-stealing cluster exercise (the scheduler track of
// Build Distributed Systems, builddistributedsystem.com, "Implement Work
// Stealing Scheduler"): Maelstrom-style JSON
// envelopes {"src", "dest", "body": {"type", "msg_id", ...}}, one per line
// in and one per line out (a run_simulation without policies excepted, see
// Simulation), replies in request order, each reply's src being its
// request's dest. Replies are written byte for byte as the exercise
// prints them, keys in a fixed order with ", " and ": " separators, and
// strings in ASCII, every other character escaped ("é" as "\u00e9", a
// character beyond U+FFFF as a surrogate pair; "<&>" as it is); only a
// push_job payload is handed back as it came, compacted:
//
//	{"src": "cluster", "dest": "client", "body": {"type": "init_ok", "in_reply_to": 1}}
//
// # Messages
//
// Every request body has a string "type" and an integer "msg_id"; every
// reply body has a "type" and "in_reply_to", the request's msg_id. Other
// fields are listed below with each message; a field not marked optional is
// required, a field of the wrong JSON type is malformed (error 12, with a
// text such as "thief_worker must be a string, not a number"), and fields
// the node does not know are ignored, whatever their value: a message's
// fields are those listed with its type, so that another message's field
// ("worker" in a check_cluster_state) is ignored too, and a message of an
// unknown type is error 10 whatever its fields. Keys are matched exactly, as
// written here: "TYPE" or "Msg_Id" is not a field the node knows, and is
// ignored like any other. A field given twice ("worker" twice in a body,
// "body" twice in the envelope, "model" twice in a cost) is malformed, with
// a text such as "repeated field worker": JSON leaves the meaning of such
// a message to its reader, and readers differ (Python keeps the last
// value; Go's encoding/json merges two objects). So is a string anywhere
// in a message, key or value, that is not valid UTF-8 or holds a lone
// surrogate escape such as \ud800 (JSON text is UTF-8), rather than read
// with U+FFFD in its place. Times are milliseconds, as JSON numbers that
// may have a fraction; a positive time below a nanosecond counts as one.
//
// The examples are one session with a new node, in order, bodies only: the
// node first holds the example cluster of the work-stealing cluster exercise
// (w1: job0 job1 job2, w2: job3 job4 job5, w3 idle; see coord.NewExample),
// and init replaces it.
//
// init replaces the whole cluster, jobs in flight included:
//
//	{"type": "init", "msg_id": 1, "workers": ["w1", "w2", "w3"],
//	 "jobs_to_distribute": 6, "distribution": "first", "victim": "most_loaded",
//	 "seed": 0, "cost": {"model": "fixed", "mean_ms": 10}, "steal_latency_ms": 0}
//	{"type": "init_ok", "in_reply_to": 1}
//
// Every field is optional; the values shown are the defaults, except
// jobs_to_distribute, which defaults to 0.
//
//   - workers: distinct (error 1001), non-empty names, at least one and at
//     most MaxWorkers; a plain Maelstrom init, whose node_id and node_ids are
//     ignored, gets the default three idle workers.
//   - jobs_to_distribute: 0 to MaxJobs jobs, named job0, job1, ...
//   - distribution: where the jobs are queued: "first" (all on the first
//     worker), "blocks", "round_robin" or "skewed" (see
//     coord.Distribution).
//   - victim: how steal_job and pop_job choose whom to steal from:
//     "most_loaded" (the longest deque, ties to the first listed),
//     "random" or "best_of_two" (see coord.VictimPolicy).
//   - seed: an unsigned 64-bit integer that seeds the random victim
//     policies, the job costs and run_simulation.
//   - cost: each job's cost, in the virtual time of run_simulation, is a
//     draw from model ("fixed", "uniform", "exponential" or "pareto") with
//     mean mean_ms > 0, keyed by (seed, job), so a job always costs the
//     same; a part left out keeps its default.
//   - steal_latency_ms: how long a steal takes in run_simulation, 0 to
//     MaxDuration.
//
// run_simulation runs the queued jobs in the simulator; its request and
// reply are described under Simulation below. It is the one request that
// may go unanswered: without policies, as the exercise sends it.
//
// push_job queues a job on the front of the worker's deque, so that the
// worker runs it next:
//
//	{"type": "push_job", "msg_id": 3, "worker": "w1", "job_id": "a", "payload": {"n": 7}, "cost_ms": 5}
//	{"type": "push_job_ok", "in_reply_to": 3, "worker": "w1", "job_id": "a", "queue_size": 1}
//
// queue_size is the deque's length afterwards.
//
//   - job_id: a non-empty id that no queued or in-flight job has (error
//     1004); once completed it may be used again. The cluster holds at
//     most MaxJobs such live jobs.
//   - payload: optional, any JSON, stored compact and handed back by
//     pop_job.
//   - cost_ms: optional, at most MaxDuration; when absent or 0 the job
//     costs a draw from init's cost model keyed by (seed, job_id).
//
// steal_job moves one job from the back of a victim's deque to the front of
// the thief's:
//
//	{"type": "steal_job", "msg_id": 4, "thief_worker": "w3", "busy_workers": ["w1", "w2"]}
//	{"type": "job_stolen", "in_reply_to": 4, "thief": "w3", "victim": "w1", "job_id": "a", "victim_queue_size": 0}
//
// victim_queue_size is the victim's deque length afterwards.
//
//   - busy_workers: optional, the candidate victims, all known workers
//     (error 1000); by default every other worker. The victim policy
//     chooses among those with a queued job, never the thief, each once
//     however often it is listed; error 1002 when there is none.
//
// pop_job gives a worker its next job and marks it in flight at that
// worker:
//
//	{"type": "pop_job", "msg_id": 5, "worker": "w2"}
//	{"type": "pop_job_ok", "in_reply_to": 5, "worker": "w2", "job_id": "a", "source": "stolen", "victim": "w3", "cost_ms": 5, "payload": {"n":7}, "queue_size": 0}
//
// The reply's fields:
//
//   - source: "own" when the job came off the front of the worker's own
//     deque (there is then no victim), "stolen" when that deque was empty
//     and the victim policy chose a victim among all other workers; error
//     1002 when no worker has a queued job.
//   - cost_ms, payload: the job's cost and, only when it has one, its
//     payload.
//   - queue_size: the worker's deque length afterwards.
//
// complete_job retires a job in flight at the worker; all_idle tells
// whether every deque is now empty and no job is in flight:
//
//	{"type": "complete_job", "msg_id": 6, "worker": "w2", "job_id": "a"}
//	{"type": "complete_job_ok", "in_reply_to": 6, "worker": "w2", "job_id": "a", "all_idle": true}
//
// Error 1003 when the job is not in flight at that worker, even if it is
// queued or in flight elsewhere.
//
// check_cluster_state reports every worker, in the order init listed them:
// its deque length, and "idle" when that is 0 and no job is in flight at
// it, "busy" otherwise:
//
//	{"type": "check_cluster_state", "msg_id": 7}
//	{"type": "cluster_state_ok", "in_reply_to": 7, "workers": {"w1": {"queue_size": 0, "state": "idle"}, "w2": {"queue_size": 0, "state": "idle"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": true}
//
// Any request may instead get an error reply (see Errors). A request names
// workers by the names init gave them; an unknown one is error 1000.
//
// # Simulation
//
// run_simulation runs the queued jobs in the simulator (package sim) for
// duration_ms of virtual time under each listed policy, then leaves the
// cluster as the first policy's run left it:
//
//	{"type": "run_simulation", "msg_id": 2, "duration_ms": 1000, "policies": ["one/most_loaded", "none"]}
//
// Without policies, as the exercise sends it, a run_simulation that
// succeeds is answered by nothing: the exercise's expected output has no
// reply to it. The run happens all the same, and check_cluster_state
// shows the cluster it left; a bad one gets its error reply. Give policies
// for the results:
//
//	{"type": "run_simulation", "msg_id": 2, "duration_ms": 1000}
//	{"type": "check_cluster_state", "msg_id": 3}
//	{"type": "cluster_state_ok", "in_reply_to": 3, "workers": {"w1": {"queue_size": 0, "state": "idle"}, ...}, "all_idle": true}
//
// The request's fields:
//
//   - duration_ms: the virtual time to simulate, more than 0 and at most
//     MaxDuration.
//   - policies: optional, 1 to MaxPolicies names, each "none", "central",
//     "one/VICTIM" or "half/VICTIM" with VICTIM as init's victim (see
//     sim.ParsePolicy); by default steal one with init's victim policy.
//
// The reply to a run_simulation with policies has one result per policy,
// in request order:
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
// An error reply is {"type": "error", "in_reply_to", "code", "text"}, the
// text naming the problem; in_reply_to is left out when the request has no
// integer msg_id. For example, stealing for a worker init did not create:
//
//	{"type": "steal_job", "msg_id": 8, "thief_worker": "w9"}
//	{"type": "error", "in_reply_to": 8, "code": 1000, "text": "unknown worker: w9"}
//
// The codes:
//
//	  10  unknown message type
//	  12  malformed request: missing or mistyped field, bad value, a
//	      string that is not UTF-8, or a value over one of the Limits
//	1000  unknown worker
//	1001  duplicate worker (init)
//	1002  nothing to steal (steal_job, pop_job)
//	1003  unknown job: not in flight at that worker (complete_job)
//	1004  duplicate job: the id is already live (push_job)
//
// A request that fails changes nothing. Input that is not JSON, or has no
// body object, gets no reply (there is nothing to reply to); it is reported
// on the log (stderr) and skipped, as is any line, or JSON value spread over
// lines, longer than MaxMessageBytes (1 MiB: a line's text without its line
// ending; a value spread over lines, its lines joined by one byte each),
// which is read through to its end, discarded in chunks as it is read, and
// skipped whole with one report: nothing inside it is taken for a message.
//
// # Limits
//
// So that no message can make the node take much more than a second of CPU
// or a few hundred MB of memory (a million jobs and a simulation of them
// peak at about 360 MB), requests are checked against these limits
// before they change anything; one over a limit gets error 12 with a text
// naming the limit and the value asked for:
//
//	MaxWorkers          10,000     workers in init
//	MaxJobs          1,000,000     live jobs: init's jobs_to_distribute, and
//	                               push_job once the cluster holds this many
//	MaxPayloadBytes    256 MiB     payloads of the live jobs, stored compact:
//	                               push_job once its payload would pass it
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
// closes, provided what has been read stays a valid JSON prefix. A line
// that breaks the prefix ends the value, reported as cut short, and is read
// again on its own. A value that grows past MaxMessageBytes is followed in
// the same way to its end, its text no longer kept, and skipped. So is a
// value nested deeper than encoding/json takes (10,000 levels): it is a
// JSON prefix however deep it goes, and is skipped whole at its end. A
// UTF-8 byte order mark at the very start of the input is ignored; one
// anywhere else is not JSON white space, and its message is skipped.
//
// A program that serves this protocol with handlers of its own (as steal
// node -nats does, against a cluster on NATS) frames its input with
// Reader and writes its replies with AppendReply, so that both are the
// node's.
//
// # Costs
//
// Messages are handled one at a time on the calling goroutine: no locks.
// The common message shapes are decoded by a small scanner and everything
// else by encoding/json, field by field, with keys matched exactly rather
// than as encoding/json matches them; replies are encoded into one reused
// buffer, and output is flushed before every read of the input, so a peer
// never waits for a reply the node holds. BenchmarkNodeStealJob measures
// its throughput.
//
// Reports of skipped input are written to the log by a goroutine of their
// own, started at the first one, so that a log nobody reads (stderr piped
// to a peer that reads only stdout) never holds up a reply: past 1,024
// reports waiting for the log, reports are dropped, and how many is
// reported once the log takes them again. At the end of the input the node
// waits for the log to take what is left, but not for a log that has taken
// nothing for a second.
package node
