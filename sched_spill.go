package steal

// spillQueue is the FIFO of tasks that full rings moved out (the spill
// part of the inject queue), kept in a singly linked list of fixed-size
// chunks, oldest first. Every chunk but the last is full; the first is
// read from its head. Tasks are never copied once queued: a burst of a
// million spawns fills chunks one after another, and draining them drops
// each chunk as it empties. (A slice that grew by doubling, and slid its
// tasks down as it drained, spent a tenth of such a burst copying them,
// write barriers included, in runtime.memmove.) The records need no link
// field of their own, which keeps every task record a word smaller.
//
// The zero value is an empty queue. Its user serialises every call (the
// inject queue holds its lock).
type spillQueue struct {
	head, tail *spillChunk
}

// spillChunk is one block of a spillQueue: tasks[first:filled] wait.
type spillChunk struct {
	tasks         [spillChunkLen]*task
	next          *spillChunk
	first, filled int32
}

// spillChunkLen makes a chunk 512 bytes (TestSpillChunkSize): the largest
// object Go's allocator keeps without a header, and its collector scans a
// span of them at a time.
const spillChunkLen = 62

// push appends batch, in order.
func (s *spillQueue) push(batch []*task) {
	for len(batch) > 0 {
		c := s.tail
		if c == nil || c.filled == spillChunkLen {
			c = &spillChunk{}
			if s.tail == nil {
				s.head = c
			} else {
				s.tail.next = c
			}
			s.tail = c
		}
		n := copy(c.tasks[c.filled:], batch)
		c.filled += int32(n)
		batch = batch[n:]
	}
}

// popInto moves the oldest tasks into dst, as many as wait and fit, and
// returns how many. The slots it empties are cleared, so that the collector
// may have the tasks once they have run; a drained chunk is dropped, or, if
// it is the last, rewound for the next burst.
func (s *spillQueue) popInto(dst []*task) int {
	n := 0
	for n < len(dst) {
		c := s.head
		if c == nil || c.first == c.filled {
			break
		}
		k := copy(dst[n:], c.tasks[c.first:c.filled])
		clear(c.tasks[c.first : int(c.first)+k])
		c.first += int32(k)
		n += k
		if c.first == c.filled {
			if c.next != nil {
				s.head = c.next
			} else {
				c.first, c.filled = 0, 0
			}
		}
	}
	return n
}
