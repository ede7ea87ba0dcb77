package q

import "testing"

// Tests read internals after joining their goroutines: not reported.
func TestPeek(t *testing.T) {
	q := NewQueue(1)
	if q.tail != 1 {
		t.Fatal(q.head)
	}
}
