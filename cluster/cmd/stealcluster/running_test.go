package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/steal"
	"github.com/worksteal/steal/cluster/natsserver"
)

// With its server gone, each worker's close waits for the server until
// its request times out. stop closes the workers together: one after
// the other, -workers 64 stopped for minutes.
func TestStopWithoutServerIsNotSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for requests to time out")
	}
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	f := clusterFlags{}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"-nats", srv.URL(), "-workers", "4", "-slots", "1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.check(fs); err != nil {
		t.Fatal(err)
	}
	c, err := startCluster(context.Background(), &f, io.Discard, io.Discard)
	if err != nil {
		srv.Shutdown()
		t.Fatal(err)
	}
	srv.Shutdown()
	start := time.Now()
	err = c.stop()
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "not handed over") {
		t.Errorf("stop without a server: %v, want jobs not handed over", err)
	}
	// One close takes about 7.5 s here; four in a row, 30 s.
	if took > 15*time.Second {
		t.Errorf("stop took %v for 4 workers: closed one after the other", took.Round(time.Millisecond))
	}
}

// Interrupted while it waits for its worker processes, cluster up says
// so, rather than that a worker "did not join within 20s" 20 ms in.
func TestAwaitWorkersInterrupted(t *testing.T) {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	c := &runningCluster{client: clientOn(t, srv), names: []string{"w1"}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = c.awaitWorkers(ctx, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "interrupted before worker w1 joined") {
		t.Fatalf("awaitWorkers, interrupted: %v; want interrupted before worker w1 joined", err)
	}
}

// cluster up -nats whose server went away before SIGINT: it exits 1,
// each error on a line of its own naming the program, and its last
// line does not say it stopped as if all were well.
func TestClusterUpStopWithoutServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	up := startErr(t, &stderr, "cluster", "up", "-nats", srv.URL(), "-workers", "2", "-slots", "1", "-every", "1h")
	up.await(`^join with: `, 30*time.Second)
	srv.Shutdown()
	up.cmd.Process.Signal(syscall.SIGINT)
	var out strings.Builder
	for line := range up.lines {
		out.WriteString(line + "\n")
	}
	if err := <-up.done; err == nil {
		t.Fatalf("exit 0 with jobs not handed over\nstdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(line, "stealcluster cluster up: ") {
			t.Errorf("stderr line without the program's name: %q", line)
		}
	}
	if !strings.Contains(stderr.String(), "stealcluster cluster up: stopping: worker w1: cluster: could not give up the lease: jobs not handed over") ||
		!strings.Contains(out.String(), "cluster stopped; jobs of 2 workers not handed over\n") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
	}
}

// TestAsyncErrorNamesProgram: an error nats.go meets on a connection (a
// write to a server that went away) is printed starting with the command,
// as its other lines are; nats.go's default handler printed it bare, which
// TestClusterUpStopWithoutServer caught in one run.
func TestAsyncErrorNamesProgram(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	c := connFlags{prog: "stealcluster cluster up"}
	c.asyncError("stealcluster worker w1")(nil, nil, errors.New("write: broken pipe"))
	os.Stderr = stderr
	w.Close()
	b, _ := io.ReadAll(r)
	if want := "stealcluster cluster up: nats: write: broken pipe (stealcluster worker w1)\n"; string(b) != want {
		t.Errorf("printed %q, want %q", b, want)
	}
}

// Workers of the most slots start at once and stay live. Each pool
// worker used to look for work over all the others before it first
// parked, O(slots²) per worker: 64 workers of 4096 slots spent minutes
// of CPU on it, their lease renewals starved, and cluster up failed
// with "context deadline exceeded".
func TestClusterUpMaxSlots(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	f := clusterFlags{}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"-nats", srv.URL(), "-workers", "8", "-slots", strconv.Itoa(steal.MaxWorkers)}); err != nil {
		t.Fatal(err)
	}
	if err := f.check(fs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	c, err := startCluster(ctx, &f, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("8 workers of %d slots: %v after %v", steal.MaxWorkers, err, time.Since(start).Round(time.Millisecond))
	}
	defer c.stop()
	took := time.Since(start)
	time.Sleep(f.conn.lease) // a starved worker's lease expires meanwhile
	states, err := c.client.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 8 {
		t.Fatalf("%d workers live %v after a start of %v, want 8", len(states), f.conn.lease, took.Round(time.Millisecond))
	}
}

// startFlags starts cluster up's cluster with args on an embedded server
// of the test's.
func startFlags(t *testing.T, args ...string) *runningCluster {
	t.Helper()
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	f := clusterFlags{}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(append([]string{"-nats", srv.URL()}, args...)); err != nil {
		t.Fatal(err)
	}
	if err := f.check(fs); err != nil {
		t.Fatal(err)
	}
	c, err := startCluster(context.Background(), &f, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop() })
	return c
}

// cluster up -every 10ms (the least allowed) on a healthy cluster: every
// line is a status line. The answer's time limit was -every itself, and
// one line in ten or more said "no answer from the cluster".
func TestReportShortEvery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	c := startFlags(t, "-workers", "16", "-slots", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out strings.Builder
	report(ctx, c.client, 10*time.Millisecond, &out)
	lines := strings.Count(out.String(), "\n")
	if bad := strings.Count(out.String(), "no answer"); bad > 0 || lines == 0 {
		t.Fatalf("%d of %d lines say no answer from a healthy cluster:\n%s", bad, lines, out.String())
	}
}

// cluster up -listen 0.0.0.0:0 -insecure starts, open, as the flag says:
// the embedded server refuses such an address unless told it is meant.
func TestClusterUpInsecureStarts(t *testing.T) {
	f := clusterFlags{}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse([]string{"-listen", "0.0.0.0:0", "-insecure", "-workers", "1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.check(fs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := startCluster(ctx, &f, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("-listen 0.0.0.0:0 -insecure: %v", err)
	}
	c.stop()
}

// cluster up -insecure beyond loopback says, once it runs, that the
// server authenticates no one and what any client can then do: the flag's
// help said so, the running program did not. With -user it authenticates,
// and nothing is said.
func TestInsecureSaysWhatItExposes(t *testing.T) {
	demo := []string{"cluster", "demo", "-listen", "0.0.0.0:0", "-insecure", "-workers", "1", "-roots", "1", "-depth", "0"}
	code, out, errs := runWith(nil, demo...)
	if code != 0 || !strings.Contains(errs, "-insecure: the NATS server on 0.0.0.0:") ||
		!strings.Contains(errs, "authenticates no one") || !strings.Contains(errs, "forge completions") {
		t.Fatalf("exit %d, want 0 and a warning on stderr\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = runWith(nil, append(demo, "-user", "u", "-password", "p")...)
	if code != 0 || strings.Contains(errs, "authenticates no one") {
		t.Fatalf("with -user: exit %d, want 0 and no warning\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
