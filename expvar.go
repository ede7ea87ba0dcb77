package steal

import (
	"encoding/json"
	"fmt"
)

// Expvar returns p's metrics as an expvar.Var, to publish under a name of
// your choice:
//
//	expvar.Publish("steal", p.Expvar())
//
// Its String method takes a Stats snapshot and returns it as one JSON
// object: workers, idle, spinning, inject, submitted, backlog, ran,
// completed, failed (panicked or called runtime.Goexit), skipped,
// spawned, steals, stolen, overflows, parks, panics_kept, panics_dropped,
// and queue_wait with every, count, sum_seconds and the estimated
// p50_seconds, p90_seconds and p99_seconds. See Stats for what each
// counts.
//
// The package does not import expvar itself, so that programs which do
// not use it do not link net/http nor get /debug/vars registered on
// http.DefaultServeMux: the value returned satisfies expvar.Var, an
// interface with the one method String. expvar.Publish panics if the name
// is taken, and a published variable is never removed, so publish a pool
// that lives as long as the program.
//
// Cost: nothing until read; each read (each request to /debug/vars) costs
// a Stats call and a small JSON encoding.
func (p *Pool) Expvar() fmt.Stringer { return expvarPool{p} }

type expvarPool struct{ p *Pool }

// expvarStats is the JSON object of Expvar.
type expvarStats struct {
	Workers       int           `json:"workers"`
	Idle          int           `json:"idle"`
	Spinning      int           `json:"spinning"`
	Inject        int           `json:"inject"`
	Submitted     uint64        `json:"submitted"`
	Backlog       int           `json:"backlog"`
	Ran           uint64        `json:"ran"`
	Completed     uint64        `json:"completed"`
	Failed        uint64        `json:"failed"`
	Skipped       uint64        `json:"skipped"`
	Spawned       uint64        `json:"spawned"`
	Steals        uint64        `json:"steals"`
	Stolen        uint64        `json:"stolen"`
	Overflows     uint64        `json:"overflows"`
	Parks         uint64        `json:"parks"`
	PanicsKept    uint64        `json:"panics_kept"`
	PanicsDropped uint64        `json:"panics_dropped"`
	QueueWait     expvarWaitMap `json:"queue_wait"`
}

type expvarWaitMap struct {
	Every      int     `json:"every"`
	Count      uint64  `json:"count"`
	SumSeconds float64 `json:"sum_seconds"`
	P50        float64 `json:"p50_seconds"`
	P90        float64 `json:"p90_seconds"`
	P99        float64 `json:"p99_seconds"`
}

// String returns the pool's metrics as JSON, as expvar.Var requires.
func (v expvarPool) String() string {
	s := v.p.Stats()
	t := s.Total
	w := s.QueueWait
	out, err := json.Marshal(expvarStats{
		Workers: len(s.Workers), Idle: s.Idle, Spinning: s.Spinning, Inject: s.Inject,
		Submitted: s.Submitted, Backlog: s.Backlog,
		Ran: t.Ran, Completed: t.Completed, Failed: t.Panics, Skipped: t.Skipped,
		Spawned: t.Spawned, Steals: t.Steals, Stolen: t.StolenIn, Overflows: t.Overflows,
		Parks: t.Parks, PanicsKept: s.PanicsKept, PanicsDropped: s.PanicsDropped,
		QueueWait: expvarWaitMap{Every: w.Every, Count: w.Count, SumSeconds: w.Sum.Seconds(),
			P50: w.Quantile(0.5).Seconds(), P90: w.Quantile(0.9).Seconds(), P99: w.Quantile(0.99).Seconds()},
	})
	if err != nil { // cannot happen: every field is a number
		return fmt.Sprintf("{%q:%q}", "error", err.Error())
	}
	return string(out)
}
