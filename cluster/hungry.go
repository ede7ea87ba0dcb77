package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// A worker that runs dry and knows of no worker with jobs queued asks
// who has some: a request on steal.<cluster>.hungry (core NATS), at its
// start and then when it runs dry again after running a job, at most
// every hintGap; and, while its questions are answered with hints, again
// after askAgain (the lender named may have given its jobs to faster
// thieves by the time this one steals).
//
// Only workers with jobs to spare listen on that subject, in one queue
// group (lendersQueue): the servers hand each question to one of them,
// picked at random, and answer "no responders" at once when there is
// none. A question therefore costs at most a handful of server messages
// whatever W. Were every worker to listen, each question would cost W
// deliveries, and W² when every worker runs dry together (at W = 256
// that was most of the servers' messages of a run of short jobs).
//
// The lender answers with a hint, which the asker treats as any other.
// The hint loop joins the group when it sees jobs to spare and leaves it
// when it sees none (listenHungry); a lender asked after its surplus went
// leaves at once and answers empty, and the asker asks again, up to
// hungryTries times. A worker started after the jobs were placed learns
// of them at once, not at the next periodic hint; an idle cluster sends
// nothing. While workers of earlier versions (which hear every question
// and answer on the asker's hint subject) are connected, a question with
// no lender gets no "no responders" and waits out the request timeout,
// off the dispatcher.

// lendersQueue is the queue group of the workers with jobs to spare.
const lendersQueue = "lenders"

// hungryTries bounds the tries of one question: a try answered empty (by a
// lender whose surplus went) or not within askWait goes again.
const hungryTries = 3

// askHungry asks, off the dispatcher, and returns how long the
// dispatcher may wait before it calls again (0: until a hint or a signal).
// A worker asks once per dry spell and at most every hintGap, unless its
// last question was answered with a hint: lenders then had jobs to
// spare, and the thieves race for them, so one that finds the lender
// emptied asks again after askAgain instead of waiting for a periodic
// hint. A question costs a few messages whatever W, and one answered
// with a hint only comes while some worker has jobs to spare: an idle
// cluster asks once per dry spell.
func (w *Worker) askHungry() time.Duration {
	w.mu.Lock()
	gap := hintGap
	if w.lenders {
		gap = askAgain
	}
	since := time.Since(w.askedAt)
	mayAsk := !w.asked || w.lenders // this dry spell
	if !mayAsk || since < gap {
		w.mu.Unlock()
		if !mayAsk {
			return 0
		}
		return gap - since
	}
	w.asked, w.askedAt, w.lenders = true, time.Now(), false
	w.mu.Unlock()
	b, _ := json.Marshal(hint{Name: w.name})
	w.wg.Add(1) // the dispatcher, in wg, is running: Close waits for this too
	go func() {
		defer w.wg.Done()
		w.ask(b)
	}()
	return 0
}

// askAgain spaces the questions of a worker whose last one was answered
// with a hint.
const askAgain = maxIdleWait

// askWait bounds the wait for one lender's answer. A lender answers from
// its subscription at once; one that has not within askWait is taken to
// be stopped or cut off (the servers keep its subscription until they
// miss its pings, minutes by default), and the question goes again, most
// likely to another lender.
const askWait = 500 * time.Millisecond

// ask sends the question until a lender answers with a hint, nobody has
// jobs to spare (no responders), or hungryTries tries went unanswered or
// were answered empty (by lenders whose surplus went).
func (w *Worker) ask(question []byte) {
	for range hungryTries {
		ctx, cancel := context.WithTimeout(w.ctx, min(w.cfg.timeout, askWait))
		m, err := w.nc.RequestWithContext(ctx, w.cfg.subject("hungry"), question)
		cancel()
		switch {
		case w.ctx.Err() != nil || errors.Is(err, nats.ErrNoResponders):
			return // closing, or no lender: a hint comes when one has jobs to spare
		case err == nil && len(m.Data) > 0:
			w.mu.Lock()
			w.lenders = true
			w.mu.Unlock()
			w.onHint(m)
			return
		}
	}
}

// listenHungry keeps the worker in the lenders' queue group while it has
// jobs to spare (surplus > 0) and out of it otherwise. Only the hint loop
// calls it, so the subscription needs no lock.
func (w *Worker) listenHungry(surplus int) {
	if w.hungrySub != nil && !w.hungrySub.IsValid() {
		w.hungrySub = nil // onHungry left the group when it answered empty
	}
	switch {
	case surplus > 0 && w.hungrySub == nil:
		if sub, err := w.nc.QueueSubscribe(w.cfg.subject("hungry"), lendersQueue, w.onHungry); err == nil {
			w.hungrySub = sub
		}
	case surplus <= 0 && w.hungrySub != nil:
		w.hungrySub.Unsubscribe()
		w.hungrySub = nil
	}
}

// onHungry answers a question with a hint when this worker has jobs to
// spare, and empty when not, having left the group first. A question
// without a reply subject, as earlier versions ask, gets its hint on the
// asker's hint subject.
func (w *Worker) onHungry(m *nats.Msg) {
	var h hint
	if json.Unmarshal(m.Data, &h) != nil || !validName(h.Name) {
		return
	}
	q := 0
	if h.Name != w.name {
		w.mu.Lock()
		q = w.surplusLocked()
		w.mu.Unlock()
	}
	if q <= 0 {
		// Leave before answering: the UNSUB goes out ahead of the
		// answer on this connection, so the asker's next try reaches
		// another lender, not this one again. The hint loop joins
		// again when it sees jobs to spare (listenHungry).
		if m.Sub != nil {
			m.Sub.Unsubscribe()
		}
		poke(w.kick)
		if m.Reply != "" {
			m.Respond(nil)
		}
		return
	}
	b, _ := json.Marshal(hint{Name: w.name, Queue: q})
	if m.Reply != "" {
		m.Respond(b)
		return
	}
	w.nc.Publish(w.cfg.subject("w."+h.Name+".hint"), b)
}
