package coord

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorMessageAndIs(t *testing.T) {
	err := fail(UnknownWorker, "w9")
	if got := err.Error(); got != "unknown worker: w9" {
		t.Fatalf("Error() = %q", got)
	}
	wrapped := fmt.Errorf("steal: %w", err)
	if !errors.Is(wrapped, ErrUnknownWorker) {
		t.Fatal("errors.Is(wrapped, ErrUnknownWorker) = false")
	}
	if errors.Is(err, ErrUnknownJob) {
		t.Fatal("unknown worker matched ErrUnknownJob")
	}
	var e *Error
	if !errors.As(wrapped, &e) || e.Kind != UnknownWorker || e.Detail != "w9" {
		t.Fatalf("errors.As gave %+v", e)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{
		NothingToSteal: "nothing to steal",
		DuplicateJob:   "duplicate job",
		Kind(0):        "unknown error kind",
		Kind(99):       "unknown error kind",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
	if got := ErrInvalid.Error(); got != "invalid argument" {
		t.Errorf("sentinel message = %q", got)
	}
}

// An unknown worker with an empty name is named as empty: "unknown
// worker" alone reads as if the name had been left out of the message.
func TestUnknownEmptyName(t *testing.T) {
	err := NewExample().Push("", Job{ID: "x"})
	if want := `unknown worker: "" (an empty name)`; err == nil || err.Error() != want || !errors.Is(err, ErrUnknownWorker) {
		t.Errorf("Push to \"\": %v, want %s", err, want)
	}
}
