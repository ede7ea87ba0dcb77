package steal

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/worksteal/steal/deque"
)

// TestSpillQueueFIFO pushes batches of every awkward size (empty, one,
// a chunk's length, across chunk boundaries) and pops at random between
// them: tasks come out in the order they went in, none lost or repeated,
// and a drained queue keeps a single rewound chunk.
func TestSpillQueueFIFO(t *testing.T) {
	var q spillQueue
	rng := rand.New(rand.NewPCG(1, 2))
	tasks := make([]task, 20000)
	var want []*task
	next := 0
	for next < len(tasks) || len(want) > 0 {
		if next < len(tasks) && rng.IntN(3) != 0 {
			n := min([]int{0, 1, 2, 127, 128, spillChunkLen - 1, spillChunkLen, spillChunkLen + 1, 600}[rng.IntN(9)], len(tasks)-next)
			batch := make([]*task, n)
			for i := range batch {
				batch[i] = &tasks[next+i]
			}
			next += n
			q.push(batch)
			want = append(want, batch...)
			continue
		}
		// Take some, one at a time or in runs that may cross chunks: as
		// many as asked for, or all that wait if fewer.
		var got []*task
		asked := rng.IntN(700)
		if rng.IntN(2) == 0 {
			for range asked {
				x := popOne(&q)
				if x == nil {
					break
				}
				got = append(got, x)
			}
		} else {
			buf := make([]*task, asked)
			got = buf[:q.popInto(buf)]
		}
		if len(got) != min(asked, len(want)) {
			t.Fatalf("asked for %d tasks with %d queued, took %d", asked, len(want), len(got))
		}
		for i, x := range got {
			if x != want[i] {
				t.Fatalf("took task %d, want %d", x.index(tasks), want[i].index(tasks))
			}
		}
		want = want[len(got):]
	}
	if got := popOne(&q); got != nil {
		t.Fatalf("drained queue popped task %d", got.index(tasks))
	}
	if q.head != q.tail || q.head.first != 0 || q.head.filled != 0 {
		t.Fatalf("drained queue: head %p tail %p, first %d filled %d; want one rewound chunk",
			q.head, q.tail, q.head.first, q.head.filled)
	}
	for _, x := range q.head.tasks {
		if x != nil {
			t.Fatal("drained chunk still holds a task: the collector cannot have it")
		}
	}
}

// popOne takes the oldest task of s, or nil, through popInto.
func popOne(s *spillQueue) *task {
	var t [1]*task
	if s.popInto(t[:]) == 0 {
		return nil
	}
	return t[0]
}

// takeSpilled takes the oldest spilled task of q, or nil, as a worker does
// (its length included). Caller holds q.mu.
func takeSpilled(q *injectQueue) *task {
	var t [1]*task
	if q.popSpillIntoLocked(t[:]) == 0 {
		return nil
	}
	return t[0]
}

// index is t's position in tasks, or -1, for failure messages.
func (t *task) index(tasks []task) int {
	if t == nil {
		return -1
	}
	i := (uintptr(unsafe.Pointer(t)) - uintptr(unsafe.Pointer(&tasks[0]))) / unsafe.Sizeof(tasks[0])
	if i >= uintptr(len(tasks)) {
		return -1
	}
	return int(i)
}

// TestSpillChunkSize pins a chunk at 512 bytes: a size class, and the
// largest object without an allocation header.
func TestSpillChunkSize(t *testing.T) {
	if got := unsafe.Sizeof(spillChunk{}); got != 512 {
		t.Errorf("spillChunk is %d bytes, want 512 (adjust spillChunkLen)", got)
	}
}

// TestExactlyOnceSpawnBursts: tasks that each Spawn thousands of tasks in
// a loop overflow their rings many times over, so most tasks pass through
// the inject queue's spill, many chunks deep, while the other workers take
// from it and steal; every task runs exactly once.
func TestExactlyOnceSpawnBursts(t *testing.T) {
	const bursts, perBurst = 8, 3000
	p := New()
	var seen [bursts * perBurst]atomic.Uint32
	var wg sync.WaitGroup
	wg.Add(bursts * perBurst)
	for b := range bursts {
		p.Go(func() {}) // keep the workers busy with outside work too
		if err := p.Submit(nil, func(w *Worker) {
			for i := range perBurst {
				id := b*perBurst + i
				w.Spawn(func(*Worker) { seen[id].Add(1); wg.Done() })
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	ran := make(chan struct{})
	go func() { wg.Wait(); close(ran) }()
	if _, ok := await(ran); !ok {
		// Not closing the pool: Close would wait for the lost tasks.
		t.Fatalf("tasks still missing after %v", hang)
	}
	p.Close()
	for id := range seen {
		if n := seen[id].Load(); n != 1 {
			t.Fatalf("task %d ran %d times", id, n)
		}
	}
	s := p.Stats()
	if s.Inject != 0 {
		t.Errorf("inject queue holds %d tasks after every task ran", s.Inject)
	}
	// Each overflow moves half a ring to the spill: a quarter of the tasks
	// at least, many chunks deep, should have passed through it.
	if spilled := s.Total.Overflows * deque.RingSize / 2; spilled < bursts*perBurst/4 {
		t.Errorf("%d tasks spilled, want at least %d: the test no longer exercises the spill", spilled, bursts*perBurst/4)
	}
}

// TestSpillOrderAndBound: rings spill into the inject queue's spill from
// several workers while one takes: each spiller's tasks come out once, in
// the order it spilled them, and a spill that never drains completely
// holds no more chunks than what waits in it needs.
func TestSpillOrderAndBound(t *testing.T) {
	var q injectQueue
	q.init(nil)
	const spillers, per = 3, 20000
	recs := make([][]task, spillers)
	where := make(map[*task][2]int, spillers*per)
	for i := range recs {
		recs[i] = make([]task, per)
		for d := range recs[i] {
			where[&recs[i][d]] = [2]int{i, d}
		}
	}
	var wg sync.WaitGroup
	for i := range spillers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := 0; d < per; {
				n := min(1+d%7, per-d)
				b := make([]*task, n)
				for k := range b {
					b[k] = &recs[i][d+k]
				}
				q.pushSpill(b)
				d += n
			}
		}()
	}
	next := make([]int, spillers)
	deadline := time.Now().Add(hang)
	for got := 0; got < spillers*per; {
		if time.Now().After(deadline) {
			t.Fatalf("took %d of %d", got, spillers*per)
		}
		q.mu.Lock()
		tk := takeSpilled(&q)
		q.mu.Unlock()
		if tk == nil {
			continue
		}
		if w, ok := where[tk]; !ok || w[1] != next[w[0]] {
			t.Fatalf("took spiller %d's task %d, want its task %d", w[0], w[1], next[w[0]])
		}
		next[where[tk][0]]++
		got++
	}
	wg.Wait()
	if q.spillN.Load() != 0 || takeSpilled(&q) != nil {
		t.Fatalf("%d tasks left after all were taken", q.spillN.Load())
	}

	for r := range 100000 {
		q.pushSpill([]*task{&recs[0][r%per], &recs[1][r%per], &recs[2][r%per]})
		q.mu.Lock()
		for q.spillN.Load() > 10 {
			takeSpilled(&q)
		}
		q.mu.Unlock()
	}
	chunks := 0
	for c := q.spill.head; c != nil; c = c.next {
		chunks++
	}
	if chunks > 2 {
		t.Fatalf("the spill holds %d chunks with at most 13 tasks waiting", chunks)
	}
}
