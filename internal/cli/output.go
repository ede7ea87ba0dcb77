package cli

import (
	"io"
	"sync"
)

// Output is a command's stdout that keeps the first write error. A
// command whose output is what it is run for (the demos) checks Err
// before it exits 0, so that steal demo > /dev/full says it wrote
// nothing instead of succeeding. Writes may come from several
// goroutines, as schedtrace lines do.
type Output struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewOutput returns an Output that writes to w.
func NewOutput(w io.Writer) *Output { return &Output{w: w} }

// Write writes p to the underlying writer; after a failed write it
// writes nothing more and returns the first error.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

// Err returns the first write error, or nil.
func (o *Output) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
