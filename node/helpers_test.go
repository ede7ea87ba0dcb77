package node

import (
	"fmt"
	"strings"
	"testing"
)

// ask sends body to n from "c" to "n" and returns the reply's body.
func ask(t testing.TB, n *Node, body string) string {
	t.Helper()
	reply, err := n.Handle([]byte(`{"src": "c", "dest": "n", "body": ` + body + `}`))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	const prefix = `{"src": "n", "dest": "c", "body": `
	s := string(reply)
	if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, "}\n") {
		t.Fatalf("malformed envelope %q", s)
	}
	return s[len(prefix) : len(s)-2]
}

// fingerprint renders everything a request could change: every deque and
// in-flight set with costs and payloads, and the node's own settings.
func fingerprint(n *Node) string {
	return fmt.Sprintf("%+v|%v|%v|%v|%v", n.cluster.Snapshot(), n.cluster.Victims(), n.cost, n.latency, n.seed)
}
