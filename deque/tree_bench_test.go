package deque

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// node is one task of the tree workload: expanding it queues two children
// until depth runs out.
type node struct{ depth int }

// treeDepth gives 2^19-1 = 524,287 tasks per run.
const treeDepth = 18

// spinWork stands in for a task's own work (about 50 ns), so the queue is
// not the only thing the workers do.
func spinWork(seed int) int {
	x := seed
	for range 40 {
		x = x*1103515245 + 12345
	}
	return x
}

// BenchmarkContentionTree is the work-stealing cluster exercise's claim put to a realistic test: W
// workers expand a binary tree of tasks. With deques each worker pushes and
// pops at its own bottom and steals from a random victim's top only when it
// runs dry; with the mutex queue all W share one FIFO. ns/op is per task.
func BenchmarkContentionTree(b *testing.B) {
	for _, workers := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("deques/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				runTreeDeques(b, workers)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<(treeDepth+1)-1), "ns/task")
		})
		b.Run(fmt.Sprintf("mutex/workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				runTreeMutex(b, workers)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<(treeDepth+1)-1), "ns/task")
		})
	}
}

func runTreeDeques(b *testing.B, workers int) {
	total := int64(1<<(treeDepth+1) - 1)
	var done atomic.Int64
	qs := make([]*Deque[node], workers)
	for i := range qs {
		qs[i] = New[node]()
	}
	qs[0].Push(&node{depth: treeDepth})
	var wg sync.WaitGroup
	for id := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, r := qs[id], rand.New(rand.NewPCG(uint64(id), 7))
			var c doneCounter
			for done.Load() < total {
				n := own.Pop()
				for n == nil && done.Load() < total {
					c.flush(&done) // out of work: publish what we did
					n = qs[r.IntN(workers)].Steal()
				}
				if n == nil {
					break
				}
				c.sink += spinWork(n.depth)
				if n.depth > 0 {
					own.Push(&node{n.depth - 1})
					own.Push(&node{n.depth - 1})
				}
				c.add(&done)
			}
			c.flush(&done)
		}()
	}
	wg.Wait()
	if done.Load() != total {
		b.Fatalf("ran %d tasks, want %d", done.Load(), total)
	}
}

func runTreeMutex(b *testing.B, workers int) {
	total := int64(1<<(treeDepth+1) - 1)
	var done atomic.Int64
	q := &lockedFIFO[node]{}
	q.push(&node{depth: treeDepth})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c doneCounter
			for done.Load() < total {
				n := q.take()
				if n == nil {
					c.flush(&done)
					continue
				}
				c.sink += spinWork(n.depth)
				if n.depth > 0 {
					q.push(&node{n.depth - 1})
					q.push(&node{n.depth - 1})
				}
				c.add(&done)
			}
			c.flush(&done)
		}()
	}
	wg.Wait()
	if done.Load() != total {
		b.Fatalf("ran %d tasks, want %d", done.Load(), total)
	}
}

// doneCounter batches a worker's count of finished tasks, so that a shared
// atomic counter does not become the contention being measured.
type doneCounter struct {
	n    int64
	sink int
}

func (c *doneCounter) add(done *atomic.Int64) {
	if c.n++; c.n == 64 {
		c.flush(done)
	}
}

func (c *doneCounter) flush(done *atomic.Int64) {
	if c.n > 0 {
		done.Add(c.n)
		c.n = 0
	}
}

// lockedFIFO is one mutex-guarded FIFO shared by every worker: the central
// queue that work stealing replaces.
type lockedFIFO[T any] struct {
	mu   sync.Mutex
	q    []*T
	head int
}

func (m *lockedFIFO[T]) push(x *T) {
	m.mu.Lock()
	if m.head > 0 && m.head >= len(m.q)/2 {
		n := copy(m.q, m.q[m.head:])
		clear(m.q[n:])
		m.q, m.head = m.q[:n], 0
	}
	m.q = append(m.q, x)
	m.mu.Unlock()
}

func (m *lockedFIFO[T]) take() *T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.head == len(m.q) {
		return nil
	}
	x := m.q[m.head]
	m.q[m.head] = nil
	m.head++
	return x
}
