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
// # Contention, measured
//
// The work-stealing cluster exercise says that an owner and a thief working
// at opposite ends of one deque contend "~9x less" than when they meet at
// the same end. Two benchmarks measure what a deque per worker buys against
// one shared queue, on a 2-core AMD EPYC (Turin) VM (go1.26, GOMAXPROCS=2);
// the figures are medians of three runs, taken while the machine was quiet,
// and a machine with more cores will differ.
//
// BenchmarkContentionTree is the realistic case: W workers expand a binary
// tree of 524,287 tasks (about 50 ns of work each). With deques each worker
// pushes and pops at its own bottom and steals from a random victim's top
// only when it runs dry; with the mutex queue all W share one FIFO.
//
//	go test -run XXX -bench ContentionTree -benchtime 5x -count 3 ./deque
//
// ns per task, deques vs mutex: W=2 33 vs 226 (about 7x less), W=4 56 vs
// 330 (about 6x), W=8 112 vs 378 (about 3x; eight workers on two cores). So on this machine the deques cut the cost
// of sharing work by 3 to 7x, not 9x; the mutex gets worse as more workers
// contend for it.
//
// BenchmarkContention is the adversarial case: an owner doing Push, Push,
// Pop per op while 1 to 4 thieves Steal in a tight loop, so the deque is
// almost always empty and owner and thieves meet at top on nearly every
// operation.
//
//	go test -count=3 -run XXX -bench Contention$ -benchtime 200ms ./deque
//
// There the owner's ns/op were, deque vs mutex: 1 thief 546 vs 142, 2
// thieves 487 vs 218, 3 thieves 496 vs 316, 4 thieves 501 vs 363: the deque was up to 3.8x slower. Every Go atomic store is a
// full-fence XCHG on amd64, Pop's store of bottom must be one, and when the
// thieves take everything the owner pushes, the deque pays for its
// protocol and gets none of the locality it exists for. Work stealing
// wins when thieves are the exception, which is what a scheduler arranges.
package deque
