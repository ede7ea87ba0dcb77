package main

import (
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster/natsserver"
)

// inboxRoot is the root of the cluster workers' reply subjects in this
// harness (nats.CustomInboxPrefix), so that replies to steal requests can
// be seen by an observer.
const inboxRoot = "_BI"

// stealObserver times steals from outside, without touching the cluster package: it
// subscribes to every steal request (steal.<cluster>.w.*.steal) and to the
// workers' inboxes, and pairs each request with its reply by the reply
// subject. Both arrive on one channel, in the order the server sent them,
// so the difference is the victim's handling (pop, atomic batch move,
// reply) plus one hop; the thief's request hop is not in it.
type stealObserver struct {
	nc      *nats.Conn
	ch      chan *nats.Msg
	quit    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	pending map[string]time.Time
	full    []time.Duration // steals that moved jobs
	empty   int             // steals answered with nothing
	moved   int
}

func observeSteals(e *natsserver.Server) (*stealObserver, error) {
	nc, err := e.Connect()
	if err != nil {
		return nil, err
	}
	o := &stealObserver{nc: nc, ch: make(chan *nats.Msg, 1<<16), quit: make(chan struct{}), done: make(chan struct{}),
		pending: map[string]time.Time{}}
	for _, subj := range []string{"steal." + clusterName + ".w.*.steal", inboxRoot + ".>"} {
		if _, err := nc.ChanSubscribe(subj, o.ch); err != nil {
			nc.Close()
			return nil, err
		}
	}
	if err := nc.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	go o.loop()
	return o, nil
}

func (o *stealObserver) loop() {
	defer close(o.done)
	for {
		select {
		case m := <-o.ch:
			o.note(m, time.Now())
		case <-o.quit:
			return
		}
	}
}

// note records a steal request, or pairs a reply with its request.
func (o *stealObserver) note(m *nats.Msg, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if m.Reply != "" && strings.HasPrefix(m.Subject, "steal.") {
		o.pending[m.Reply] = now
		return
	}
	t0, ok := o.pending[m.Subject]
	if !ok {
		return
	}
	delete(o.pending, m.Subject)
	if n := bytes.Count(m.Data, []byte(`"rev":`)); n > 0 {
		o.full = append(o.full, now.Sub(t0))
		o.moved += n
	} else {
		o.empty++
	}
}

// stop ends the observation and returns the latencies of steals that
// moved jobs, the number of empty answers and the jobs moved.
func (o *stealObserver) stop() ([]time.Duration, int, int) {
	o.nc.Close()
	close(o.quit)
	<-o.done
	return o.full, o.empty, o.moved
}
