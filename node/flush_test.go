package node

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// liveNode runs Serve on pipes, as an interactive peer would: the test
// writes to in and reads reply lines from lines, and the input stays open
// until stop.
type liveNode struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
	log   bytes.Buffer
}

func startNode(t *testing.T) *liveNode {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	n := &liveNode{in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	go func() {
		err := New().Serve(inR, outW, &n.log)
		outW.Close()
		n.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			n.lines <- sc.Text()
		}
		close(n.lines)
	}()
	t.Cleanup(func() { n.stop(t) })
	return n
}

// send writes raw input without closing it.
func (n *liveNode) send(t *testing.T, s string) {
	t.Helper()
	go n.in.Write([]byte(s)) // the pipe blocks until Serve reads it all
}

// reply waits, at most 5 s, for the next reply line.
func (n *liveNode) reply(t *testing.T, what string) string {
	t.Helper()
	select {
	case line, ok := <-n.lines:
		if !ok {
			t.Fatalf("%s: output closed without a reply", what)
		}
		return line
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no reply within 5 s while the input stays open", what)
	}
	return ""
}

// stop closes the input and waits for Serve to return.
func (n *liveNode) stop(t *testing.T) {
	n.in.Close()
	select {
	case err := <-n.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		for range n.lines {
		}
	case <-time.After(5 * time.Second):
		t.Error("Serve did not return after the input closed")
	}
}

const checkMsg = `{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": %s}}`

func check(id string) string { return strings.Replace(checkMsg, "%s", id, 1) }

// Every reply reaches an interactive peer before the node waits for more
// input, whatever follows the message: blank lines (Python's
// print(msg + "\n")), whitespace, part of the next message, or the first
// lines of a message spread over lines.
func TestServeFlushesBeforeEveryBlockingRead(t *testing.T) {
	pretty := "{\n  \"src\": \"c\", \"dest\": \"n\",\n  \"body\": {\"type\": \"check_cluster_state\", \"msg_id\": 1}\n}"
	for name, input := range map[string]string{
		"blank line":            check("1") + "\n\n",
		"CRLF blank line":       check("1") + "\r\n\r\n",
		"whitespace line":       check("1") + "\n   \n",
		"partial next line":     check("1") + "\n{\"src\": \"c\"",
		"next value half sent":  check("1") + "\n{\n  \"src\": \"c\",\n",
		"pretty then blank":     pretty + "\n\n",
		"two at once and blank": check("0") + "\n" + check("1") + "\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			n := startNode(t)
			n.send(t, input)
			got := n.reply(t, name)
			if strings.HasPrefix(name, "two") {
				got = n.reply(t, name)
			}
			if !strings.Contains(got, `"in_reply_to": 1`) {
				t.Fatalf("got %s", got)
			}
		})
	}
}

// A conversation: each reply arrives before the next request is sent.
func TestServeAnswersAConversation(t *testing.T) {
	n := startNode(t)
	for i, id := range []string{"1", "2", "3"} {
		n.send(t, check(id)+"\n\n")
		if got := n.reply(t, "message "+id); !strings.Contains(got, `"in_reply_to": `+id) {
			t.Fatalf("reply %d: %s", i, got)
		}
	}
}
