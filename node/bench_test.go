package node

import (
	"bytes"
	"io"
	"testing"
)

// stealBlock is three steal_job requests whose thieves take turns, so the
// example cluster's six jobs keep moving and no steal ever finds nothing.
var stealBlock = []byte(`{"src":"client","dest":"cluster","body":{"type":"steal_job","msg_id":1,"thief_worker":"w1","busy_workers":["w2","w3"]}}
{"src":"client","dest":"cluster","body":{"type":"steal_job","msg_id":2,"thief_worker":"w2","busy_workers":["w3","w1"]}}
{"src":"client","dest":"cluster","body":{"type":"steal_job","msg_id":3,"thief_worker":"w3","busy_workers":["w1","w2"]}}
`)

// repeatReader yields block n times without holding the whole input.
type repeatReader struct {
	block []byte
	n     int
	off   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.block[r.off:])
	if r.off += k; r.off == len(r.block) {
		r.off, r.n = 0, r.n-1
	}
	return k, nil
}

// lineCounter counts reply lines and the error replies among them.
type lineCounter struct{ lines, errors int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	c.errors += bytes.Count(p, []byte(`"type": "error"`))
	return len(p), nil
}

// BenchmarkNodeStealJob measures steal_job throughput through Serve, from
// an io.Reader to an io.Writer, parsing and encoding included.
func BenchmarkNodeStealJob(b *testing.B) {
	blocks := (b.N + 2) / 3
	in := &repeatReader{block: stealBlock, n: blocks}
	var out lineCounter
	var log bytes.Buffer
	b.SetBytes(int64(len(stealBlock) / 3))
	b.ResetTimer()
	if err := New().Serve(in, &out, &log); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if out.lines != 3*blocks || out.errors != 0 || log.Len() != 0 {
		b.Fatalf("%d replies (%d errors) for %d requests; stderr %q", out.lines, out.errors, 3*blocks, log.String())
	}
	b.ReportMetric(float64(3*blocks)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkHandleStealJob is the same request without the reader and
// writer, to show where the time goes.
func BenchmarkHandleStealJob(b *testing.B) {
	n := New()
	msgs := bytes.Split(bytes.TrimSpace(stealBlock), []byte{'\n'})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := n.Handle(msgs[i%3]); err != nil {
			b.Fatal(err)
		}
	}
}
