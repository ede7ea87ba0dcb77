package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// probeSize is a steal size the probe asks for, and how many times.
type probeSize struct {
	Max   int `json:"max_jobs"`
	Count int `json:"count"`
}

// probeRow is the latency of steals of one size sent by the harness.
type probeRow struct {
	Max    int     `json:"max_jobs"`
	Steals int     `json:"steals"`
	Moved  float64 `json:"jobs_per_steal"`
	P50US  float64 `json:"p50_us"`
	P99US  float64 `json:"p99_us"`
	lat    []time.Duration
	moved  int
}

// probeSteals times steal request-replies that the harness sends itself,
// as a thief named "probe", to one worker whose jobs wait at a gate: the
// victim's whole handling (pop from the back, one atomic batch moving the
// records, reply) and both hops, with nothing else running. It speaks the
// request of the steal subject (steal.<cluster>.w.<victim>.steal,
// {"thief","max"}), which the cluster package documents in its design, not its API.
func probeSteals(sizes []probeSize, runs int, log io.Writer) ([]*probeRow, error) {
	rows := make([]*probeRow, len(sizes))
	for i, s := range sizes {
		rows[i] = &probeRow{Max: s.Max}
	}
	for range runs {
		if err := probeOnce(sizes, rows); err != nil {
			return rows, fmt.Errorf("steal probe: %w", err)
		}
	}
	for _, r := range rows {
		r.Steals = len(r.lat)
		r.P50US, r.P99US = us(percentile(r.lat, 50)), us(percentile(r.lat, 99))
		if r.Steals > 0 {
			r.Moved = float64(r.moved) / float64(r.Steals)
		}
		fmt.Fprintf(log, "steal probe max %-3d %d steals p50 %.0f µs p99 %.0f µs\n", r.Max, r.Steals, r.P50US, r.P99US)
	}
	return rows, nil
}

func probeOnce(sizes []probeSize, rows []*probeRow) error {
	e, err := natsserver.Start()
	if err != nil {
		return err
	}
	defer e.Shutdown()
	gate := make(chan struct{})
	sys, err := newDistSystem(e, cluster.StealOff, workload{Kind: kindThroughput}, gate, 3*time.Second)
	if err != nil {
		return err
	}
	defer sys.close()
	defer close(gate)
	ctx, cancel := context.WithTimeout(context.Background(), trialTimeout)
	defer cancel()
	if err := sys.start(ctx, 0, 1); err != nil {
		return err
	}
	n := 1 // the job that runs, waiting at the gate
	for _, s := range sizes {
		n += s.Max*s.Count + 2*s.Max // slack: a steal takes at most half the queue
	}
	if err := submitAll(ctx, sys, n, true); err != nil {
		return err
	}
	nc, err := e.Connect()
	if err != nil {
		return err
	}
	defer nc.Close()
	subj := "steal." + clusterName + ".w." + workerName(0) + ".steal"
	for i, s := range sizes {
		req := fmt.Appendf(nil, `{"thief":"probe","max":%d}`, s.Max)
		for range s.Count {
			t0 := time.Now()
			m, err := nc.Request(subj, req, 5*time.Second)
			if err != nil {
				return err
			}
			rows[i].lat = append(rows[i].lat, time.Since(t0))
			rows[i].moved += bytes.Count(m.Data, []byte(`"rev":`))
		}
	}
	return nil
}
