package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/node"
)

// session answers the node protocol against a cluster on NATS. init and
// run_simulation go to sim, a simulated cluster, as in steal node; the
// other messages act on the real workers through client.
type session struct {
	client  *cluster.Client
	hosts   *hosts // workers run for the process on stdin: pop_job, complete_job
	sim     *node.Node
	timeout time.Duration // for each request to the cluster
}

// request is the part of a message's body this session reads, decoded as
// steal node decodes its own (node.DecodeMessage): keys matched exactly,
// strings that are not UTF-8 refused, a null in busy_workers refused.
type request struct {
	Type        *string
	MsgID       json.RawMessage
	ThiefWorker *string
	BusyWorkers []string
	Worker      *string
	JobID       *string
	JobType     *string
	Payload     json.RawMessage
	CostMS      *float64
	id          *int64 // MsgID when it is an integer
}

// field returns a pointer to the field whose key is key, or nil.
func (r *request) field(key string) any {
	switch key {
	case "type":
		return &r.Type
	case "msg_id":
		return &r.MsgID
	case "thief_worker":
		return &r.ThiefWorker
	case "busy_workers":
		return &r.BusyWorkers
	case "worker":
		return &r.Worker
	case "job_id":
		return &r.JobID
	case "job_type":
		return &r.JobType
	case "payload":
		return &r.Payload
	case "cost_ms":
		return &r.CostMS
	}
	return nil
}

// typeFields lists the body's fields of each message type this session
// answers itself, besides type and msg_id (init and run_simulation are
// steal node's, which decodes them itself).
var typeFields = map[string][]string{
	"push_job":            {"worker", "job_id", "job_type", "payload", "cost_ms"},
	"steal_job":           {"thief_worker", "busy_workers"},
	"check_cluster_state": nil,
	"pop_job":             {"worker"},
	"complete_job":        {"worker", "job_id"},
}

// ownField returns the Fields of a message of type typ (nil: missing or
// not a string): type, msg_id and the fields typeFields lists for it.
func (r *request) ownField(typ *string) node.Fields {
	var own []string
	if typ != nil {
		own = typeFields[*typ]
	}
	return func(key string) any {
		if key == "type" || key == "msg_id" || slices.Contains(own, key) {
			return r.field(key)
		}
		return nil
	}
}

// replyError is an error reply: a node error code and a text naming the
// problem.
type replyError struct {
	code int
	text string
}

func (e *replyError) Error() string { return fmt.Sprintf("error %d: %s", e.code, e.text) }

func fail(code int, format string, args ...any) error {
	return &replyError{code, fmt.Sprintf(format, args...)}
}

// codeUnavailable is Maelstrom's "temporarily unavailable": the cluster
// did not complete the request (a timeout, a server error, a worker
// closing). The request may or may not
// have taken effect; push_job may be sent again with the same job_id.
const codeUnavailable = 11

// serve reads messages until in ends and writes each reply as soon as it
// is ready; input that is not a message is reported on log and skipped.
// The framing and the reports are steal node's (node.Reader).
func (s *session) serve(ctx context.Context, in io.Reader, out, log io.Writer) error {
	r := node.NewReader(in)
	reports := node.NewReports(log) // a log nobody reads must not stop the replies
	defer reports.Close()
	for {
		msg, err := r.Next()
		var skip *node.SkipError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &skip):
			reports.Printf("steal node: skipped %v\n", skip)
			continue
		case err != nil:
			return err
		}
		reply, err := s.handle(ctx, msg)
		if err != nil {
			reports.Printf("steal node: skipped line %d: %v\n", r.Line(), err)
			continue
		}
		if _, err := out.Write(reply); err != nil {
			return err
		}
	}
}

// handle answers one message. A message that is not JSON or has no body
// object gets no reply: handle returns an error to report instead, as
// node.Node.Handle does.
func (s *session) handle(ctx context.Context, msg []byte) ([]byte, error) {
	req := new(request)
	src, dest, ok, err := node.DecodeMessage(msg, req.field)
	if !ok {
		return nil, err
	}
	if err != nil {
		// The fields of every message were decoded at once; as steal
		// node does, judge the message by its own type's fields only.
		// The walk went on past the first problem, so the type is read.
		typ := req.Type
		req = new(request)
		_, _, _, err = node.DecodeMessage(msg, req.ownField(typ))
	}
	if isSimulated(req) {
		return s.simulate(msg)
	}
	id, idErr := node.ParseMsgID(req.MsgID) // even a malformed request gets in_reply_to when it can
	req.id = id
	if err == nil {
		err = idErr
	}
	if err != nil {
		err = fail(node.CodeMalformed, "%s", node.DecodeErrorText(err))
	}
	var body obj
	if err == nil {
		body, err = s.dispatch(ctx, req)
	}
	if err != nil {
		body = errorBody(req, err)
	}
	reply, err := node.AppendReply(nil, dest, src, body...)
	if err != nil { // over node.MaxReplyBytes (a payload that large): say so instead
		reply, err = node.AppendReply(nil, dest, src, errorBody(req, fail(node.CodeMalformed, "%v", err))...)
	}
	return reply, err
}

func errorBody(req *request, err error) obj {
	var re *replyError
	if !errors.As(err, &re) {
		re = &replyError{codeUnavailable, "the cluster did not complete the request: " + err.Error()}
	}
	body := obj{kv("type", "error")}
	if req.id != nil {
		body = append(body, kv("in_reply_to", *req.id))
	}
	return append(body, kv("code", re.code), kv("text", re.text))
}

// isSimulated: init and run_simulation are the simulator's.
func isSimulated(req *request) bool {
	return req.Type != nil && (*req.Type == "init" || *req.Type == "run_simulation")
}

// simulate hands the message to the simulated cluster, which checks it
// and replies exactly as steal node does.
func (s *session) simulate(msg []byte) ([]byte, error) {
	reply, err := s.sim.Handle(msg)
	return bytes.Clone(reply), err
}

// dispatch validates the common fields and runs the message's handler on
// the real cluster; the body it returns becomes the reply's.
func (s *session) dispatch(ctx context.Context, req *request) (obj, error) {
	if req.Type == nil {
		return nil, fail(node.CodeMalformed, "missing field type")
	}
	if req.id == nil {
		return nil, fail(node.CodeMalformed, "missing field msg_id")
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	switch *req.Type {
	case "push_job":
		return s.pushJob(ctx, req)
	case "steal_job":
		return s.stealJob(ctx, req)
	case "check_cluster_state":
		return s.checkClusterState(ctx, req)
	case "pop_job":
		return s.popJob(ctx, req)
	case "complete_job":
		return s.completeJob(ctx, req)
	}
	return nil, fail(node.CodeNotSupported, "unknown message type %q", *req.Type)
}
