package coord

import (
	"reflect"
	"testing"
)

func TestWorkersState(t *testing.T) {
	c := NewExample()
	got := c.Workers()
	want := []WorkerState{{"w1", 3, 0}, {"w2", 3, 0}, {"w3", 0, 0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Workers = %v, want %v", got, want)
	}
	if got[0].Idle() || !got[2].Idle() {
		t.Fatal("Idle wrong for w1 or w3")
	}
	if c.AllIdle() || c.Live() != 6 || c.Len() != 3 {
		t.Fatalf("AllIdle=%v Live=%d Len=%d", c.AllIdle(), c.Live(), c.Len())
	}
}

func TestWorkerState(t *testing.T) {
	c := NewExample()
	c.Pop("w2")
	got, err := c.Worker("w2")
	if err != nil || got != (WorkerState{"w2", 2, 1}) {
		t.Fatalf("Worker(w2) = %+v, %v", got, err)
	}
	_, err = c.Worker("nope")
	wantErr(t, err, ErrUnknownWorker)
}
