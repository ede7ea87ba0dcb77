package steal

import (
	"context"
	"testing"
	"time"
)

// stallSink collects stall reports.
func stallSink() (chan Stall, func(Stall)) {
	ch := make(chan Stall, 16)
	return ch, func(s Stall) {
		select {
		case ch <- s:
		default:
		}
	}
}

// waitStall waits for a report of a worker numbered at least minID with
// tasks queued, failing the test if none comes.
func waitStall(t *testing.T, ch chan Stall, minID int) Stall {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case s := <-ch:
			if s.Worker >= minID && s.Queued > 0 {
				return s
			}
		case <-deadline:
			t.Fatal("no stall reported for a stuck spare while tasks wait")
		}
	}
}

// A worker in Block whose spare is stuck in a task, while tasks wait: the
// spare is reported, and the tasks counted.
func TestStallSpareOfBlock(t *testing.T) {
	ch, report := stallSink()
	p := New(WithWorkers(1), WithStallDetector(20*time.Millisecond, report))
	defer p.Close()
	releaseT, releaseS := make(chan struct{}), make(chan struct{})
	defer close(releaseS)
	defer close(releaseT)
	inBlock, inS := make(chan struct{}), make(chan struct{})
	if err := p.Submit(context.Background(), func(w *Worker) {
		w.Block(func() { close(inBlock); <-releaseT })
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, inBlock, "Block")
	// The spare runs this one, which is stuck.
	if err := p.Submit(context.Background(), func(*Worker) { close(inS); <-releaseS }); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, inS, "the spare's task")
	if err := p.Go(func() {}); err != nil { // waits with nobody to run it
		t.Fatal(err)
	}
	s := waitStall(t, ch, p.Workers())
	if s.Queued != 1 {
		t.Fatalf("Stall.Queued = %d; want 1", s.Queued)
	}
}

// A worker that waits after lending a submitted task to a spare, which is
// stuck in it, while tasks wait: the spare is reported.
func TestStallSpareOfLend(t *testing.T) {
	ch, report := stallSink()
	p := New(WithWorkers(2), WithStallDetector(20*time.Millisecond, report))
	defer p.Close()
	releaseC, releaseS := make(chan struct{}), make(chan struct{})
	defer close(releaseS)
	defer close(releaseC)
	inC, inT, inS := make(chan struct{}), make(chan struct{}), make(chan struct{})
	// C holds one worker; T, on the other, waits for C's group.
	g := p.Group(context.Background())
	g.Go(func(*Worker) error { close(inC); <-releaseC; return nil })
	waitClosed(t, inC, "the group's child")
	if err := p.Submit(context.Background(), func(w *Worker) { close(inT); g.Wait() }); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, inT, "the waiting task")
	// T's wait comes upon S and lends it to a spare, where it is stuck.
	if err := p.Submit(context.Background(), func(*Worker) { close(inS); <-releaseS }); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, inS, "the lent task")
	if err := p.Go(func() {}); err != nil { // waits with nobody to run it
		t.Fatal(err)
	}
	s := waitStall(t, ch, p.Workers())
	if s.Queued != 1 {
		t.Fatalf("Stall.Queued = %d; want 1", s.Queued)
	}
}
