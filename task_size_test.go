package steal

import (
	"testing"
	"unsafe"
)

// TestRecordSizes pins the sizes of the records the ordinary API allocates
// to the allocator's size classes they were made to fit: a task record
// (which is also the task's handle: one per group child and submission)
// 48 bytes, a future (its record and latch with it) 144, a group (with its
// first round's context and two child records) at most 320. The collector
// runs in proportion to bytes allocated, so a field added to any of them
// costs every program that forks per child; this test makes that a
// decision.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"task record", unsafe.Sizeof(Worker{}), 48},
		{"Future[int64]", unsafe.Sizeof(Future[int64]{}), 144},
		{"Group", unsafe.Sizeof(Group{}), 320},
	} {
		if c.size > c.max {
			t.Errorf("%s is %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}
