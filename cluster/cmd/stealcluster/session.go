package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
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

// envelope and request are the parts of a message this session reads.
type envelope struct {
	Src  string   `json:"src"`
	Dest string   `json:"dest"`
	Body *request `json:"body"`
}

type request struct {
	Type        *string         `json:"type"`
	MsgID       json.RawMessage `json:"msg_id"`
	ThiefWorker *string         `json:"thief_worker"`
	BusyWorkers []*string       `json:"busy_workers"` // a null element is an error, not ""
	Worker      *string         `json:"worker"`
	JobID       *string         `json:"job_id"`
	JobType     *string         `json:"job_type"`
	Payload     json.RawMessage `json:"payload"`
	CostMS      *float64        `json:"cost_ms"`
	id          *int64
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
	for {
		msg, err := r.Next()
		var skip *node.SkipError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &skip):
			fmt.Fprintf(log, "steal node: skipped %v\n", skip)
			continue
		case err != nil:
			return err
		}
		reply, err := s.handle(ctx, msg)
		if err != nil {
			fmt.Fprintf(log, "steal node: skipped line %d: %v\n", r.Line(), err)
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
	var env envelope
	err := json.Unmarshal(msg, &env)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	var mistyped *json.UnmarshalTypeError
	if env.Body == nil || errors.As(err, &mistyped) && mistyped.Field == "body" {
		return nil, errors.New("no body object, nothing to reply to")
	}
	req := env.Body
	if isSimulated(req) {
		return s.simulate(msg)
	}
	idErr := req.parseID() // even a malformed request gets in_reply_to when it can
	if err != nil {
		err = fail(node.CodeMalformed, "%s", decodeErrorText(err, msg))
	} else {
		err = idErr
	}
	var body obj
	if err == nil {
		body, err = s.dispatch(ctx, req)
	}
	if err != nil {
		body = errorBody(req, err)
	}
	reply, err := node.AppendReply(nil, env.Dest, env.Src, body...)
	if err != nil { // over node.MaxReplyBytes (a payload that large): say so instead
		reply, err = node.AppendReply(nil, env.Dest, env.Src, errorBody(req, fail(node.CodeMalformed, "%v", err))...)
	}
	return reply, err
}

// decodeErrorText is node.DecodeErrorText, but names an element of
// busy_workers that is not a string by its index, as steal node does:
// encoding/json names only the list.
func decodeErrorText(err error, msg []byte) string {
	var mistyped *json.UnmarshalTypeError
	if errors.As(err, &mistyped) && mistyped.Field == "body.busy_workers" && mistyped.Type.Kind() == reflect.String {
		var e struct {
			Body struct {
				BusyWorkers []json.RawMessage `json:"busy_workers"`
			} `json:"body"`
		}
		json.Unmarshal(msg, &e)
		for k, v := range e.Body.BusyWorkers {
			if v[0] != '"' && v[0] != 'n' {
				mistyped.Field = fmt.Sprintf("body.busy_workers[%d]", k)
				break
			}
		}
	}
	return node.DecodeErrorText(err)
}

// parseID reads msg_id when it is an integer.
func (r *request) parseID() error {
	if len(r.MsgID) == 0 {
		return nil
	}
	id, err := strconv.ParseInt(string(r.MsgID), 10, 64)
	if err != nil {
		return fail(node.CodeMalformed, "msg_id must be an integer, not %s", r.MsgID)
	}
	r.id = &id
	return nil
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
