package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// cluster3Env turns on TestClusterLosesServer, which forms a three-server
// cluster and takes about 30 s.
const cluster3Env = "STEAL_CLUSTER3"

// serverEnv carries a child server's settings: name, client port, cluster
// port (0 for a server on its own), routes and store directory, separated
// by spaces.
const serverEnv = "STEAL_TEST_SERVER"

// childServer runs one NATS server with JetStream (clustered, or on its
// own) until its stdin closes or childCap passes; the test kills it with
// SIGKILL.
func childServer() int {
	f := strings.Fields(os.Getenv(serverEnv))
	if len(f) != 5 {
		fmt.Fprintln(os.Stderr, "server: bad", serverEnv)
		return 2
	}
	port, _ := strconv.Atoi(f[1])
	cport, _ := strconv.Atoi(f[2])
	o := &server.Options{
		ServerName: f[0], Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: f[4],
		NoSigs: true, NoLog: true,
	}
	if cport != 0 { // 0: a server on its own
		o.Cluster = server.ClusterOpts{Name: "steal", Host: "127.0.0.1", Port: cport}
		o.Routes = server.RoutesFromStr(f[3])
	}
	srv, err := server.NewServer(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 2
	}
	srv.Start()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * childCap):
	}
	srv.Shutdown()
	return 0
}

// freePorts returns n ports that were free a moment ago.
func freePorts(t *testing.T, n int) []int {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		defer l.Close()
	}
	return ports
}

// startCluster3 runs three server processes routed to each other and
// returns them by server name, and the client URLs.
func startCluster3(t *testing.T) (map[string]*child, string) {
	p := freePorts(t, 6)
	var routes, urls []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p[3+i]))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", p[i]))
	}
	servers := map[string]*child{}
	for i := range 3 {
		name := "n" + strconv.Itoa(i+1)
		servers[name] = startRole(t, name, roleEnv+"=server", serverEnv+"="+fmt.Sprintf("%s %d %d %s %s",
			name, p[i], p[3+i], strings.Join(routes, ","), t.TempDir()))
	}
	return servers, strings.Join(urls, ",")
}

func connect3(t *testing.T, urls string) *nats.Conn {
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond),
		nats.RetryOnFailedConnect(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// tree3Handler sleeps 30 ms, then spawns 3 children of depth-1 while the
// payload's depth is above 0. A Spawn error is sent to errs and fails the job,
// except ErrFenced: a worker whose lease lapsed during the election lost the
// job to another worker, which runs it again (the documented outcome of a
// lease shorter than the election); its completion is checked in the ledger.
func tree3Handler(errs chan<- error) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		depth, _ := strconv.Atoi(string(j.Payload))
		time.Sleep(30 * time.Millisecond)
		for i := 0; depth > 0 && i < 3; i++ {
			_, err := j.Spawn(ctx, "tree", []byte(strconv.Itoa(depth-1)))
			if errors.Is(err, ErrFenced) {
				return nil, err
			}
			if err != nil {
				select {
				case errs <- fmt.Errorf("job %s on %s: spawn: %w", j.ID, j.Worker(), err):
				default:
				}
				return nil, err
			}
		}
		return nil, nil
	}
}

// tree3IDs lists the ids of a tree of the given depth rooted at root.
func tree3IDs(root string, depth int) []string {
	ids := []string{root}
	if depth > 0 {
		for i := range 3 {
			ids = append(ids, tree3IDs(root+"-"+strconv.Itoa(i), depth-1)...)
		}
	}
	return ids
}

