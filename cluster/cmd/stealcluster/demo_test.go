package main

import (
	"context"
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
	"github.com/worksteal/steal/internal/cli"
)

// cluster demo with no flags: every job of the skewed workload is done,
// idle workers stole some, and it exits 0.
func TestClusterDemo(t *testing.T) {
	code, out, errs := runWith(nil, "cluster", "demo")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "summary: 320 of 320 jobs completed (each recorded once) in ") || !strings.Contains(out, "cluster stopped") {
		t.Fatalf("no summary of 320 jobs done:\n%s", out)
	}
	m := regexp.MustCompile(`recorded once\) in \S+, (\d+) jobs stolen`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count of jobs stolen:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Fatalf("no job stolen:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^ +\d+\.\d+s +done +\d+/320 +stolen +\d+ +queues w1=\d+ w2=\d+ w3=\d+ w4=\d+$`).MatchString(out) {
		t.Fatalf("no progress line:\n%s", out)
	}
	// Each worker's line adds up to the total.
	if sum := sumCounts(`(?m)^  w\d completed (\d+) jobs`, out); sum != 320 {
		t.Fatalf("workers' lines add up to %d jobs, want 320:\n%s", sum, out)
	}
}

// cluster demo -spawn-records=false: spawned jobs stay in memory, the 8
// roots are recorded once each after their trees, thieves borrow children,
// and the workers' lines add up to the 8 roots.
func TestClusterDemoMemTrees(t *testing.T) {
	code, out, errs := runWith(nil, "cluster", "demo", "-spawn-records=false")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	m := regexp.MustCompile(`summary: 8 of 8 root jobs completed \(each recorded once, after its whole tree\): 320 jobs in \S+, (\d+) jobs stolen`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary of 8 roots and 320 jobs:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Fatalf("no job stolen:\n%s", out)
	}
	if sum := sumCounts(`(?m)^  w\d recorded (\d+) roots`, out); sum != 8 {
		t.Fatalf("workers' lines add up to %d roots, want 8:\n%s", sum, out)
	}
}

// With -nats, cluster demo uses that server and starts none.
func TestClusterDemoOnExternalServer(t *testing.T) {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	code, out, errs := runWith(nil, "cluster", "demo", "-nats", srv.URL(), "-cluster", "ext",
		"-workers", "2", "-roots", "2", "-depth", "2", "-fanout", "2", "-sleep", "1ms")
	if code != 0 || !strings.Contains(out, "NATS server at "+srv.URL()+"\n") ||
		!strings.Contains(out, "summary: 14 of 14 jobs completed") || !strings.Contains(out, "-name w3 -cluster ext\n") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// The server notices closed connections a moment later.
	deadline := time.Now().Add(5 * time.Second)
	for srv.NATS().NumClients() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := srv.NATS().NumClients(); n != 0 {
		t.Fatalf("%d connections left open after the demo", n)
	}
}

// sumCounts adds up the number that pattern's first group captures on
// every match in out: the workers' lines of a demo's summary.
func sumCounts(pattern, out string) int {
	sum := 0
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	return sum
}

// cluster demo -procs on a server where w1 is already live: its w1
// process exits at once (the name is in use), and the demo must say so
// and exit 1, not count the other process's w1 as its own and run on.
func TestProcsNameInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Setenv(asProgram, "1") // the worker processes are this test binary
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	clientOn(t, srv)
	nc, err := srv.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var c connFlags
	c.register(flag.NewFlagSet("", flag.ContinueOnError), "")
	w, err := startWorker(context.Background(), nc, "w1", 1, &c)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The worker processes write to the same buffers.
	var out, errs lockedBuffer
	code := cli.Run([]string{"cluster", "demo", "-nats", srv.URL(), "-procs", "-workers", "2",
		"-roots", "1", "-depth", "1", "-fanout", "1", "-sleep", "1ms"}, nil, &out, &errs, commands()...)
	if code != 1 || !strings.Contains(errs.String(), "worker w1 is already on the cluster") {
		t.Fatalf("exit %d, want 1 naming w1 as taken\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
}

// A password in the -nats URL is never printed: the URL is shown with
// the password masked, as the password of -user is never shown.
func TestURLPasswordNotPrinted(t *testing.T) {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()), natsserver.UserPassword("u", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	url := strings.Replace(srv.URL(), "nats://", "nats://u:s3cret@", 1)
	code, out, errs := runWith(nil, "cluster", "demo", "-nats", url, "-workers", "1", "-roots", "1", "-depth", "0")
	masked := strings.Replace(srv.URL(), "nats://", "nats://u:xxxxx@", 1)
	if code != 0 || strings.Contains(out+errs, "s3cret") || !strings.Contains(out, "join with: stealcluster worker -nats "+masked+" ") {
		t.Fatalf("exit %d, want 0, the URL shown as %s\nstdout:\n%s\nstderr:\n%s", code, masked, out, errs)
	}
}

// cluster demo with a long -every ends once the work is done: it looked
// for the end only at each progress line, and -every 1h waited an hour
// (here, till -timeout) for work done in a second.
func TestClusterDemoLongEvery(t *testing.T) {
	start := time.Now()
	code, out, errs := runWith(nil, "cluster", "demo", "-roots", "1", "-depth", "1", "-every", "1h", "-timeout", "10s")
	if code != 0 || !strings.Contains(out, "summary: 4 of 4 jobs completed") {
		t.Fatalf("exit %d after %v\nstdout:\n%s\nstderr:\n%s", code, time.Since(start).Round(time.Millisecond), out, errs)
	}
}

// A demo that runs out of -timeout says so, naming the flag, rather than
// a bare "context deadline exceeded".
func TestClusterDemoTimeoutNamed(t *testing.T) {
	code, out, errs := runWith(nil, "cluster", "demo", "-roots", "1", "-depth", "1", "-timeout", "1ns")
	if code != 1 || !strings.Contains(errs, "not done within -timeout 1ns") || strings.Contains(errs, "context deadline exceeded") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
