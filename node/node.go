package node

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// DefaultCost is the cost of jobs when init gives no cost model.
var DefaultCost = sim.Cost{Model: sim.Fixed, Mean: 10 * time.Millisecond}

// Node answers the protocol's messages against one cluster. It is not safe
// for concurrent use: Serve feeds it one message at a time, which is what
// keeps replies in request order and the cluster deterministic.
type Node struct {
	cluster *coord.Cluster
	cost    sim.Cost      // cost model for jobs without an explicit cost
	latency time.Duration // steal latency for run_simulation
	seed    uint64
	enc     encoder // reused for every reply
	// silent: the request just handled succeeded and is answered by
	// nothing (run_simulation in the exercise's form).
	silent bool
	// maxPayload is MaxPayloadBytes; tests lower it.
	maxPayload int
}

// New returns a node holding the example cluster of the work-stealing cluster exercise (coord.NewExample)
// with DefaultCost, as before any init.
func New() *Node {
	return &Node{cluster: coord.NewExample(), cost: DefaultCost, maxPayload: MaxPayloadBytes}
}

// Cluster returns the node's current cluster, for inspection; init
// replaces it.
func (n *Node) Cluster() *coord.Cluster { return n.cluster }

// Handle answers one message, a JSON envelope. It returns the reply line,
// newline included, valid until the next call, or nil and no error for a
// request answered by nothing: a run_simulation without policies, as the
// work-stealing cluster exercise sends it. A message that is not JSON or
// has no body gets no reply: Handle returns an error to report instead.
// Nothing else fails: bad requests get an error reply and change nothing.
func (n *Node) Handle(msg []byte) ([]byte, error) {
	var env envelope
	var err error
	if !fastDecode(msg, &env) {
		env = envelope{}
		if err = json.Unmarshal(msg, &env); err != nil {
			env, err = ownFields(msg, env, err)
		}
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	var mistyped *json.UnmarshalTypeError
	if env.Body == nil || errors.As(err, &mistyped) && mistyped.Field == "body" {
		return nil, errors.New("no body object, nothing to reply to")
	}
	req := env.Body
	e := &n.enc
	if cap(e.buf) > keptReplyBytes {
		e.buf = nil // let a rare large reply's buffer go
	}
	e.buf, e.comma = e.buf[:0], false
	e.open(env.Dest, env.Src)
	mark := len(e.buf)
	if idErr := req.parseMsgID(); err == nil {
		err = idErr
	}
	if err == nil {
		err = n.dispatch(req)
	}
	if silent := n.silent; silent || err != nil {
		n.silent = false
		if silent && err == nil {
			return nil, nil
		}
		e.buf, e.comma = e.buf[:mark], false
		n.writeError(req, toWire(err))
	}
	e.close()
	return e.buf, nil
}

// ownFields decodes msg again when decoding it failed on a value of the
// wrong JSON type, reading only its type's fields: a field of another
// message, or any field of a message with no type or an unknown one, is
// not one the node knows for this message and is ignored, whatever its
// value (the body is decoded into the fields of every message at once).
// A value of the wrong type is rare, so the common case decodes once.
func ownFields(msg []byte, env envelope, err error) (envelope, error) {
	var mistyped *json.UnmarshalTypeError
	var w *wireError
	if env.Body == nil || !errors.As(err, &mistyped) && !errors.As(err, &w) {
		return env, err
	}
	var fields []string
	if env.Body.Type != nil {
		fields = handlers[*env.Body.Type].fields
	}
	again := envelope{own: &fields}
	err = json.Unmarshal(msg, &again)
	return again, err
}

// dispatch validates the common fields and runs the type's handler.
func (n *Node) dispatch(req *request) error {
	typ, err := required(req.Type, "type")
	if err != nil {
		return err
	}
	if req.MsgID == nil {
		return malformed("missing field msg_id")
	}
	h, ok := handlers[typ]
	if !ok {
		return &wireError{CodeNotSupported, fmt.Sprintf("unknown message type %q", typ)}
	}
	return h.answer(n, req)
}

// handler answers one request type.
type handler struct {
	answer func(*Node, *request) error
	fields []string // the body's fields besides type and msg_id
}

// handlers maps each request type to the method that answers it and the
// fields it reads, as the package doc lists them. A handler validates
// everything before it changes anything, then writes the reply body
// through n.head and the encoder.
var handlers = map[string]handler{
	"init":                {(*Node).init, []string{"workers", "jobs_to_distribute", "distribution", "victim", "seed", "cost", "steal_latency_ms"}},
	"steal_job":           {(*Node).stealJob, []string{"thief_worker", "busy_workers"}},
	"check_cluster_state": {(*Node).checkClusterState, nil},
	"run_simulation":      {(*Node).runSimulation, []string{"duration_ms", "policies"}},
	"push_job":            {(*Node).pushJob, []string{"worker", "job_id", "payload", "cost_ms"}},
	"pop_job":             {(*Node).popJob, []string{"worker"}},
	"complete_job":        {(*Node).completeJob, []string{"worker", "job_id"}},
}

// head writes the reply's type and in_reply_to.
func (n *Node) head(typ string, req *request) {
	n.enc.str("type", typ)
	n.enc.int("in_reply_to", *req.MsgID)
}

// writeError writes the Maelstrom error body; in_reply_to is left out only
// when the request had no usable msg_id.
func (n *Node) writeError(req *request, w *wireError) {
	n.enc.str("type", "error")
	if req.MsgID != nil {
		n.enc.int("in_reply_to", *req.MsgID)
	}
	n.enc.int("code", int64(w.code))
	n.enc.str("text", w.text)
}

// Serve reads messages from in until it ends, writes each reply to out in
// request order, and reports skipped input on log. Replies are buffered and
// flushed before every read of in, since any such read may block: an
// interactive peer gets every reply before the node waits for more input,
// whatever it sent after its message (blank lines, part of the next one),
// and a pipeline, whose reads return many messages at once, still gets
// batched writes. It returns nil at the end of input, or the first read or
// write error.
//
// Reports are written to log by a goroutine of their own, so that a log
// that nobody reads (a full stderr pipe) never keeps a reply from out:
// past maxQueuedReports waiting ones, reports are dropped and counted,
// and the count is reported instead. Serve returns once the reports are
// written, or once log has taken none for a second. A log that is out
// itself (one writer for both) gets the reports among the replies, in
// order, from Serve's own goroutine: a writer may not be safe for use by
// two at once, and one that blocks would stop the replies anyway.
func (n *Node) Serve(in io.Reader, out, log io.Writer) error {
	w := bufio.NewWriterSize(out, 64<<10)
	r := NewReader(&flushingReader{in: in, out: w})
	report := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if !sameWriter(out, log) {
		reports := NewReports(log)
		defer reports.Close()
		report = reports.Printf
	}
	for {
		msg, err := r.Next()
		var skip *SkipError
		switch {
		case err == io.EOF:
			return w.Flush()
		case errors.As(err, &skip):
			report("steal node: skipped %v\n", skip)
			continue
		case err != nil:
			w.Flush()
			return err
		}
		reply, err := n.Handle(msg)
		if err != nil {
			report("steal node: skipped line %d: %v\n", r.Line(), err)
			continue
		}
		if _, err := w.Write(reply); err != nil {
			return err
		}
	}
}

// sameWriter reports whether a and b are one writer. Values that cannot
// be compared (a struct holding a slice, or an interface holding one) are
// taken for two: comparing them panics, and the panic is recovered here.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}

// flushingReader flushes the pending replies before every read of the
// input. The value reader's bufio.Reader reads its source only when it
// needs bytes it does not hold, which is exactly when the node could block
// waiting for a peer that is itself waiting for a reply; so the flush sits
// here, under every way the reader can come to need input, rather than in
// Serve's loop, which cannot tell whether the buffered input holds a whole
// message or only blank lines or part of one.
type flushingReader struct {
	in  io.Reader
	out *bufio.Writer
}

// Read flushes, then reads; a failed flush is returned as the read's error,
// which ends Serve.
func (f *flushingReader) Read(p []byte) (int, error) {
	if err := f.out.Flush(); err != nil {
		return 0, err
	}
	return f.in.Read(p)
}
