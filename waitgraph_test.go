package steal

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The package doc's waiting rule is that any task may wait for any work of
// the pool. TestWaitGraphs checks it by construction: it builds random
// programs whose waits form no cycle, using every way the package has of
// starting work and of waiting for it, and requires every one of them to
// finish. A program is a list of shared pieces of work (a PoolSpawn
// future, a Pool.Group, a submitted task that closes a channel), each at a
// level: its tasks fork and wait for work of their own, in every form, and
// wait for shared pieces of lower levels only, so no wait can close a
// cycle. Whatever task a waiting task runs above itself, a scheduler that
// keeps to the rule must finish them all.
//
//	go test -run TestWaitGraphs -waitgraphs=100000 .    # a long run
//	go test -run TestWaitGraphs -waitgraphseed=42 -waitgraphs=1 -v .
var (
	waitGraphs    = flag.Int("waitgraphs", 0, "how many random wait graphs TestWaitGraphs runs (0: a quick default)")
	waitGraphSeed = flag.Uint64("waitgraphseed", 0, "the first seed of TestWaitGraphs (0: one from the clock)")
	waitGraphFor  = flag.Duration("waitgraphfor", 0, "run TestWaitGraphs for this long instead of a count")
)

// Operations of a node of a wait graph.
const (
	wgLeaf        = iota // a little work
	wgSeq                // the children one after the other
	wgJoin               // Join of two children
	wgFork2              // Fork2 of two children
	wgFor                // For over the children
	wgMap                // Map over the children
	wgGroup              // NewGroup, maybe with SetLimit
	wgPoolGroup          // a Pool.Group made inside the task
	wgSpawn              // a Spawn future per child, waited for
	wgPoolSpawn          // a PoolSpawn future per child, waited for
	wgWorkerSpawn        // Worker.Spawn per child, waited for through Block
	wgBlock              // the children inside Worker.Block
	wgPoolRun            // Pool.Run from inside the task
	wgWaitShared         // a wait for a shared piece of a lower level
	wgOps
)

var wgOpNames = [...]string{"leaf", "seq", "join", "fork2", "for", "map", "group", "poolgroup",
	"spawn", "poolspawn", "workerspawn", "block", "run", "waitshared"}

// Ways to wait for a shared piece of work.
const (
	wgWaitFuture    = iota // Future.Wait(w)
	wgWaitFutureNil        // Future.Wait(nil): helps, from a task
	wgWaitGroup            // Group.Wait of a Pool.Group (its one waiter)
	wgWaitChan             // Worker.Block around a channel receive
)

type wgNode struct {
	op    int
	kids  []*wgNode
	limit int // wgGroup: SetLimit's n, 0 for none
	res   int // wgWaitShared: the piece waited for
	how   int // wgWaitShared: how
}

// Kinds of shared work.
const (
	wgResFuture = iota // PoolSpawn
	wgResGroup         // Pool.Group, one child per body
	wgResSubmit        // Submit, closing a channel when done
)

type wgRes struct {
	kind   int
	bodies []*wgNode
	waited bool // wgResGroup: a task calls its Wait (else the test does)

	fut  *Future[int]
	grp  *Group
	done chan struct{}
}

type wgPlan struct {
	seed     uint64
	workers  int
	blockers int // tasks that sit in Block for the whole graph
	res      []*wgRes
}

// newWGPlan draws a wait graph from seed.
func newWGPlan(seed uint64) *wgPlan {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pl := &wgPlan{seed: seed, workers: []int{1, 2, 4}[r.IntN(3)]}
	if r.IntN(8) == 0 {
		pl.blockers = 300 // more than any fixed cap of spares the pool had
	}
	nres := 2 + r.IntN(6)
	budget := 50
	for level := range nres {
		res := &wgRes{kind: r.IntN(3), done: make(chan struct{})}
		n := 1
		if res.kind == wgResGroup {
			n = 1 + r.IntN(3)
		}
		for range n {
			res.bodies = append(res.bodies, genWGNode(r, pl, level, 0, &budget))
		}
		pl.res = append(pl.res, res)
	}
	return pl
}

func genWGNode(r *rand.Rand, pl *wgPlan, level, depth int, budget *int) *wgNode {
	*budget--
	if depth >= 4 || *budget <= 0 {
		if level > 0 && r.IntN(2) == 0 {
			return genWGWait(r, pl, level)
		}
		return &wgNode{op: wgLeaf}
	}
	op := r.IntN(wgOps)
	if op == wgWaitShared {
		if level == 0 {
			op = wgLeaf
		} else {
			return genWGWait(r, pl, level)
		}
	}
	n := &wgNode{op: op}
	nkids := 0
	switch op {
	case wgLeaf:
	case wgJoin, wgFork2:
		nkids = 2
	case wgBlock, wgPoolRun:
		nkids = 1
	default:
		nkids = 1 + r.IntN(3)
	}
	if op == wgGroup && r.IntN(2) == 0 {
		n.limit = 1 + r.IntN(2)
	}
	for range nkids {
		n.kids = append(n.kids, genWGNode(r, pl, level, depth+1, budget))
	}
	return n
}

