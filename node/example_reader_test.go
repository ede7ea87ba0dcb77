package node_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/worksteal/steal/node"
)

// A program with its own handlers frames its input as the node does: one
// message per line or spread over lines, with bad input reported and
// skipped.
func ExampleReader() {
	in := `{"src": "c", "dest": "n", "body": {"type": "echo", "msg_id": 1}}

{"src": "c", "dest": "n",
 "body": {"type": "echo", "msg_id": 2}}
{"src": "c" oops
`
	r := node.NewReader(strings.NewReader(in))
	for {
		msg, err := r.Next()
		var skip *node.SkipError
		switch {
		case err == io.EOF:
			return
		case errors.As(err, &skip):
			fmt.Println("skipped", skip)
			continue
		case err != nil:
			fmt.Println("read error:", err)
			return
		}
		fmt.Printf("line %d: %d bytes\n", r.Line(), len(msg))
	}
	// Output:
	// line 1: 64 bytes
	// line 4: 65 bytes
	// skipped line 5: invalid JSON
}

// AppendReply writes a reply as the node writes its own: keys in order,
// the node's separators and escaping, floats to three decimals.
func ExampleAppendReply() {
	reply, err := node.AppendReply(nil, "n", "c",
		node.Field{Key: "type", Value: "echo_ok"},
		node.Field{Key: "in_reply_to", Value: 1},
		node.Field{Key: "text", Value: "<ok> é"},
		node.Field{Key: "cost_ms", Value: 2.5004},
		node.Field{Key: "payload", Value: json.RawMessage(`{ "n": [1, 2] }`)},
		node.Field{Key: "workers", Value: []node.Field{{Key: "w1", Value: []node.Field{{Key: "queue_size", Value: 0}}}}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(reply)
	// Output:
	// {"src": "n", "dest": "c", "body": {"type": "echo_ok", "in_reply_to": 1, "text": "<ok> \u00e9", "cost_ms": 2.5, "payload": {"n":[1,2]}, "workers": {"w1": {"queue_size": 0}}}}
}
