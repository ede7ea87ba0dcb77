package prom_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/worksteal/steal"
	"github.com/worksteal/steal/prom"
)

func ExampleNewCollector() {
	p := steal.New()
	defer p.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(prom.NewCollector(p, "images"))
	// Serve reg: http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})).
	families, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range families {
		fmt.Println(f.GetName(), f.GetType())
	}
	// Output:
	// steal_backlog_tasks GAUGE
	// steal_inject_queue_tasks GAUGE
	// steal_panics_dropped_total COUNTER
	// steal_queue_wait_seconds HISTOGRAM
	// steal_ring_overflows_total COUNTER
	// steal_steals_total COUNTER
	// steal_task_duration_seconds HISTOGRAM
	// steal_tasks_completed_total COUNTER
	// steal_tasks_failed_total COUNTER
	// steal_tasks_skipped_total COUNTER
	// steal_tasks_spawned_total COUNTER
	// steal_tasks_stolen_total COUNTER
	// steal_tasks_submitted_total COUNTER
	// steal_worker_parks_total COUNTER
	// steal_worker_tasks_ran_total COUNTER
	// steal_workers GAUGE
	// steal_workers_idle GAUGE
	// steal_workers_spinning GAUGE
}