func genWGWait(r *rand.Rand, pl *wgPlan, level int) *wgNode {
	n := &wgNode{op: wgWaitShared, res: r.IntN(level)}
	switch res := pl.res[n.res]; res.kind {
	case wgResFuture:
		n.how = []int{wgWaitFuture, wgWaitFutureNil, wgWaitChan}[r.IntN(3)]
	case wgResGroup:
		n.how = wgWaitChan
		if !res.waited && r.IntN(2) == 0 {
			res.waited, n.how = true, wgWaitGroup
		}
	default:
		n.how = wgWaitChan
	}
	return n
}

func (pl *wgPlan) String() string {
	s := fmt.Sprintf("workers=%d blockers=%d", pl.workers, pl.blockers)
	var node func(n *wgNode) string
	node = func(n *wgNode) string {
		s := wgOpNames[n.op]
		if n.op == wgWaitShared {
			return fmt.Sprintf("%s(%d,%d)", s, n.res, n.how)
		}
		if n.limit > 0 {
			s += fmt.Sprintf("/%d", n.limit)
		}
		if len(n.kids) > 0 {
			s += "("
			for i, k := range n.kids {
				if i > 0 {
					s += " "
				}
				s += node(k)
			}
			s += ")"
		}
		return s
	}
	for i, res := range pl.res {
		s += fmt.Sprintf("\n  %d kind=%d:", i, res.kind)
		for _, b := range res.bodies {
			s += " " + node(b)
		}
	}
	return s
}

// wgExec runs one plan.
type wgExec struct {
	pl   *wgPlan
	p    *Pool
	errs atomic.Pointer[error]
}

func (x *wgExec) errString() string {
	if p := x.errs.Load(); p != nil {
		return fmt.Sprintf("first failed wait: %v", *p)
	}
	return "no wait failed"
}

func (x *wgExec) fail(err error) {
	if err != nil {
		x.errs.CompareAndSwap(nil, &err)
	}
}

func (x *wgExec) node(w *Worker, n *wgNode) {
	switch n.op {
	case wgLeaf:
		if w.ID()%2 == 0 {
			runtime.Gosched()
		}
	case wgSeq:
		for _, k := range n.kids {
			x.node(w, k)
		}
	case wgJoin:
		Join(w, func(w *Worker) { x.node(w, n.kids[0]) }, func(w *Worker) { x.node(w, n.kids[1]) })
	case wgFork2:
		Fork2(w, func(w *Worker, k *wgNode) int { x.node(w, k); return 0 }, n.kids[0], n.kids[1])
	case wgFor:
		For(w, 0, len(n.kids), func(w *Worker, i int) { x.node(w, n.kids[i]) })
	case wgMap:
		Map(w, n.kids, func(w *Worker, k *wgNode) int { x.node(w, k); return 0 })
	case wgGroup:
		g := NewGroup(w)
		if n.limit > 0 {
			g.SetLimit(n.limit)
		}
		for _, k := range n.kids {
			g.Go(func(w *Worker) error { x.node(w, k); return nil })
		}
		x.fail(g.Wait())
	case wgPoolGroup:
		g := x.p.Group(context.Background())
		for _, k := range n.kids {
			g.Go(func(w *Worker) error { x.node(w, k); return nil })
		}
		x.fail(g.Wait())
	case wgSpawn:
		var fs []*Future[int]
		for _, k := range n.kids {
			fs = append(fs, Spawn(w, func(w *Worker) int { x.node(w, k); return 0 }))
		}
		for i := len(fs) - 1; i >= 0; i-- {
			_, err := fs[i].Wait(w)
			x.fail(err)
		}
	case wgPoolSpawn:
		var fs []*Future[int]
		for _, k := range n.kids {
			f, err := PoolSpawn(context.Background(), x.p, func(w *Worker) int { x.node(w, k); return 0 })
			if err != nil {
				x.fail(err)
				return
			}
			fs = append(fs, f)
		}
		for _, f := range fs {
			_, err := f.Wait(w)
			x.fail(err)
		}
	case wgWorkerSpawn:
		done := make(chan struct{}, len(n.kids))
		for _, k := range n.kids {
			w.Spawn(func(w *Worker) { x.node(w, k); done <- struct{}{} })
		}
		w.Block(func() {
			for range n.kids {
				<-done
			}
		})
	case wgBlock:
		w.Block(func() { x.node(w, n.kids[0]) })
	case wgPoolRun:
		x.fail(x.p.Run(func(w *Worker) { x.node(w, n.kids[0]) }))
	case wgWaitShared:
		res := x.pl.res[n.res]
		switch n.how {
		case wgWaitFuture:
			_, err := res.fut.Wait(w)
			x.fail(err)
		case wgWaitFutureNil:
			_, err := res.fut.Wait(nil)
			x.fail(err)
		case wgWaitGroup:
			x.fail(res.grp.Wait())
		case wgWaitChan:
			w.Block(func() { <-res.done })
		}
	}
}

