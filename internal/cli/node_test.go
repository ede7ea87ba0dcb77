package cli

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestNodeCommandAnswersAndExitsZero(t *testing.T) {
	in := `{"src":"client","dest":"cluster","body":{"type":"init","msg_id":1,"workers":["w1","w2","w3"],"jobs_to_distribute":6}}` + "\nnot json\n"
	code, out, errs := runWith([]string{"node"}, in)
	if code != 0 || out != `{"src": "cluster", "dest": "client", "body": {"type": "init_ok", "in_reply_to": 1}}`+"\n" {
		t.Fatalf("code %d out %q", code, out)
	}
	if errs == "" {
		t.Fatal("bad line not reported on stderr")
	}
	if code, _, _ := runWith([]string{"node", "-bogus"}, ""); code != 2 {
		t.Fatalf("bad flag: code %d", code)
	}
}

// childEnv makes the test binary, run again as a child process, act as
// "steal node" on its real stdin and stdout.
const childEnv = "STEAL_TEST_NODE_CHILD"

// The node as a process on OS pipes, driven like an interactive peer
// (Python's print(msg + "\n") sends a blank line after each message): each
// reply must arrive while the input stays open.
func TestNodeProcessRepliesWhileInputStaysOpen(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run([]string{"node"}, os.Stdin, os.Stdout, os.Stderr))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNodeProcessRepliesWhileInputStaysOpen$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	finish := func() error { // Wait only once the output is read
		stdin.Close()
		for range lines {
		}
		return cmd.Wait()
	}
	for _, id := range []string{"1", "2"} {
		msg := `{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": ` + id + "}}\n\n"
		if _, err := io.WriteString(stdin, msg); err != nil {
			cmd.Process.Kill()
			finish()
			t.Fatal(err)
		}
		select {
		case line := <-lines:
			if !strings.Contains(line, `"in_reply_to": `+id) {
				cmd.Process.Kill()
				finish()
				t.Fatalf("reply %s: %s", id, line)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			finish()
			t.Fatalf("no reply to message %s within 5 s while stdin stays open", id)
		}
	}
	if err := finish(); err != nil {
		t.Fatalf("node exited with %v", err)
	}
}

// steal node -h says where the protocol is described: it only said one
// message per line, leaving a newcomer no way from the help to the
// messages, their fields and error codes.
func TestNodeHelpNamesTheProtocol(t *testing.T) {
	code, _, errs := runWith([]string{"node", "-h"}, "")
	if code != 0 || !strings.Contains(errs, "go doc github.com/worksteal/steal/node") || !strings.Contains(errs, "skipped") {
		t.Fatalf("code %d, help %q", code, errs)
	}
}

// TestNodeExampleSession: the README's "steal node < docs/node-session.jsonl"
// runs as printed, and every message of it is answered without an error.
// The README named a messages.jsonl that the repository did not have.
func TestNodeExampleSession(t *testing.T) {
	in, err := os.ReadFile("../../docs/node-session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runWith([]string{"node"}, string(in))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errs != "" || len(lines) != strings.Count(string(in), "\n") || strings.Contains(out, `"type": "error"`) {
		t.Fatalf("code %d, stderr %q, replies:\n%s", code, errs, out)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "go run ./cmd/steal node < docs/node-session.jsonl") {
		t.Error("the README does not run the example session")
	}
}
