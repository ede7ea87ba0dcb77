package cluster

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestFlatJobMessages counts where the server messages of flat jobs go:
// 16 in-process workers of one slot, stealing on, memory storage, 1000
// no-op jobs submitted one at a time by 8 goroutines. A subscriber on ">"
// sees every message published and every delivery (a delivery keeps its
// subject), so a job's record shows twice (the client's PUT and its
// delivery to the owner's watch), as does the DEL of its completion (and
// its echo on that watch); the ledger's PUT d.<id> once. Run with -v for
// the table that docs/cluster.md quotes ("Where a flat job's messages
// go").
func TestFlatJobMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 16 workers")
	}
	h := newHarness(t)
	const workers, n = 16, 1000
	var names []string
	var ws []*Worker
	for i := range workers {
		name := "w" + strconv.Itoa(i)
		names = append(names, name)
		ws = append(ws, h.worker(name, func(w *Worker) { w.Handle("job", noopHandler) }, WithSlots(1)))
	}
	h.ready(names...)
	time.Sleep(time.Second) // past the workers' start
	var mu sync.Mutex
	kinds := map[string]int{}
	obs := h.conn()
	sub, err := obs.Subscribe(">", func(m *nats.Msg) {
		k := messageKind(m.Subject, m.Header.Get("KV-Operation"))
		mu.Lock()
		kinds[k]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every message must be counted: no limit on what waits for the
	// callback (nats.go drops past 65,536 by default).
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		t.Fatal(err)
	}
	v0, err := h.e.NATS().Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				if err := h.client.Submit(context.Background(), "j"+strconv.Itoa(i), "job", nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	waitFor(t, time.Minute, "completions", func() bool {
		var c int64
		for _, w := range ws {
			c += w.Stats().Completed
		}
		return c == n
	})
	v1, err := h.e.NATS().Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The observer has all that the server sent it once a round trip
	// through the server returns; draining then runs the callback for
	// every message received.
	if err := obs.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sub.Drain(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the observer's drain", func() bool { return !sub.IsValid() })
	if d, _ := sub.Dropped(); d > 0 {
		t.Fatalf("the observer dropped %d messages", d)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := 0
	for _, c := range kinds {
		seen += c
	}
	// The observer's own deliveries are out messages the cluster did not cause.
	perJob := float64(v1.InMsgs+v1.OutMsgs-v0.InMsgs-v0.OutMsgs-int64(seen)) / n
	if testing.Verbose() {
		var ks []string
		for k := range kinds {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool { return kinds[ks[i]] > kinds[ks[j]] })
		for _, k := range ks {
			fmt.Printf("%7.3f  %s\n", float64(kinds[k])/n, k)
		}
		fmt.Printf("%7.3f  server messages a job, in and out\n", perJob)
	}
	if got := kinds["PUT d.<id>"]; got != n {
		t.Errorf("%d ledger writes for %d jobs, want one each", got, n)
	}
	if got := kinds["PUT q.<worker>.<id>"]; got < 2*n || got > 2*n+n/10 {
		t.Errorf("%d record PUTs seen for %d jobs, want about 2 each (the write and its delivery)", got, n)
	}
	if got := kinds["DEL q.<worker>.<id>"]; got < 2*n || got > 2*n+n/10 {
		t.Errorf("%d record DELs seen for %d jobs, want about 2 each (the completion's and its echo)", got, n)
	}
	// Seven are the job's own (the record's PUT, its ack and delivery; the
	// completion's DEL and PUT, their ack, the DEL's echo); the rest is
	// control traffic (steals, hints, asks, leases), which grows with the
	// run's length, not its jobs: under the race detector it is more.
	if perJob < 7 || perJob > 12 {
		t.Errorf("%.2f server messages a flat job, want 7 and some control traffic", perJob)
	}
}

func noopHandler(context.Context, *Job) ([]byte, error) { return nil, nil }

// messageKind names what a message seen on ">" is: a write to the jobs
// bucket by operation (its KV-Operation header) and key shape, a steal or control subject with its
// worker left out, an inbox (replies and acks).
func messageKind(subj, op string) string {
	parts := strings.Split(subj, ".")
	if op == "" {
		op = "PUT"
	}
	switch {
	case strings.HasPrefix(subj, "_INBOX."):
		return "replies and acks (_INBOX)"
	case len(parts) >= 5 && parts[0] == "$KV" && parts[2] == "q":
		return op + " q.<worker>.<id>"
	case len(parts) >= 4 && parts[0] == "$KV" && parts[2] == "d":
		return op + " d.<id>"
	case len(parts) >= 3 && parts[0] == "$KV":
		return "$KV." + parts[1]
	case len(parts) >= 5 && parts[0] == "steal" && parts[2] == "w":
		return "steal.<cluster>.w.<worker>." + parts[len(parts)-1]
	case len(parts) >= 3 && parts[0] == "steal":
		return "steal.<cluster>." + strings.Join(parts[2:], ".")
	}
	return parts[0]
}
