package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
)

// runningCluster is what cluster up and cluster demo run: a server (unless
// -nats), workers in this process or as child processes, and a client.
type runningCluster struct {
	f        *clusterFlags
	srv      *natsserver.Server // nil with -nats
	url      string
	conns    []*nats.Conn
	workers  []*cluster.Worker // in this process
	children []*child          // with -procs
	client   *cluster.Client
	names    []string
}

// startCluster starts everything and prints the URL; on error it stops
// what it started.
func startCluster(ctx context.Context, f *clusterFlags, stdout, stderr io.Writer) (*runningCluster, error) {
	c := &runningCluster{f: f, url: f.conn.url}
	for i := range f.workers {
		c.names = append(c.names, "w"+strconv.Itoa(i+1))
	}
	err := c.start(ctx, stdout, stderr)
	if err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func (c *runningCluster) start(ctx context.Context, stdout, stderr io.Writer) error {
	if c.url == "" {
		if err := c.embed(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "NATS server (embedded, JetStream) at %s\n", c.url)
		if h := c.f.listenHost; c.f.listen != "" && (h == "" || net.ParseIP(h) != nil && net.ParseIP(h).IsUnspecified()) {
			fmt.Fprintln(stdout, "listening on every interface: from other machines, use this machine's address in the URL")
		}
		if c.f.insecure && !natsserver.Loopback(c.f.listenHost) && c.f.conn.user == "" && c.f.tlsClientCA == "" {
			fmt.Fprintf(stderr, "%s: -insecure: the NATS server on %s authenticates no one: any client that reaches it "+
				"can read and submit jobs, forge completions, answer steals and delete records\n", c.f.conn.prog, c.listenAddr())
		}
	} else {
		fmt.Fprintf(stdout, "NATS server at %s\n", shown(c.url))
	}
	nc, err := c.connect("stealcluster cluster client")
	if err != nil {
		return err
	}
	// The client creates the buckets, with the storage asked for, before
	// any worker starts; workers open them as they are.
	opts := append(c.f.conn.options(), cluster.WithStorage(map[string]cluster.Storage{"memory": cluster.MemoryStorage, "file": cluster.FileStorage}[c.f.store]))
	if c.client, err = cluster.NewClient(ctx, nc, opts...); err != nil {
		return err
	}
	if c.f.procs {
		err = c.spawnChildren(ctx, stdout, stderr)
	} else {
		err = c.startWorkers(ctx)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cluster %s: workers %s %s, each running up to %d jobs at once\n",
		c.f.conn.cluster, strings.Join(c.names, " "), where(c.f.procs), c.f.slots)
	fmt.Fprintf(stdout, "join with: stealcluster worker -nats %s -name w%d%s%s\n", shown(c.url), len(c.names)+1,
		clusterArg(c.f.conn.cluster), c.authArgs())
	return nil
}

// listenAddr is -listen with the port the embedded server listens on.
func (c *runningCluster) listenAddr() string {
	port := c.f.listenPort
	if a, ok := c.srv.NATS().Addr().(*net.TCPAddr); ok {
		port = a.Port
	}
	return net.JoinHostPort(c.f.listenHost, strconv.Itoa(port))
}

// authArgs are the flags a joining worker adds to authenticate; the
// password itself is never printed.
func (c *runningCluster) authArgs() string {
	s := ""
	if c.f.conn.user != "" {
		s += " -user " + c.f.conn.user + " (password in $" + passwordEnv + ")"
	}
	if c.f.tlsCert != "" {
		s += " -tlsca <CA of " + c.f.tlsCert + ">"
	}
	if c.f.tlsClientCA != "" {
		s += " -tlsclientcert <certificate signed by " + c.f.tlsClientCA + "> -tlsclientkey <its key>"
	}
	return s
}

func where(procs bool) string {
	if procs {
		return "as child processes"
	}
	return "in this process"
}

func clusterArg(name string) string {
	if name == "default" {
		return ""
	}
	return " -cluster " + name
}

func (c *runningCluster) embed() error {
	var opts []natsserver.Option
	if c.f.listen != "" {
		if err := canListen(c.f.listenHost, c.f.listenPort); err != nil {
			return fmt.Errorf("-listen %s: %v", c.f.listen, err)
		}
		opts = append(opts, natsserver.Listen(c.f.listenHost, c.f.listenPort))
	}
	if c.f.dir != "" {
		if err := usableDir(c.f.dir); err != nil {
			return fmt.Errorf("-dir %s: %v", c.f.dir, err)
		}
		opts = append(opts, natsserver.StoreDir(c.f.dir))
	}
	if c.f.conn.user != "" {
		opts = append(opts, natsserver.UserPassword(c.f.conn.user, c.f.conn.password))
	}
	if c.f.tlsCert != "" {
		opts = append(opts, natsserver.TLS(c.f.tlsCert, c.f.tlsKey, c.f.tlsClientCA))
	}
	if c.f.insecure {
		opts = append(opts, natsserver.Insecure()) // check refused it otherwise, naming the flags
	}
	srv, err := natsserver.Start(opts...)
	if err != nil {
		return err
	}
	c.srv, c.url = srv, srv.URL()
	return nil
}

// canListen checks that the server can listen on host and port (-1: a
// random one) by listening there a moment. Like usableDir, it names the
// problem (an address in use or not of this machine) where the server,
// its log off, would only fail to become ready for 10 s.
func canListen(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(max(port, 0))))
	if err != nil {
		return err
	}
	return l.Close()
}

