package sim

// kind is what a pending event does when its time comes.
type kind uint8

const (
	finished kind = iota // the worker's running job completes
	arrived              // the worker's steal request reaches its victim
)

// event is a worker's one pending event. A worker never has two, so the
// heap holds at most W events and (at, worker) orders them totally, which
// is what makes runs deterministic.
type event struct {
	at     int64 // virtual nanoseconds
	worker int32
	kind   kind
}

func (a event) before(b event) bool {
	return a.at < b.at || a.at == b.at && a.worker < b.worker
}

// events is a binary min-heap of events. It avoids container/heap's
// interface calls, which matter at millions of events per run.
type events []event

func (h *events) push(e event) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// pop removes and returns the earliest event; the heap must not be empty.
func (h *events) pop() event {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < last && q[l].before(q[m]) {
			m = l
		}
		if r < last && q[r].before(q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
