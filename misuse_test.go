package steal

import (
	"sync/atomic"
	"testing"
	"time"
)

// Every other call of the package that takes a context reads nil as
// context.Background(); Shutdown(nil) must too, and so be Close, instead
// of stopping intake and then dereferencing the nil context.
func TestShutdownNilContextIsClose(t *testing.T) {
	p := New(WithWorkers(1))
	var ran atomic.Int32
	for range 10 {
		if err := p.Go(func() { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	within(t, 5*time.Second, "Shutdown(nil)", func() {
		//lint:ignore SA1012 nil is the input under test
		if err := p.Shutdown(nil); err != nil {
			t.Errorf("Shutdown(nil) = %v, want nil", err)
		}
	})
	if n := ran.Load(); n != 10 {
		t.Errorf("Shutdown(nil) ran %d of 10 queued tasks", n)
	}
}
