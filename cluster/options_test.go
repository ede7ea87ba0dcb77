package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal"
)

// TestOptionBounds: every option is accepted at its documented bounds and
// refused just past them, by NewWorker and NewClient alike, with an error
// that names the option; a steal mode or storage that is none of the
// constants is refused rather than taken for the default. Each refusal
// matches ErrInvalidOption (ErrInvalidName for a name).
func TestOptionBounds(t *testing.T) {
	nc, err := startServer(t).Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, tc := range []struct {
		o    Option
		want string // "" accepted, else a word of the error
	}{
		{WithSlots(1), ""}, {WithSlots(steal.MaxWorkers), ""},
		{WithSlots(0), "slots"}, {WithSlots(steal.MaxWorkers + 1), "slots"},
		{WithMaxPayload(1), ""}, {WithMaxPayload(maxPayloadLimit), ""},
		{WithMaxPayload(0), "payload"}, {WithMaxPayload(maxPayloadLimit + 1), "payload"},
		{WithRequestTimeout(time.Millisecond), ""}, {WithRequestTimeout(0), "timeout"},
		{WithServerLossLimit(2 * time.Second), ""}, {WithServerLossLimit(2*time.Second - 1), "loss"},
		{WithReplicas(0), "replicas"}, {WithReplicas(6), "replicas"},
		{WithLease(minLease), ""}, {WithLease(maxLease), ""},
		{WithLease(minLease - 1), "lease"}, {WithLease(maxLease + 1), "lease"},
		{WithCluster(strings.Repeat("c", maxNameLen)), ""},
		{WithCluster(""), "name"}, {WithCluster("a.b"), "name"}, {WithCluster("*"), "name"},
		{WithCluster(strings.Repeat("c", maxNameLen+1)), "name"},
		{WithStealMode(StealOff), ""}, {WithStealMode(StealOff + 1), "steal mode"}, {WithStealMode(-1), "steal mode"},
		{WithStorage(FileStorage), ""}, {WithStorage(FileStorage + 1), "storage"}, {WithStorage(-1), "storage"},
	} {
		_, werr := NewWorker(nc, "w", tc.o)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, cerr := NewClient(ctx, nc, tc.o)
		cancel()
		for what, err := range map[string]error{"NewWorker": werr, "NewClient": cerr} {
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s refused an option at its bound: %v", what, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%s = %v, want an error about %s", what, err, tc.want)
			case tc.want != "" && tc.want != "name" && !errors.Is(err, ErrInvalidOption):
				t.Errorf("%s = %v, want it to match ErrInvalidOption", what, err)
			}
		}
	}
}