// TestClusterLosesServer runs spawning jobs on three workers over a
// three-server cluster with replicated buckets, kills (SIGKILL) the server
// leading both buckets while jobs spawn and complete, and checks that
// every job completes once with no failure recorded: writes that meet the
// leader election are retried, not failed.
func TestClusterLosesServer(t *testing.T) {
	if os.Getenv(cluster3Env) == "" {
		t.Skip("set " + cluster3Env + "=1 to run (about 30 s: a three-server cluster)")
	}
	begin := time.Now()
	servers, urls := startCluster3(t)
	opts := []Option{WithCluster("c3"), WithReplicas(3)}
	var client *Client
	for deadline := time.Now().Add(60 * time.Second); client == nil; {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := NewClient(ctx, connect3(t, urls), opts...)
		cancel()
		switch {
		case err == nil:
			client = c
		case time.Now().After(deadline):
			t.Fatalf("no R3 buckets within 60s: %v", err)
		default:
			time.Sleep(500 * time.Millisecond)
		}
	}
	t.Logf("cluster and buckets ready after %v", time.Since(begin).Round(time.Millisecond))
	victim := leadBoth(t, client)
	errs := make(chan error, 1)
	var workers []*Worker
	for i := range 3 {
		w, err := NewWorker(connect3(t, urls), "w"+strconv.Itoa(i+1), append(opts, WithSlots(2))...)
		if err != nil {
			t.Fatal(err)
		}
		w.Handle("tree", tree3Handler(errs))
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		workers = append(workers, w)
	}
	const roots, depth = 3, 4 // 3 trees of 121 jobs
	var want []string
	for r := range roots {
		id := "r" + strconv.Itoa(r)
		if err := client.Submit(context.Background(), id, "tree", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
			t.Fatal(err)
		}
		want = append(want, tree3IDs(id, depth)...)
	}
	time.Sleep(400 * time.Millisecond)
	if l := leader(client, client.cfg.jobsBucket()); l != victim {
		t.Fatalf("the jobs bucket's leader moved from %s to %s", victim, l)
	}
	servers[victim].cmd.Process.Kill()
	killed := time.Now()
	t.Logf("killed %s (leader of both buckets) %v after the start", victim, time.Since(begin).Round(time.Millisecond))
	waitLedger(t, client, want, errs, 120*time.Second)
	t.Logf("all %d jobs completed %v after the kill", len(want), time.Since(killed).Round(time.Millisecond))
	checkLedger(t, client, want)
	for _, w := range workers {
		t.Logf("%s: %+v", w.Name(), w.Stats())
	}
}

// leader names the server leading a bucket's stream, "" when unknown.
func leader(c *Client, bucket string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.st.js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return ""
	}
	if ci := s.CachedInfo().Cluster; ci != nil {
		return ci.Leader
	}
	return ""
}

// leadBoth moves the workers bucket's leader to the server leading the
// jobs bucket (a stream leader stepdown with a preferred server), so that
// killing that server costs both buckets their leader: writes wait for an
// election, and leases expire during it. It returns that server's name.
func leadBoth(t *testing.T, c *Client) string {
	want := leader(c, c.cfg.jobsBucket())
	if want == "" {
		t.Fatal("the jobs bucket has no leader")
	}
	req := []byte(`{"placement":{"preferred":"` + want + `"}}`)
	subj := "$JS.API.STREAM.LEADER.STEPDOWN.KV_" + c.cfg.workersBucket()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if leader(c, c.cfg.workersBucket()) == want {
			return want
		}
		c.nc.Request(subj, req, 2*time.Second)
		time.Sleep(time.Second)
	}
	t.Fatalf("the workers bucket's leader did not move to %s within 20s", want)
	return ""
}

// waitLedger waits until every id in want has a completion, failing at once
// on a Spawn error.
func waitLedger(t *testing.T, c *Client, want []string, errs <-chan error, limit time.Duration) {
	deadline := time.Now().Add(limit)
	n := 0
	for time.Now().Before(deadline) {
		select {
		case err := <-errs:
			t.Fatal(err)
		case <-time.After(500 * time.Millisecond):
		}
		if keys, err := c.st.keys(context.Background(), "d.>"); err == nil {
			if n = len(keys); n >= len(want) {
				return
			}
		}
	}
	t.Fatalf("%d of %d jobs completed within %v", n, len(want), limit)
}

// checkLedger checks that the ledger holds exactly the jobs in want, none
// failed, and that no record is left.
func checkLedger(t *testing.T, c *Client, want []string) {
	keys, err := c.st.keys(context.Background(), "d.>")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(want) {
		t.Errorf("%d completions recorded, want %d", len(keys), len(want))
	}
	attempts := 0
	for _, id := range want {
		o, err := c.st.done(context.Background(), id)
		switch {
		case err != nil:
			t.Fatalf("read completion of %s: %v", id, err)
		case o == nil:
			t.Errorf("job %s has no completion", id)
		case o.Code != "":
			b, _ := json.Marshal(o)
			t.Errorf("job %s recorded as failed: %s", id, b)
		default:
			attempts += o.Attempt
		}
	}
	t.Logf("%d completions, %d of them after takeovers (sum of attempts)", len(want), attempts)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		q, err := c.st.keys(context.Background(), "q.>")
		if err == nil && len(q) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("records left 10s after every job completed: %v (%v)", q, err)
		}
	}
}
