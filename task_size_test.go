package steal

import (
	"testing"
	"unsafe"
)

// TestTaskRecordFits64Bytes: a task record (which is also the task's
// handle) must stay within the allocator's 64-byte size class: the memory a
// queued task costs, and the allocation every Spawn and Submit makes.
func TestTaskRecordFits64Bytes(t *testing.T) {
	if n := unsafe.Sizeof(Worker{}); n > 64 {
		t.Fatalf("task record is %d bytes, want <= 64", n)
	}
}
