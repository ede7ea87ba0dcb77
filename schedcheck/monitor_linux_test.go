package schedcheck

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMonitorCountsAgainWithoutNewThreads: a burst of blocking system
// calls leaves idle threads for good, so the Monitor counts the locked
// goroutines and finds none. Goroutines locked to threads later take those
// idle threads, and the thread count does not grow; the Monitor must
// still count again, or it never sees them.
func TestMonitorCountsAgainWithoutNewThreads(t *testing.T) {
	setGOMAXPROCS(t, 2)
	// The runtime starts a thread of its own the first time a goroutine
	// locks one (the template thread, proc.go); start it now, so that
	// locking threads below adds none.
	locked := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		runtime.UnlockOSThread()
		close(locked)
	}()
	<-locked
	var burst sync.WaitGroup
	for range 40 {
		burst.Go(func() {
			ts := syscall.Timespec{Nsec: 50e6}
			syscall.Nanosleep(&ts, nil)
		})
	}
	burst.Wait()
	const n = 6
	found := make(chan Finding, 1)
	m := Start(context.Background(), WithInterval(2*time.Millisecond), WithWindow(3), WithLockedGoroutines(n),
		WithOnFinding(func(f Finding) {
			if f.Name == "pinned-threads" {
				found <- f
			}
		}))
	defer m.Stop()
	// Let the Monitor see the idle threads for a window and count no
	// locked goroutine among them.
	time.Sleep(200 * time.Millisecond)
	threads := Sample().Threads
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	for range n {
		ready.Add(1)
		done.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-release
		})
	}
	defer done.Wait()
	defer close(release)
	ready.Wait()
	select {
	case f := <-found:
		if !strings.Contains(f.Seen, "6 goroutines are locked to OS threads") {
			t.Errorf("finding: %s", f)
		}
	case <-time.After(10 * time.Second):
		r := m.Stop()
		t.Fatalf("no pinned-threads finding in 10 s; %d threads before the goroutines locked theirs, last sample %+v", threads, r.Last)
	}
}
