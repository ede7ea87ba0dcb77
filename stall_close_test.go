package steal

import (
	"testing"
	"time"
)

// A stall report that closes the pool (a program that gives up on a stuck
// pool) must not wait for the report itself to return.
func TestStallReportMayClosePool(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan error, 1)
	var p *Pool
	report := func(Stall) {
		select {
		case <-release:
			return // reported again after progress: already closing
		default:
		}
		close(release)
		closed <- p.Close()
	}
	p = New(WithWorkers(1), WithStallDetector(5*time.Millisecond, report))
	p.Go(func() { <-release })
	p.Go(func() {}) // waits behind the stuck task, so the stall is reported
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close from the stall report: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close called from the stall report did not return in 10 s")
	}
}