// start makes the shared work, lowest level first, so that every piece
// exists before any task can wait for it.
func (x *wgExec) start() {
	for _, res := range x.pl.res {
		switch res.kind {
		case wgResFuture:
			f, err := PoolSpawn(context.Background(), x.p, func(w *Worker) int { x.node(w, res.bodies[0]); return 0 })
			if err != nil {
				x.fail(err)
				close(res.done)
				continue
			}
			res.fut = f
			go func() { <-f.Done(); close(res.done) }()
		case wgResGroup:
			// done closes when the last child returns, whoever waits
			// for the group and whenever.
			res.grp = x.p.Group(context.Background())
			left := newCountdown(len(res.bodies))
			res.done = left.done
			for _, b := range res.bodies {
				res.grp.Go(func(w *Worker) error { x.node(w, b); left.dec(); return nil })
			}
			if !res.waited {
				go func() { x.fail(res.grp.Wait()) }()
			}
		case wgResSubmit:
			x.fail(x.p.Submit(context.Background(), func(w *Worker) { x.node(w, res.bodies[0]); close(res.done) }))
		}
	}
}

// wgTimeout is how long one graph may take before the test calls it a
// hang: a graph takes milliseconds, but a loaded machine under the race
// detector can be very slow.
const wgTimeout = 20 * time.Second

func runWaitGraph(t *testing.T, seed uint64) {
	pl := newWGPlan(seed)
	x := &wgExec{pl: pl, p: New(WithWorkers(pl.workers))}
	release := make(chan struct{})
	var blocked sync.WaitGroup
	blocked.Add(pl.blockers)
	for range pl.blockers {
		x.fail(x.p.Submit(context.Background(), func(w *Worker) {
			w.Block(func() { blocked.Done(); <-release })
		}))
	}
	if pl.blockers > 0 {
		// All of them inside Block before the graph starts, where a pool
		// with spares to spare lets them get there.
		ok := make(chan struct{})
		go func() { blocked.Wait(); close(ok) }()
		select {
		case <-ok:
		case <-time.After(time.Second):
		}
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		x.start()
		for _, res := range pl.res {
			<-res.done
		}
	}()
	select {
	case <-finished:
	case <-time.After(wgTimeout):
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("wait graph of seed %d did not finish in %v (rerun: -run TestWaitGraphs -waitgraphseed=%d -waitgraphs=1)\n%s\n%s\n%s\ngoroutines:\n%s",
			seed, wgTimeout, seed, pl, x.p.SchedTrace(0), wgQueues(x.p)+x.errString(), buf)
	}
	close(release)
	if err := x.p.Close(); err != nil {
		t.Fatalf("seed %d: Close: %v\n%s", seed, err, pl)
	}
	if p := x.errs.Load(); p != nil {
		t.Fatalf("seed %d: a wait failed: %v\n%s", seed, *p, pl)
	}
}

// wgQueues describes the queues of every worker and spare of p.
func wgQueues(p *Pool) string {
	s := ""
	for _, v := range *p.victims.Load() {
		s += fmt.Sprintf("core %d: jobs=%d ring=%d runnext=%v blocking=%v\n",
			v.id, v.jobs.Len(), v.ring.Len(), v.runnext.Load() != nil, v.blocking.Load())
	}
	return s
}

func TestWaitGraphs(t *testing.T) {
	n := *waitGraphs
	if n == 0 {
		n = 600 // about 10 s with -race on two shared cores
		if testing.Short() {
			n = 50
		}
	}
	seed := *waitGraphSeed
	if seed == 0 {
		if s, err := strconv.ParseUint(os.Getenv("WAITGRAPHSEED"), 10, 64); err == nil {
			seed = s
		} else {
			seed = uint64(time.Now().UnixNano())
		}
	}
	t.Logf("first seed %d", seed)
	var deadline time.Time
	if *waitGraphFor > 0 {
		deadline = time.Now().Add(*waitGraphFor)
		n = int(^uint(0) >> 1)
	}
	ran := 0
	for i := 0; i < n; i++ {
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		runWaitGraph(t, seed+uint64(i))
		ran++
	}
	t.Logf("%d graphs", ran)
}
