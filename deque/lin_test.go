package deque

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Linearizability: short randomised concurrent histories (one owner, three
// thieves, single and batch steals) are recorded and checked by porcupine
// against a sequential model of the queue.

type linKind uint8

const (
	opPush      linKind = iota // owner: Deque.Push, Ring.Put
	opPop                      // owner: Deque.Pop (newest), Ring.Get (oldest)
	opLen                      // Deque.Len by the owner, Ring.Len by anyone
	opSteal                    // Deque.Steal
	opStealHalf                // StealHalf: the returned item, then what went into dst
)

var linKindName = [...]string{"Push", "Pop", "Len", "Steal", "StealHalf"}

type linIn struct {
	kind linKind
	v    int // the item pushed
}

type linOut struct {
	v    int    // the item taken (0: nil), or the length for opLen
	list string // opStealHalf: the items taken; opPush on a full Ring: the overflow batch
}

// Model states and item lists are strings of 2-byte items, oldest first, so
// that states compare with == and slicing a prefix is free.
func enc(items ...int) string {
	var sb strings.Builder
	for _, v := range items {
		sb.WriteByte(byte(v >> 8))
		sb.WriteByte(byte(v))
	}
	return sb.String()
}

func dec(s string) []int {
	out := make([]int, len(s)/2)
	for i := range out {
		out[i] = int(s[2*i])<<8 | int(s[2*i+1])
	}
	return out
}

// linSpec is the sequential specification shared by both queues.
type linSpec struct {
	lifo     bool // Pop takes the newest item (Deque) rather than the oldest (Ring.Get)
	capacity int  // 0: unbounded; otherwise a full queue's Push returns the older half plus the item
	maxBatch int  // 0: no cap on StealHalf beyond n - n/2
	// anyBatch relaxes StealHalf to "a non-empty prefix of at most
	// min(n, maxBatch) items" (see linConfig.withLen).
	anyBatch bool
}

var (
	dequeSpec = linSpec{lifo: true, maxBatch: MaxBatch}
	ringSpec  = linSpec{capacity: RingSize}
)

var linSeed = maphash.MakeSeed()

func (s linSpec) model(init string) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, output any) (bool, any) {
			q, in, out := state.(string), input.(linIn), output.(linOut)
			n := len(q) / 2
			switch in.kind {
			case opPush:
				if s.capacity > 0 && n >= s.capacity {
					half := 2 * (s.capacity / 2)
					return out.v == 0 && out.list == q[:half]+enc(in.v), q[half:]
				}
				return out.v == 0 && out.list == "", q + enc(in.v)
			case opPop:
				if n == 0 {
					return out.v == 0, q
				}
				if s.lifo {
					return out.v == dec(q[len(q)-2:])[0], q[:len(q)-2]
				}
				return out.v == dec(q[:2])[0], q[2:]
			case opSteal:
				if n == 0 {
					return out.v == 0, q
				}
				return out.v == dec(q[:2])[0], q[2:]
			case opStealHalf:
				if n == 0 {
					return out.list == "", q
				}
				k := n - n/2
				if s.maxBatch > 0 {
					k = min(k, s.maxBatch)
				}
				if s.anyBatch {
					k = len(out.list) / 2
					if k < 1 || k > n || (s.maxBatch > 0 && k > s.maxBatch) {
						return false, q
					}
				}
				return out.list == q[:2*k], q[2*k:]
			case opLen:
				return out.v == n, q
			}
			panic("unknown op")
		},
		Hash: func(state any) uint64 { return maphash.String(linSeed, state.(string)) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(linIn), output.(linOut)
			switch in.kind {
			case opPush:
				if out.list != "" {
					return fmt.Sprintf("Push(%d) -> overflow %v", in.v, dec(out.list))
				}
				return fmt.Sprintf("Push(%d)", in.v)
			case opStealHalf:
				return fmt.Sprintf("StealHalf() -> %v", dec(out.list))
			}
			return fmt.Sprintf("%s() -> %d", linKindName[in.kind], out.v)
		},
		DescribeState: func(state any) string { return fmt.Sprint(dec(state.(string))) },
	}
}

// linQueue adapts a queue under test to the operations of the model. The
// owner calls push, pop and ownerLen; thief i calls steal(i), stealHalf(i)
// and thiefLen.
type linQueue interface {
	push(v int) linOut
	pop() linOut
	ownerLen() int
	steal(thief int) linOut
	stealHalf(thief int) linOut
	thiefLen() (int, bool) // false: Len from a thief is not linearizable for this queue
}

const linThieves = 3

// items hands out *int for small positive values without allocating per push.
type items []int

func newItems(n int) items {
	it := make(items, n+1)
	for i := range it {
		it[i] = i
	}
	return it
}

func (it items) p(v int) *int { return &it[v] }

