// Package deque provides the two lock-free work-stealing queues that the
// steal scheduler is built on:
//
//   - Deque, a Chase–Lev dynamic circular deque: the owner pushes and pops
//     at the bottom (LIFO), thieves steal one item or a batch from the top
//     (FIFO). It grows without bound and shrinks after it drains. Fork-join
//     uses it.
//   - Ring, the Go runtime's bounded 256-slot run queue: the owner puts at
//     the tail and gets at the head (FIFO), thieves grab half at the head
//     with one CAS, and a full ring hands half of itself back to the caller
//     instead of blocking or dropping.
//
// Both hold pointers (*T), so pushing never copies or allocates per item.
// Every method says who may call it: the owner (one goroutine at a time) or
// any goroutine. The file headers of deque.go and ring.go explain why each
// atomic operation is there.
//
// # Contention
//
// A deque per worker lets owner and thieves work at opposite ends, which
// is where work stealing wins; when thieves take everything the owner
// pushes, they meet at one end on every operation and a mutex-guarded
// queue is cheaper, since every Go atomic store is a full fence on amd64.
// BenchmarkContentionTree and BenchmarkContention measure both cases
// (docs/costs.md).
package deque