// usableDir makes dir if need be and checks that files can be made in
// it. The embedded server, its log off, would only fail to become ready
// for 10 s, without saying why.
func usableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".steal-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// connect opens a connection: in-process to the embedded server, else to
// the URL.
func (c *runningCluster) connect(name string) (*nats.Conn, error) {
	var nc *nats.Conn
	var err error
	if c.srv != nil {
		nc, err = c.srv.Connect(nats.Name(name))
	} else {
		nc, err = c.f.conn.connect(c.url, name)
	}
	if err == nil {
		c.conns = append(c.conns, nc)
	}
	return nc, err
}

func (c *runningCluster) startWorkers(ctx context.Context) error {
	for _, name := range c.names {
		nc, err := c.connect("stealcluster worker " + name)
		if err != nil {
			return err
		}
		w, err := startWorker(ctx, nc, name, c.f.slots, &c.f.conn)
		if err != nil {
			return fmt.Errorf("worker %s: %v", name, err)
		}
		c.workers = append(c.workers, w)
	}
	return nil
}

// spawnChildren runs each worker as stealcluster worker in a child process and
// waits until all of them answer.
func (c *runningCluster) spawnChildren(ctx context.Context, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := c.namesFree(ctx); err != nil {
		return err
	}
	urls, auth, err := childAuth(c.url, &c.f.conn)
	if err != nil {
		return err
	}
	env := slices.Concat(os.Environ(), auth.env)
	if os.Getenv("GOMAXPROCS") == "" { // else the user's choice, which the children inherit
		p := runtime.GOMAXPROCS(0)
		share := procsShare(p, len(c.names))
		env = append(env, "GOMAXPROCS="+strconv.Itoa(share))
		fmt.Fprintf(stdout, "worker processes: GOMAXPROCS=%d each (%d CPUs shared by %d workers; set GOMAXPROCS to choose)\n",
			share, p, len(c.names))
	}
	for _, name := range c.names {
		args := []string{"worker", "-nats", urls, "-name", name, "-slots", strconv.Itoa(c.f.slots),
			"-cluster", c.f.conn.cluster, "-replicas", strconv.Itoa(c.f.conn.replicas), "-lease", c.f.conn.lease.String(),
			"-spawn-records=" + strconv.FormatBool(c.f.conn.spawnRecords)}
		if c.f.conn.creds != "" {
			args = append(args, "-creds", c.f.conn.creds)
		}
		if auth.user != "" {
			args = append(args, "-user", auth.user)
		}
		if c.f.conn.tlsCA != "" {
			args = append(args, "-tlsca", c.f.conn.tlsCA)
		}
		if c.f.conn.tlsCert != "" {
			args = append(args, "-tlsclientcert", c.f.conn.tlsCert, "-tlsclientkey", c.f.conn.tlsKey)
		}
		cmd := exec.Command(exe, args...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.SysProcAttr = childAttr()
		ch, err := startChild(cmd, name)
		if err != nil {
			return err
		}
		c.children = append(c.children, ch)
		fmt.Fprintf(stdout, "worker %s: process %d\n", name, cmd.Process.Pid)
	}
	return c.awaitWorkers(ctx, 20*time.Second)
}

// awaitWorkers polls until every worker named in c.names answers.
func (c *runningCluster) awaitWorkers(ctx context.Context, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		states, _ := c.client.Workers(ctx)
		seen := map[string]bool{}
		for _, s := range states {
			seen[s.Name] = true
		}
		missing := ""
		for _, n := range c.names {
			if !seen[n] {
				missing = n
				break
			}
		}
		if missing == "" {
			return nil
		}
		for _, ch := range c.children {
			if ch.exited() {
				return fmt.Errorf("worker %s (process %d) exited: %v", ch.name, ch.cmd.Process.Pid, ch.err)
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) { // SIGINT or SIGTERM, not the limit
				return fmt.Errorf("interrupted before worker %s joined", missing)
			}
			return fmt.Errorf("worker %s did not join within %v", missing, limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop closes the workers, stops the child processes (SIGTERM, then
// SIGKILL after 10 s), closes the connections and shuts the server down.
//
// Workers and children stop together: without a server each close
// waits for its requests to time out (seconds), and one after the other
// that made minutes of a few dozen workers.
func (c *runningCluster) stop() error {
	errs := make([]error, len(c.workers)+len(c.children))
	var wg sync.WaitGroup
	for i, w := range c.workers {
		wg.Go(func() {
			if err := w.Close(); err != nil {
				errs[i] = fmt.Errorf("worker %s: %w", w.Name(), err)
			}
		})
	}
	for i, ch := range c.children {
		wg.Go(func() { errs[len(c.workers)+i] = ch.stop(10 * time.Second) })
	}
	wg.Wait()
	for _, nc := range c.conns {
		nc.Close()
	}
	if c.srv != nil {
		c.srv.Shutdown()
	}
	return errors.Join(errs...)
}

// namesFree fails if a live worker of the cluster has one of the names:
// a worker process of that name would exit at once, and the live one,
// another process's, would pass for it.
func (c *runningCluster) namesFree(ctx context.Context) error {
	states, err := c.client.Workers(ctx)
	if err != nil {
		return err
	}
	for _, st := range states {
		if slices.Contains(c.names, st.Name) {
			return fmt.Errorf("worker %s is already on the cluster: -procs starts w1 to w%d", st.Name, len(c.names))
		}
	}
	return nil
}

// child is a worker process, waited for from its start so that
// awaitWorkers sees it exit.
type child struct {
	cmd  *exec.Cmd
	name string
	done chan struct{} // closed once it exited, err set
	err  error
}

// procsShare is the GOMAXPROCS of each of n worker processes on a machine
// with p CPUs (this process's GOMAXPROCS): the CPUs shared among them,
// rounded up, at least 1. A Go process otherwise runs as many threads as
// the machine has CPUs, and n such processes time-slice the CPUs against
// each other: every hand-off between goroutines then wakes a thread of
// its own (docs/cluster.md has the measurements).
func procsShare(p, n int) int {
	return max(1, (p+max(n, 1)-1)/max(n, 1))
}

func startChild(cmd *exec.Cmd, name string) (*child, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ch := &child{cmd: cmd, name: name, done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	return ch, nil
}

func (ch *child) exited() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

// stop asks the child to stop and waits for it, killing it after limit.
func (ch *child) stop(limit time.Duration) error {
	ch.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ch.done:
	case <-time.After(limit):
		ch.cmd.Process.Kill()
		<-ch.done
		return fmt.Errorf("worker process %d did not stop within %v: killed", ch.cmd.Process.Pid, limit)
	}
	if ch.err != nil {
		return fmt.Errorf("worker process %d: %v", ch.cmd.Process.Pid, ch.err)
	}
	return nil
}

// childCreds are the credentials of the worker processes: -user on
// their command lines, the password or token in their environment.
type childCreds struct {
	user string
	env  []string // NAME=value
}

// childAuth takes the credentials out of urls (-nats: one URL or
// several, comma-separated) for the worker processes: a password or
// token on a command line shows in ps to every user of the machine.
// It returns the URLs without them and the credentials to pass instead:
// those of the URLs, else -user's. It fails when the URLs carry
// different credentials, or other ones than -user: one -user and one
// password would not log in to every server the way this process does.
func childAuth(urls string, c *connFlags) (string, childCreds, error) {
	var found *url.Userinfo
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		u, err := natsURL(p)
		if err != nil || u.User == nil {
			continue
		}
		if found != nil && found.String() != u.User.String() {
			return "", childCreds{}, errors.New("-procs: the URLs of -nats carry different credentials: " +
				"the worker processes get one user; give it with -user (password in $" + passwordEnv + ")")
		}
		found = u.User
		u.User = nil
		parts[i] = u.String()
	}
	switch {
	case found == nil && c.user == "":
		return urls, childCreds{}, nil
	case found == nil:
		return urls, childCreds{user: c.user, env: []string{passwordEnv + "=" + c.password}}, nil
	}
	pass, hasPass := found.Password()
	if c.user != "" && (!hasPass || c.user != found.Username() || c.password != pass) {
		return "", childCreds{}, errors.New("-procs: -nats carries credentials other than -user's: give them one way")
	}
	if !hasPass { // a token
		return strings.Join(parts, ","), childCreds{env: []string{tokenEnv + "=" + found.Username()}}, nil
	}
	return strings.Join(parts, ","), childCreds{user: found.Username(), env: []string{passwordEnv + "=" + pass}}, nil
}
