// Package prom exports the metrics of a steal.Pool to Prometheus through
// github.com/prometheus/client_golang. It is a module of its own, so that
// programs using the pool without Prometheus never download or compile the
// client library.
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(prom.NewCollector(pool, "images"))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// docs/metrics.md in the steal repository lists the metrics and has
// example PromQL queries for a dashboard.
package prom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/worksteal/steal"
)

// Collector is a prometheus.Collector for one pool. Create it with
// NewCollector.
type Collector struct {
	p       *steal.Pool
	gauges  []metric
	counts  []metric
	ran     *prometheus.Desc // per worker
	wait    *prometheus.Desc
	run     *prometheus.Desc
	allDesc []*prometheus.Desc
}

// metric is one gauge or counter read from a Stats snapshot.
type metric struct {
	desc  *prometheus.Desc
	value func(*steal.Stats) float64
}

// NewCollector returns a collector of p's metrics, each with the constant
// label pool="<name>", so that several pools can be registered with one
// registry under different names (an empty name leaves the label empty,
// which Prometheus treats as absent). Registering two collectors with the
// same name fails in Register, as Prometheus does for any duplicate
// series. NewCollector panics if p is nil or a Pool that steal.New did not
// make (its zero value), which no scrape could read.
//
// Each scrape takes one p.Stats() snapshot, so the metrics of a scrape
// agree with one another as far as Stats does (see steal.Stats): counters
// of a busy pool lag by up to 64 tasks per worker; Submitted, Backlog and
// the queue wait and task duration histograms are exact. The pool does not need to be running:
// a closed pool reports its final counts.
//
// Cost: nothing between scrapes; a scrape costs a Stats call and the
// encoding of about 60 series (most of them the two histograms' buckets)
// plus one per worker.
func NewCollector(p *steal.Pool, name string) *Collector {
	if p == nil {
		panic("prom: NewCollector called with a nil *steal.Pool")
	}
	mustBeMade(p)
	labels := prometheus.Labels{"pool": name}
	desc := func(name, help string, varLabels ...string) *prometheus.Desc {
		return prometheus.NewDesc("steal_"+name, help, varLabels, labels)
	}
	c := &Collector{p: p}
	c.gauges = []metric{
		{desc("workers", "Workers the pool runs."),
			func(s *steal.Stats) float64 { return float64(len(s.Workers)) }},
		{desc("workers_idle", "Of the pool's own workers, those parked now: with no work, or asleep in a wait whose tasks run elsewhere (spares left out)."),
			func(s *steal.Stats) float64 { return float64(s.Idle) }},
		{desc("workers_spinning", "Workers looking for work to steal now, spares standing in for blocked workers included."),
			func(s *steal.Stats) float64 { return float64(s.Spinning) }},
		{desc("inject_queue_tasks", "Tasks in the pool's inject queue now: submissions not yet taken by a worker, and ring overflow."),
			func(s *steal.Stats) float64 { return float64(s.Inject) }},
		{desc("backlog_tasks", "Submitted tasks that no worker has started yet."),
			func(s *steal.Stats) float64 { return float64(s.Backlog) }},
	}
	c.counts = []metric{
		{desc("tasks_submitted_total", "Tasks queued through the pool's inject queue: by Submit, SubmitBatch, TrySubmit, Go, Run, Join, For, ForRange, PoolSpawn, TryPoolSpawn, the PoolMap functions and the Go of a Pool.Group or PoolResultGroup."),
			func(s *steal.Stats) float64 { return float64(s.Submitted) }},
		{desc("tasks_completed_total", "Tasks that returned without a panic or runtime.Goexit."),
			func(s *steal.Stats) float64 { return float64(s.Total.Completed) }},
		{desc("tasks_failed_total", "Tasks that panicked or called runtime.Goexit."),
			func(s *steal.Stats) float64 { return float64(s.Total.Panics) }},
		{desc("tasks_skipped_total", "Tasks not run because their context was done before they started."),
			func(s *steal.Stats) float64 { return float64(s.Total.Skipped) }},
		{desc("tasks_spawned_total", "Tasks spawned from inside tasks, with Worker.Spawn or Spawn."),
			func(s *steal.Stats) float64 { return float64(s.Total.Spawned) }},
		{desc("steals_total", "Successful steals: one worker taking tasks from another's queues."),
			func(s *steal.Stats) float64 { return float64(s.Total.Steals) }},
		{desc("tasks_stolen_total", "Tasks moved by steals."),
			func(s *steal.Stats) float64 { return float64(s.Total.StolenIn) }},
		{desc("ring_overflows_total", "Times a worker's full ring moved half of its tasks to the inject queue."),
			func(s *steal.Stats) float64 { return float64(s.Total.Overflows) }},
		{desc("worker_parks_total", "Times a worker went to sleep for lack of work."),
			func(s *steal.Stats) float64 { return float64(s.Total.Parks) }},
		{desc("panics_dropped_total", "Panics counted but not kept for Close, past the pool's panic limit."),
			func(s *steal.Stats) float64 { return float64(s.PanicsDropped) }},
	}
	c.ran = desc("worker_tasks_ran_total", "Tasks each worker ran (run, failed or skipped, and inline parts of forks).", "worker")
	c.wait = desc("queue_wait_seconds", "Time submitted tasks waited before a worker started them; "+
		"one submitted task in steal.WithQueueWaitSampling's n (default 64) is timed.")
	c.run = desc("task_duration_seconds", "Time submitted tasks ran, from start to return, waits inside the pool included; "+
		"the tasks whose queue wait is timed are timed.")
	for _, m := range append(c.gauges, c.counts...) {
		c.allDesc = append(c.allDesc, m.desc)
	}
	c.allDesc = append(c.allDesc, c.ran, c.wait, c.run)
	return c
}

// mustBeMade panics, naming NewCollector, if steal.New did not make p: its
// zero value panics in every method, so each scrape would fail.
func mustBeMade(p *steal.Pool) {
	defer func() {
		if recover() != nil {
			panic("prom: NewCollector called with a steal.Pool that steal.New did not make (its zero value); make it with steal.New")
		}
	}()
	p.Workers()
}

// Describe sends the descriptions of every metric the collector reports.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.allDesc {
		ch <- d
	}
}

// Collect takes one Stats snapshot of the pool and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.p.Stats()
	for _, m := range c.gauges {
		ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, m.value(&s))
	}
	for _, m := range c.counts {
		ch <- prometheus.MustNewConstMetric(m.desc, prometheus.CounterValue, m.value(&s))
	}
	for i, w := range s.Workers {
		ch <- prometheus.MustNewConstMetric(c.ran, prometheus.CounterValue, float64(w.Ran), strconv.Itoa(i))
	}
	ch <- waitHistogram(c.wait, s.QueueWait)
	ch <- waitHistogram(c.run, s.TaskTime)
}

// waitHistogram converts one of the pool's histograms into Prometheus's
// cumulative buckets, in seconds.
func waitHistogram(d *prometheus.Desc, h steal.WaitHistogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cum uint64
	for i, b := range h.Bounds {
		cum += h.Counts[i]
		buckets[b.Seconds()] = cum
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum.Seconds(), buckets)
}
