package node

import (
	"errors"
	"testing"

	"github.com/worksteal/steal/coord"
)

func TestToWireMapsEveryKind(t *testing.T) {
	for kind, want := range map[coord.Kind]int{
		coord.UnknownWorker:   1000,
		coord.DuplicateWorker: 1001,
		coord.NothingToSteal:  1002,
		coord.UnknownJob:      1003,
		coord.DuplicateJob:    1004,
		coord.Invalid:         12,
	} {
		got := toWire(&coord.Error{Kind: kind, Detail: "x"})
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
