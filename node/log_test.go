package node

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckLog is a log nobody reads, like stderr piped to a peer that reads
// only stdout: once it holds a few reports, every Write blocks until
// release.
type stuckLog struct {
	mu      sync.Mutex
	buf     strings.Builder
	holds   int
	release chan struct{}
}

func newStuckLog(holds int) *stuckLog { return &stuckLog{holds: holds, release: make(chan struct{})} }

func (l *stuckLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	full := l.holds == 0
	if !full {
		l.holds--
	}
	l.mu.Unlock()
	if full {
		<-l.release
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *stuckLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// A peer that pipes the node's stderr but never reads it fills the pipe
// after a few hundred reports of bad input; the node must still answer
// every message after them, and end at the end of the input.
func TestServeAnswersWhileTheLogIsNotRead(t *testing.T) {
	defer setLogStall(50 * time.Millisecond)()
	log := newStuckLog(10)
	defer close(log.release)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := New().Serve(inR, outW, log)
		outW.Close()
		done <- err
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go inW.Write([]byte(strings.Repeat("not json\n", 5000) + check("1") + "\n"))
	select {
	case line := <-lines:
		if !strings.Contains(line, `"in_reply_to": 1`) {
			t.Fatalf("got %s", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no reply within 5 s after 5000 bad lines while the log is not read")
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return at the end of the input while the log is not read")
	}
}

// Once a log that stopped is read again, it gets the reports that were
// queued, then how many were dropped: every bad line is accounted for.
func TestServeSaysHowManyReportsItDropped(t *testing.T) {
	log := newStuckLog(1)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := New().Serve(inR, outW, log)
		outW.Close()
		done <- err
	}()
	const bad = maxQueuedReports + 10
	go inW.Write([]byte(strings.Repeat("not json\n", bad) + check("1") + "\n"))
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line := <-lines:
		if !strings.Contains(line, `"in_reply_to": 1`) {
			t.Fatalf("got %s", line)
		}
	case <-time.After(5 * time.Second):
		close(log.release)
		t.Fatal("no reply within 5 s after the log stopped")
	}
	close(log.release)
	inW.Close()
	for range lines {
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	reported := len(got) - 1
	for i, line := range got[:reported] {
		if want := fmt.Sprintf("steal node: skipped line %d: not JSON", i+1); !strings.HasPrefix(line, want) {
			t.Fatalf("report %d is %q, want %q...", i+1, line, want)
		}
	}
	if reported < maxQueuedReports {
		t.Errorf("%d reports kept, want at least %d", reported, maxQueuedReports)
	}
	if want := fmt.Sprintf("steal node: %d reports dropped: the log was not being read", bad-reported); got[reported] != want {
		t.Errorf("got %q, want %q", got[reported], want)
	}
}

// setLogStall sets logStall for a test and returns what restores it.
func setLogStall(d time.Duration) func() {
	old := logStall
	logStall = d
	return func() { logStall = old }
}

// A caller may give Serve one writer for both replies and reports, as a
// program that keeps a transcript does. Serve must not write to it from
// two goroutines at once (a bytes.Buffer is not safe for that), and the
// reports then come in their place among the replies.
func TestServeWithOneWriterForRepliesAndReports(t *testing.T) {
	var all bytes.Buffer
	input := check("1") + "\nnot json\n" + check("2") + "\nnot json\n" + check("3") + "\n"
	if err := New().Serve(strings.NewReader(input), &all, &all); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n")
	want := []string{`"in_reply_to": 1`, "steal node: skipped line 2: not JSON", `"in_reply_to": 2`,
		"steal node: skipped line 4: not JSON", `"in_reply_to": 3`}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %d lines", got, len(want))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("line %d is %q, want it to hold %q", i+1, got[i], want[i])
		}
	}
}

// sliceWriter is a writer used through a pointer, compared by address.
type sliceWriter []byte

func (w *sliceWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// uncomparable is a writer whose values Go cannot compare: comparing two
// of them as interfaces panics.
type uncomparable map[int]int

func (uncomparable) Write(p []byte) (int, error) { return len(p), nil }

// sameWriter tells one writer from two, also for values that Go cannot
// compare, without panicking.
func TestSameWriter(t *testing.T) {
	var a, b bytes.Buffer
	var s sliceWriter
	for _, c := range []struct {
		x, y io.Writer
		want bool
	}{
		{&a, &a, true}, {&a, &b, false}, {&s, &s, true}, {&s, &a, false},
		{uncomparable{}, uncomparable{}, false}, {nil, nil, false}, {io.Discard, io.Discard, true},
	} {
		if got := sameWriter(c.x, c.y); got != c.want {
			t.Errorf("sameWriter(%T, %T) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
