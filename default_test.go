package steal

import (
	"context"
	"errors"
	"testing"
)

// Nobody may close the pool Default returns: every other user of it would
// get ErrClosed for the rest of the program. Close returned nil and did it.
func TestDefaultPoolRefusesClose(t *testing.T) {
	if err := Default().Close(); !errors.Is(err, ErrDefaultPool) {
		t.Fatalf("Default().Close() = %v, want ErrDefaultPool", err)
	}
	if err := Default().Shutdown(context.Background()); !errors.Is(err, ErrDefaultPool) {
		t.Fatalf("Default().Shutdown() = %v, want ErrDefaultPool", err)
	}
	ran := make(chan struct{})
	if err := Default().Go(func() { close(ran) }); err != nil {
		t.Fatalf("Default().Go after a refused Close = %v", err)
	}
	<-ran
}
