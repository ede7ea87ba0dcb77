package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
)

// proc is the program running as a child process, its output read line
// by line.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	out   strings.Builder // every line read so far
	done  chan error
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startErr(t, os.Stderr, args...)
}

// startErr is start with the process's stderr going to stderr.
func startErr(t *testing.T, stderr io.Writer, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, cmd: exec.Command(os.Args[0], args...), lines: make(chan string, 100), done: make(chan error, 1)}
	p.cmd.Env = append(os.Environ(), asProgram+"=1")
	p.cmd.Stderr = stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() { // a failed test leaves nothing running
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	})
	return p
}

// await reads lines until one matches re, and returns its submatches.
func (p *proc) await(re string, limit time.Duration) []string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(limit)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%v ended without a line matching %q:\n%s", p.cmd.Args[1:], re, p.out.String())
			}
			p.out.WriteString(line + "\n")
			if m := rx.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-deadline:
			p.t.Fatalf("%v: no line matching %q within %v:\n%s", p.cmd.Args[1:], re, limit, p.out.String())
		}
	}
}

// interrupt sends SIGINT and waits for the exit, reading the rest of the
// output; it fails the test if the process does not exit 0 in time.
func (p *proc) interrupt(limit time.Duration) string {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	deadline := time.After(limit)
	for {
		select {
		case line, ok := <-p.lines:
			if ok {
				p.out.WriteString(line + "\n")
				continue
			}
			if err := <-p.done; err != nil {
				p.t.Fatalf("%v: %v after SIGINT:\n%s", p.cmd.Args[1:], err, p.out.String())
			}
			return p.out.String()
		case <-deadline:
			p.cmd.Process.Kill()
			p.t.Fatalf("%v did not exit within %v of SIGINT:\n%s", p.cmd.Args[1:], limit, p.out.String())
		}
	}
}

// cluster up with a worker child process; a separate worker process joins
// through the printed URL and runs jobs; SIGINT stops all three.
func TestClusterUpAndWorkerJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	up := start(t, "cluster", "up", "-workers", "1", "-procs", "-slots", "1", "-lease", "1s")
	child, _ := strconv.Atoi(up.await(`^worker w1: process (\d+)$`, 20*time.Second)[1])
	url := up.await(`^join with: stealcluster worker -nats (\S+) -name w2$`, 30*time.Second)[1]

	w2 := start(t, "worker", "-nats", url, "-name", "w2", "-slots", "2", "-lease", "1s")
	w2.await(`^worker w2 joined cluster default at `, 20*time.Second)

	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.NewClient(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	stolen := 0 // w1, idle, may steal one before w2 runs it
	for i := range 3 {
		id := "j" + strconv.Itoa(i)
		if err := c.Submit(ctx, id, "sleep", nil, cluster.To("w2"), cluster.Cost(1000)); err != nil {
			t.Fatal(err)
		}
		r, err := c.Wait(ctx, id)
		if err != nil || r.Err != nil || r.Worker != "w2" && r.Hops == 0 {
			t.Fatalf("%s: %+v, %v; want done by w2 (or stolen from it)", id, r, err)
		}
		if r.Worker != "w2" {
			stolen++
		}
	}
	// A tree on w1 (the child process) runs to the end across both.
	if err := c.Submit(ctx, "t", "tree", []byte(`{"depth":2,"fanout":3,"sleep_ms":5}`), cluster.To("w1")); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Wait(ctx, "t-2-1"); err != nil || r.Err != nil {
		t.Fatalf("tree leaf t-2-1: %+v, %v", r, err)
	}
	nc.Close()

	// w2 ran the 3 sleep jobs (less those stolen) and none, some or all
	// of the tree's 13.
	out := w2.interrupt(15 * time.Second)
	m := regexp.MustCompile(`worker w2 stopped: completed (\d+) jobs`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("worker w2's output:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n < 3-stolen || n > 16 {
		t.Fatalf("worker w2 completed %d jobs, want %d to 16:\n%s", n, 3-stolen, out)
	}
	if out := up.interrupt(15 * time.Second); !strings.Contains(out, "cluster stopped") {
		t.Fatalf("cluster up's output:\n%s", out)
	}
	if err := syscall.Kill(child, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("worker process %d is still there after cluster up exited: %v", child, err)
	}
}

// cluster up with a user and password: on loopback it starts; the server
// refuses an anonymous client and serves one that gives the password.
func TestClusterUpWithPassword(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	up := start(t, "cluster", "up", "-workers", "1", "-slots", "1", "-listen", "127.0.0.1:0",
		"-user", "steal", "-password", "s3cret", "-every", "100ms")
	m := up.await(`^join with: stealcluster worker -nats (\S+) -name w2 -user steal \(password in \$STEAL_NATS_PASSWORD\)$`, 30*time.Second)
	url := m[1]
	if nc, err := nats.Connect(url); err == nil {
		nc.Close()
		t.Fatal("an anonymous client connected to cluster up -user")
	} else if !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("anonymous client refused with %v, want an authorization violation", err)
	}
	nc, err := nats.Connect(url, nats.UserInfo("steal", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.NewClient(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(ctx, "j", "sleep", nil, cluster.To("w1")); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Wait(ctx, "j"); err != nil || r.Err != nil || r.Worker != "w1" {
		t.Fatalf("j: %+v, %v; want done by w1", r, err)
	}
	nc.Close()
	// cluster up says what it is doing: its status line counts the job.
	up.await(`^\s*[0-9.]+s  workers 1  done 1  stolen 0  queues w1=0$`, 10*time.Second)
	if out := up.interrupt(15 * time.Second); !strings.Contains(out, "cluster stopped") {
		t.Fatalf("cluster up's output:\n%s", out)
	}
}
