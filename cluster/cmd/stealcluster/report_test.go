package main

import (
	"testing"
	"time"

	"github.com/worksteal/steal/cluster"
)

func TestStatusLine(t *testing.T) {
	base := []cluster.WorkerState{{Name: "w1", Completed: 5}, {Name: "w2"}}
	prev := []cluster.WorkerState{{Name: "w1", Completed: 7}, {Name: "w2", Completed: 1}}
	now := []cluster.WorkerState{{Name: "w1", Completed: 9, Queue: 3}, {Name: "w3", Completed: 2, Stolen: 2}}
	got := statusLine(1500*time.Millisecond, now, prev, base)
	want := "    1.5s  workers 2 (joined w3) (left w2)  done 6  stolen 2  queues w1=3 w3=0"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Workers show in the order of their numbers, w2 before w10, as a reader
// counts them; Client.Workers sorts their names as strings.
func TestStatusLineNumberOrder(t *testing.T) {
	now := []cluster.WorkerState{{Name: "w1"}, {Name: "w10", Queue: 1}, {Name: "w2", Queue: 2}, {Name: "x"}, {Name: "w02"}}
	got := statusLine(time.Second, now, now, now)
	want := "    1.0s  workers 5  done 0  stolen 0  queues w1=0 w02=0 w2=2 w10=1 x=0"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got = progress(time.Second, 10, now, now)
	want = "  1.00s  done    0/10  stolen    0  queues w1=0 w02=0 w2=2 w10=1 x=0"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
