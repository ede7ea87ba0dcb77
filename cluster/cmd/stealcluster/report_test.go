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
