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
// The seed claims work stealing has "~9x less contention" than one shared
// queue. Two benchmarks measure it, on a 2-core Intel Xeon VM (go1.26,
// GOMAXPROCS=2, other jobs running); the figures are medians of what we saw,
// and a machine with more cores will differ.
//
// BenchmarkContentionTree is the realistic case: W workers expand a binary
// tree of 524,287 tasks (about 50 ns of work each). With deques each worker
// pushes and pops at its own bottom and steals from a random victim's top
// only when it runs dry; with the mutex queue all W share one FIFO.
//
//	go test -run XXX -bench ContentionTree -benchtime 5x -count 2 ./deque
//
// ns per task, deques vs mutex: W=2 63-79 vs 130-133 (2.0x less), W=4 65-67
// vs 244-250 (3.7x), W=8 101-116 vs 308-350 (3.0x). So on this machine the
// deques cut the cost of sharing work by 2 to 4x, not 9x; the mutex gets
// worse as more workers contend for it, the deques barely notice.
//
// BenchmarkContention is the adversarial case: an owner doing Push, Push,
// Pop per op while 1 to 4 thieves Steal in a tight loop, so the deque is
// almost always empty and owner and thieves meet at top on nearly every
// operation.
//
//	go test -count=1 -run XXX -bench Contention$ -benchtime 200ms ./deque
//
// There the owner's ns/op were, deque vs mutex: 1 thief 232 vs 134, 2
// thieves 236 vs 121, 3 thieves 278 vs 140, 4 thieves 268 vs 135: the deque
// was 1.7 to 2x slower. Every Go atomic store is a full-fence XCHG on amd64,
// and when the thieves take everything the owner pushes, the deque pays for
// its protocol and gets none of the locality it exists for. Work stealing
// wins when thieves are the exception, which is what a scheduler arranges.
package deque
