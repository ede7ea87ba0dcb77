package cluster

import (
	"context"
	"encoding/json"

	"github.com/nats-io/nats.go/jetstream"
)

// Idle reports whether the cluster was idle at one instant during the
// call: no job queued, running, or moving in a steal or takeover, at any
// worker, live or dead. Jobs whose Submit has not returned are not counted.
//
// The check (after Mattern's counting waves, with the bucket as the count):
// wave 1 asks every worker holding a lease for its state; all must answer
// idle. Then the bucket must hold no live record. Then wave 2 must find the
// same workers idle with the same incarnation and epoch. A worker's epoch
// rises whenever it leaves idle, and every record is written by a busy
// worker or by a client's Submit (or SubmitBatch) before it returns, so no
// worker held or moved a job between the waves, the empty listing saw the
// bucket as it was then, and a job whose submission returned before the
// call had its record in it. A dead worker's records keep the
// listing non-empty until a survivor has taken them over.
func (c *Client) Idle(ctx context.Context) (bool, error) {
	names, err := c.members(ctx)
	if err != nil {
		return false, err
	}
	w1, err := c.wave(ctx, names)
	if err != nil || !allIdle(w1, names) {
		return false, err
	}
	keys, err := c.st.keys(ctx, "q.>")
	if err != nil || len(keys) > 0 {
		return false, err
	}
	w2, err := c.wave(ctx, names)
	if err != nil || !allIdle(w2, names) || len(w1) != len(w2) {
		return false, err
	}
	for n, b := range w1 {
		if b2 := w2[n]; b2.Inc != b.Inc || b2.Epoch != b.Epoch {
			return false, nil
		}
	}
	return true, nil
}

// members lists the names of the workers that hold a lease.
func (c *Client) members(ctx context.Context) ([]string, error) {
	return c.st.listKeys(ctx, c.st.workers, jetstream.AllKeys)
}

// wave gathers the state of every worker (scatter-gather on the state
// subject) until all of names answered or a quarter of the request timeout
// passed.
func (c *Client) wave(ctx context.Context, names []string) (map[string]beat, error) {
	inbox := c.nc.NewRespInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer sub.Unsubscribe()
	if err := c.nc.PublishRequest(c.cfg.subject("state"), inbox, nil); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	got := map[string]beat{}
	wctx, cancel := context.WithTimeout(ctx, c.cfg.timeout/4)
	defer cancel()
	for missing := len(want); missing > 0; {
		m, err := sub.NextMsgWithContext(wctx)
		if err != nil {
			break
		}
		var b beat
		if json.Unmarshal(m.Data, &b) != nil {
			continue
		}
		if want[b.Name] {
			if _, seen := got[b.Name]; !seen {
				missing--
			}
		}
		got[b.Name] = b
	}
	return got, ctx.Err()
}

// allIdle: every named worker answered and every answer is idle.
func allIdle(got map[string]beat, names []string) bool {
	for _, n := range names {
		if _, ok := got[n]; !ok {
			return false
		}
	}
	for _, b := range got {
		if b.Busy {
			return false
		}
	}
	return true
}
