package cluster

import (
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
)

// A worker that runs dry and knows of no worker with jobs queued asks
// who has some (steal.<cluster>.hungry, core NATS): at its start, and
// then when it runs dry again after running a job, at most once every
// lease/4. Every worker with jobs to spare answers with a hint to the
// asker alone (steal.<cluster>.w.<asker>.hint). A worker started after
// the jobs were placed learns of them at once, not at the next periodic
// hint. An idle cluster sends nothing (a worker asks again only after it
// has run a job), and a busy one at most W questions every lease/4, each
// delivered to W workers.

// askHungry publishes the question, once per dry spell and lease/4.
func (w *Worker) askHungry() {
	w.mu.Lock()
	now := time.Now()
	skip := w.asked || now.Sub(w.askedAt) < w.st.lease/4
	if !skip {
		w.asked, w.askedAt = true, now
	}
	w.mu.Unlock()
	if skip {
		return
	}
	b, _ := json.Marshal(hint{Name: w.name})
	w.nc.Publish(w.cfg.subject("hungry"), b)
}

// onHungry answers an asker when this worker has jobs to spare.
func (w *Worker) onHungry(m *nats.Msg) {
	var h hint
	if json.Unmarshal(m.Data, &h) != nil || h.Name == w.name || !validName(h.Name) {
		return
	}
	w.mu.Lock()
	q := w.surplusLocked()
	w.mu.Unlock()
	if q <= 0 {
		return
	}
	b, _ := json.Marshal(hint{Name: w.name, Queue: q})
	w.nc.Publish(w.cfg.subject("w."+h.Name+".hint"), b)
}
