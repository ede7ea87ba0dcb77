package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// exited waits (at most limit) for cmd to exit and returns its exit code,
// -1 if it did not exit in time (it is then killed).
func exited(cmd *exec.Cmd, limit time.Duration) int {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return -1
	}
}

// TestWorkerWithoutServer: a worker whose server is gone for good does not
// run for ever: past -server-loss-limit it says it stopped serving and
// exits 1. A worker told to stop (SIGTERM) while no server answers says it
// could not hand its jobs over, and exits 1, not 0.
func TestWorkerWithoutServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	e, err := natsserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			e.Shutdown()
		}
	})
	var outs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i, name := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "worker", "-nats", e.URL(), "-name", name, "-lease", "1s",
			"-server-loss-limit", "3s", "-slots", "1")
		cmd.Env = append(os.Environ(), asProgram+"=1")
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		cmds[i] = cmd
	}
	c := clientOn(t, e)
	waitWorkers(t, c, "a", "b")
	e.Shutdown()
	stopped = true

	cmds[1].Process.Signal(syscall.SIGTERM)
	if code := exited(cmds[1], 20*time.Second); code != 1 || !strings.Contains(outs[1].String(), "could not hand its jobs over") {
		t.Errorf("b, SIGTERM without a server: exit %d, want 1 saying it could not hand its jobs over:\n%s", code, outs[1].String())
	}
	if code := exited(cmds[0], 30*time.Second); code != 1 || !strings.Contains(outs[0].String(), "stopped serving") ||
		!strings.Contains(outs[0].String(), "lease not renewed") {
		t.Errorf("a, server gone: exit %d, want 1 saying it stopped serving:\n%s", code, outs[0].String())
	}
}

// clientOn is a client of the cluster on e; closed at the end of the test.
func clientOn(t *testing.T, e *natsserver.Server) *cluster.Client {
	t.Helper()
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cluster.NewClient(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitWorkers waits (at most 30 s) until every one of names answers.
func waitWorkers(t *testing.T, c *cluster.Client, names ...string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ws, _ := c.Workers(context.Background())
		seen := map[string]bool{}
		for _, w := range ws {
			seen[w.Name] = true
		}
		all := true
		for _, n := range names {
			all = all && seen[n]
		}
		if all {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("workers %v not all up within 30s: %+v", names, ws)
		}
	}
}

// TestWorkerSuperseded: a worker process paused (SIGSTOP) past its lease
// while a new process registers its name stops serving when it is resumed
// (SIGCONT): it says another process holds its name and exits 1. Jobs for
// the name run on the new process.
func TestWorkerSuperseded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	e, err := natsserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	var outs [2]lockedBuffer
	worker := func(i int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "worker", "-nats", e.URL(), "-name", "x1", "-lease", "1s", "-slots", "1")
		cmd.Env = append(os.Environ(), asProgram+"=1")
		outs[i] = lockedBuffer{}
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Signal(syscall.SIGCONT)
				cmd.Process.Kill()
				cmd.Wait()
			}
		})
		return cmd
	}
	c := clientOn(t, e)
	old := worker(0)
	waitWorkers(t, c, "x1")
	old.Process.Signal(syscall.SIGSTOP)
	time.Sleep(1500 * time.Millisecond) // past the lease
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The new x1 is refused (name in use) until the server has expired
	// the old lease, which a loaded machine delays: start it again until
	// it joins.
	var nw *exec.Cmd
	for joined := false; !joined; {
		if ctx.Err() != nil {
			t.Fatalf("the new x1 did not join:\n%s", outs[1].String())
		}
		nw = worker(1)
		for ctx.Err() == nil && nw.ProcessState == nil {
			if joined = strings.Contains(outs[1].String(), "joined"); joined {
				break
			}
			if strings.Contains(outs[1].String(), "name in use") {
				nw.Wait()
				time.Sleep(200 * time.Millisecond)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	old.Process.Signal(syscall.SIGCONT)
	if code := exited(old, 20*time.Second); code != 1 || !strings.Contains(outs[0].String(), "superseded") &&
		!strings.Contains(outs[0].String(), "another process holds this worker's name") {
		t.Fatalf("the paused x1 after SIGCONT: exit %d, want 1 saying another process holds its name:\n%s", code, outs[0].String())
	}
	if err := c.Submit(ctx, "after", "sleep", nil, cluster.To("x1")); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Wait(ctx, "after"); err != nil || r.Err != nil || r.Worker != "x1" {
		t.Fatalf("after: %+v, %v", r, err)
	}
	nw.Process.Signal(syscall.SIGTERM)
	if code := exited(nw, 20*time.Second); code != 0 {
		t.Errorf("the new x1 on SIGTERM: exit %d, want 0:\n%s", code, outs[1].String())
	}
}

// lockedBuffer is a bytes.Buffer that a process writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
