package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// These two calls let a tool look at a running cluster and move work by
// hand: steal node --nats (in cluster/cmd/stealclustercluster) serves the node protocol's
// check_cluster_state and steal_job with them.

var (
	// ErrUnknownWorker: Steal named a worker that holds no lease, or a
	// victim that did not answer.
	ErrUnknownWorker = &Error{"unknown_worker", "no live worker by that name"}
	// ErrSameWorker: Steal named one worker as both thief and victim.
	ErrSameWorker = &Error{"same_worker", "thief and victim are the same worker"}
)

// WorkerState is one worker's state as it answered a Client.
type WorkerState struct {
	Name      string
	Queue     int   // jobs waiting in its deque
	Running   int   // jobs its handlers are running
	Busy      bool  // it holds a job: queued, running, moving or being submitted
	Completed int64 // completions it recorded since it started (failures included)
	Stolen    int64 // jobs it took from victims since it started (not those Client.Steal moved to it)
	Given     int64 // jobs it handed to thieves since it started
}

// Workers asks every worker that holds a lease for its state and returns
// the answers sorted by name. A worker that does not answer within a
// quarter of the request timeout (WithRequestTimeout) is left out.
func (c *Client) Workers(ctx context.Context) ([]WorkerState, error) {
	names, err := c.members(ctx)
	if err != nil {
		return nil, err
	}
	got, err := c.wave(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]WorkerState, 0, len(got))
	for _, b := range got {
		out = append(out, WorkerState{b.Name, b.Queue, b.Running, b.Busy, b.Completed, b.Stolen, b.Given})
	}
	slices.SortFunc(out, func(a, b WorkerState) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// StealResult is what one Steal moved.
type StealResult struct {
	Jobs        []string // ids of the jobs moved to the thief
	VictimQueue int      // the victim's queue length after the steal
}

// Steal asks victim to give up to n of its queued jobs (n <= 0: half,
// as an idle worker takes) to thief, as if thief had asked (the victim
// counts them as Given; the thief does not count them as Stolen): the victim
// pops them from the back of its deque and moves their records to thief in
// one atomic batch, and thief, which watches its records, queues and runs
// them. Both must be live workers: ErrUnknownWorker when either holds no
// lease or the victim does not answer, ErrSameWorker when they are one,
// ErrInvalidName for an invalid name; none of these moves anything. A
// victim with nothing to give returns an empty Jobs and no error. Jobs
// lists every job moved, also when the victim's answer from the servers
// was lost and its retry found the move applied. Any other error (no
// answer within WithRequestTimeout) leaves the outcome unknown: the victim
// may still move the jobs, and thief then runs them. Should thief die
// before it runs them, the jobs are taken over by a survivor like any
// dead worker's.
func (c *Client) Steal(ctx context.Context, thief, victim string, n int) (StealResult, error) {
	switch {
	case !validName(thief) || !validName(victim):
		return StealResult{}, ErrInvalidName
	case thief == victim:
		return StealResult{}, ErrSameWorker
	}
	if err := c.live(ctx, thief); err != nil {
		return StealResult{}, err
	}
	b, _ := json.Marshal(stealRequest{Thief: thief, Max: max(n, 0)})
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	m, err := c.nc.RequestWithContext(ctx, c.cfg.subject("w."+victim+".steal"), b)
	if errors.Is(err, nats.ErrNoResponders) {
		return StealResult{}, ErrUnknownWorker
	}
	if err != nil {
		return StealResult{}, err
	}
	var rep stealReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return StealResult{}, &Error{ErrServer.Code, "unreadable steal reply"}
	}
	res := StealResult{Jobs: []string{}, VictimQueue: rep.Queue}
	for _, j := range rep.Jobs {
		var r record
		if json.Unmarshal(j.Rec, &r) == nil {
			res.Jobs = append(res.Jobs, r.ID)
		}
	}
	res.Jobs = append(res.Jobs, rep.Late...) // moved, though the victim's answer from the servers was lost
	return res, nil
}

// live returns ErrUnknownWorker unless name holds a lease.
func (c *Client) live(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	_, err := c.st.workers.Get(ctx, name)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return ErrUnknownWorker
	}
	return err
}
