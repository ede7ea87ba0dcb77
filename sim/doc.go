// Package sim is a discrete-event simulator of work-stealing schedulers: it
// runs a workload of jobs on W workers in virtual time under several
// scheduling policies side by side, so that their makespans can be compared
// with the ideal bound.
//
// # Model
//
// Each worker owns a deque (coord.Deque). A worker with a job runs it for
// the job's cost; when it finishes, it takes the front of its own deque.
// When its deque is empty it acts by Policy: it stays idle (NoSteal), takes
// the head of one shared FIFO queue (Central), or steals one job (StealOne)
// or half of the jobs (StealHalf) from the back of a victim chosen by a
// coord.VictimPolicy. A steal, or a fetch from the central queue, takes
// Options.StealLatency of virtual time, which models the network: the
// victim is chosen when the request leaves and the jobs are taken when it
// arrives, so a victim may have run dry meanwhile and the steal fails.
//
// The central queue can also be given a server: Options.CentralService is
// the time one server spends on each fetch, one fetch at a time, so fetches
// queue in front of it and the queue hands out at most one job per service
// time, however many workers ask. This is how a single queue leader (a
// JetStream work-queue consumer, a database row lock) saturates. It is off
// by default.
//
// Victims are chosen as a coordinator would, among workers that have a
// queued job: random (uniform over them), best of two random, or most
// loaded. Jobs may spawn children (Spawn), which go on the front of the
// spawning worker's deque (or the central queue), as in fork-join.
//
// # Determinism
//
// A run is a pure function of its inputs: job costs and spawns are derived
// by hashing (seed, job key), so every policy sees the same jobs, and the
// random victim choices come from a generator seeded with Options.Seed.
// Simultaneous events are ordered by worker index.
//
// # Sampling
//
// Options.Sample (or Workload.Sample) makes a run record its state every
// so often in virtual time: each worker's queue length, the jobs running,
// done and existing, and the busy worker time so far, from which
// Result.SampleUtilisation derives the utilisation between samples. The
// series is bounded (Sampling.Max, 2,000 by default): a longer run doubles
// the interval and drops every other sample. Sampling is off by default
// and then costs one comparison per event; on, it costs O(W) per sample
// and O(Max × W) memory, and does not change the run.
//
// # Limits of virtual time
//
// Instants and costs are time.Durations, which reach about 292 years. A
// cost drawn beyond that is the largest Duration, and a run stops,
// unfinished, at the last instant before it, however long its horizon.
// Sums that can go further are not wrapped: the lower bound comes from an
// exact 128-bit total (Result.LowerBoundNanos where it exceeds a
// Duration), and busy time summed over workers is a float64.
//
// # Costs
//
// Each event costs O(log W) (a binary heap holding at most one pending
// event per worker); a deque operation is O(1), plus O(log W) to maintain
// the load tree under the most-loaded policy. Memory is O(jobs + W). One
// million jobs on 1,000 workers take a few hundred milliseconds.
package sim