func val(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

type dequeLin struct {
	d    *Deque[int]
	dst  [linThieves]*Deque[int]
	item items
}

func newDequeLin(it items) linQueue {
	q := &dequeLin{d: New[int](), item: it}
	for i := range q.dst {
		q.dst[i] = New[int]()
	}
	return q
}

func (q *dequeLin) push(v int) linOut     { q.d.Push(q.item.p(v)); return linOut{} }
func (q *dequeLin) pop() linOut           { return linOut{v: val(q.d.Pop())} }
func (q *dequeLin) ownerLen() int         { return q.d.Len() }
func (q *dequeLin) steal(int) linOut      { return linOut{v: val(q.d.Steal())} }
func (q *dequeLin) thiefLen() (int, bool) { return q.d.Len(), true }
func (q *dequeLin) stealHalf(th int) linOut {
	first := q.d.StealHalf(q.dst[th])
	if first == nil {
		if q.dst[th].Len() != 0 {
			panic("StealHalf returned nil but filled dst")
		}
		return linOut{}
	}
	var rest []int
	for x := q.dst[th].Pop(); x != nil; x = q.dst[th].Pop() {
		rest = append(rest, *x)
	}
	got := []int{*first}
	for i := len(rest) - 1; i >= 0; i-- { // Pop is LIFO: reverse to oldest first
		got = append(got, rest[i])
	}
	return linOut{list: enc(got...)}
}

type ringLin struct {
	r    *Ring[int]
	dst  [linThieves]*Ring[int]
	item items
}

func newRingLin(it items) linQueue {
	q := &ringLin{r: new(Ring[int]), item: it}
	for i := range q.dst {
		q.dst[i] = new(Ring[int])
	}
	return q
}

func (q *ringLin) push(v int) linOut {
	batch := q.r.Put(q.item.p(v))
	if batch == nil {
		return linOut{}
	}
	got := make([]int, len(batch))
	for i, p := range batch {
		got[i] = val(p)
	}
	return linOut{list: enc(got...)}
}
func (q *ringLin) pop() linOut           { return linOut{v: val(q.r.Get())} }
func (q *ringLin) ownerLen() int         { return q.r.Len() }
func (q *ringLin) steal(int) linOut      { panic("Ring has no single steal") }
func (q *ringLin) thiefLen() (int, bool) { return q.r.Len(), true }
func (q *ringLin) stealHalf(th int) linOut {
	first := q.r.StealHalf(q.dst[th])
	if first == nil {
		if q.dst[th].Len() != 0 {
			panic("StealHalf returned nil but filled dst")
		}
		return linOut{}
	}
	got := []int{*first}
	for x := q.dst[th].Get(); x != nil; x = q.dst[th].Get() {
		got = append(got, *x)
	}
	return linOut{list: enc(got...)}
}

// linConfig describes the histories run against one kind of queue.
type linConfig struct {
	spec     linSpec
	newQueue func(items) linQueue
	prefill  func(r *rand.Rand) int // items pushed before the history starts
	ownerOps int
	thiefOps int
	hasSteal bool // the queue has a single-item Steal
	// withLen adds Len calls to the histories. StealHalf takes n - n/2 of
	// the n items it saw when it read bottom (tail), and removes them at its
	// CAS; a push in between is visible to Len but not to that n, so with
	// Len in the history the exact batch size cannot be checked at a single
	// linearization point (porcupine finds such histories within a few
	// thousand runs). Histories with Len therefore check StealHalf against
	// the relaxed model (anyBatch); histories without Len check the exact
	// n - n/2 (capped at MaxBatch).
	withLen bool
}

// history runs one concurrent history and returns it with the model state
// it starts from.
func (c linConfig) history(seed uint64) (string, []porcupine.Operation) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pre := c.prefill(r)
	it := newItems(pre + c.ownerOps)
	q := c.newQueue(it)
	next := 1
	var init []int
	for ; next <= pre; next++ {
		if out := q.push(next); out.list != "" {
			panic("prefill overflowed")
		}
		init = append(init, next)
	}

	var clock atomic.Int64
	g := newGate(1 + linThieves)
	ops := make([][]porcupine.Operation, 1+linThieves)
	record := func(client int, in linIn, f func() linOut) {
		call := clock.Add(1)
		out := f()
		ops[client] = append(ops[client], porcupine.Operation{
			ClientId: client, Input: in, Call: call, Output: out, Return: clock.Add(1),
		})
	}
	// Each goroutine draws its own choices up front so that none of them
	// shares the generator.
	type plan struct {
		kinds  []linKind
		delays []int
	}
	plans := make([]plan, 1+linThieves)
	for c0 := range plans {
		n := c.thiefOps
		if c0 == 0 {
			n = c.ownerOps
		}
		for range n {
			var k linKind
			x := r.IntN(100)
			switch {
			case c0 == 0 && x < 55:
				k = opPush
			case c0 == 0 && (x < 90 || !c.withLen):
				k = opPop
			case c0 == 0:
				k = opLen
			case x < 10 && c.withLen:
				k = opLen
			case x < 50 && c.hasSteal:
				k = opSteal
			default:
				k = opStealHalf
			}
			plans[c0].kinds = append(plans[c0].kinds, k)
			plans[c0].delays = append(plans[c0].delays, r.IntN(200))
		}
	}

	var wg sync.WaitGroup
	for c0 := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.wait()
			for i, k := range plans[c0].kinds {
				spin(plans[c0].delays[i])
				switch {
				case c0 == 0 && k == opPush:
					v := next
					next++
					record(0, linIn{kind: opPush, v: v}, func() linOut { return q.push(v) })
				case c0 == 0 && k == opPop:
					record(0, linIn{kind: opPop}, q.pop)
				case c0 == 0:
					record(0, linIn{kind: opLen}, func() linOut { return linOut{v: q.ownerLen()} })
				case k == opLen:
					if _, ok := q.thiefLen(); ok {
						record(c0, linIn{kind: opLen}, func() linOut { n, _ := q.thiefLen(); return linOut{v: n} })
					}
				case k == opSteal:
					record(c0, linIn{kind: opSteal}, func() linOut { return q.steal(c0 - 1) })
				default:
					record(c0, linIn{kind: opStealHalf}, func() linOut { return q.stealHalf(c0 - 1) })
				}
			}
		}()
	}
	wg.Wait()
	var all []porcupine.Operation
	for _, o := range ops {
		all = append(all, o...)
	}
	return enc(init...), all
}

