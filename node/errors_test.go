package node

import (
	"errors"
	"testing"

	"github.com/worksteal/steal/cluster"
)

func TestToWireMapsEveryKind(t *testing.T) {
	for kind, want := range map[cluster.Kind]int{
		cluster.UnknownWorker:   1000,
		cluster.DuplicateWorker: 1001,
		cluster.NothingToSteal:  1002,
		cluster.UnknownJob:      1003,
		cluster.DuplicateJob:    1004,
		cluster.Invalid:         12,
	} {
		got := toWire(&cluster.Error{Kind: kind, Detail: "x"})
		if got.code != want || got.text != kind.String()+": x" {
			t.Errorf("%v: %+v, want code %d", kind, got, want)
		}
	}
	if got := toWire(malformed("missing %s", "type")); got.code != 12 || got.text != "missing type" {
		t.Errorf("malformed: %+v", got)
	}
	if got := toWire(errors.New("odd")); got.code != 12 {
		t.Errorf("plain error: %+v", got)
	}
	if s := (&wireError{10, "no"}).Error(); s != "error 10: no" {
		t.Errorf("Error() = %q", s)
	}
}