// check runs c.histories histories from seed and returns the first one that
// porcupine rejects, described for a failure message.
func (c linConfig) check(seed int64, histories int) (bad string, ok int) {
	for i := range histories {
		hs := uint64(seed) + uint64(i)*0x9e3779b97f4a7c15
		init, h := c.history(hs)
		spec := c.spec
		spec.anyBatch = c.withLen
		model := spec.model(init)
		switch res := porcupine.CheckOperationsTimeout(model, h, 10*time.Second); res {
		case porcupine.Ok:
			ok++
		case porcupine.Illegal:
			return describeHistory(model, init, h, i), ok
		default:
			// Unknown: the checker timed out. Not a verdict either way.
		}
	}
	return "", ok
}

func describeHistory(m porcupine.Model, init string, h []porcupine.Operation, i int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "history %d is not linearizable; initial state %v\n", i, dec(init))
	for _, o := range h {
		who := "owner"
		if o.ClientId > 0 {
			who = fmt.Sprintf("thief%d", o.ClientId)
		}
		fmt.Fprintf(&sb, "  [%3d,%3d] %-6s %s\n", o.Call, o.Return, who, m.DescribeOperation(o.Input, o.Output))
	}
	return sb.String()
}

func linHistories(t *testing.T, n int) int {
	if testing.Short() {
		return n / 5
	}
	return n
}

var dequeLinConfig = linConfig{
	spec:     dequeSpec,
	newQueue: newDequeLin,
	prefill: func(r *rand.Rand) int {
		// Straddle the zones of Pop: empty, a few items, and around MaxBatch.
		switch r.IntN(3) {
		case 0:
			return r.IntN(4)
		case 1:
			return r.IntN(12)
		}
		return MaxBatch - 6 + r.IntN(12)
	},
	ownerOps: 12,
	thiefOps: 4,
	hasSteal: true,
}

var ringLinConfig = linConfig{
	spec:     ringSpec,
	newQueue: newRingLin,
	prefill: func(r *rand.Rand) int {
		// Empty, a few items, or nearly full so that Put overflows.
		switch r.IntN(3) {
		case 0:
			return r.IntN(4)
		case 1:
			return r.IntN(12)
		}
		return RingSize - 4 + r.IntN(5)
	},
	ownerOps: 12,
	thiefOps: 4,
}

func testLinearizable(t *testing.T, cfg linConfig, histories int) {
	t.Parallel()
	for _, withLen := range []bool{false, true} {
		name := "exact-batch"
		if withLen {
			name = "with-Len"
		}
		t.Run(name, func(t *testing.T) {
			seed := testSeed(t)
			cfg.withLen = withLen
			bad, ok := cfg.check(seed, linHistories(t, histories))
			if bad != "" {
				t.Fatalf("seed %d: %s", seed, bad)
			}
			t.Logf("%d histories linearizable", ok)
		})
	}
}

func TestDequeLinearizable(t *testing.T) { testLinearizable(t, dequeLinConfig, 3000) }

func TestRingLinearizable(t *testing.T) { testLinearizable(t, ringLinConfig, 2000) }
