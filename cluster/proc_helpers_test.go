package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// The process tests re-run the test binary as a worker: TestMain sees
// roleEnv and runs childWorker instead of the tests.
const (
	roleEnv = "STEAL_TEST_ROLE"
	urlEnv  = "STEAL_TEST_URL"
	nameEnv = "STEAL_TEST_NAME"
	// memEnv=1 runs the child worker with WithSpawnRecords(false): the
	// jobs its handlers spawn live in memory and are lent, not moved.
	memEnv   = "STEAL_TEST_MEM"
	childCap = 60 * time.Second // a child exits after this whatever happens
)

// childWorker runs one worker until its stdin closes (the parent is done
// or dead) or childCap passes. Its handler "sleep" publishes
// "test.started" ("<worker> <id>") and sleeps the payload's milliseconds,
// or, for the payload "hold", holds a job's first run (attempt 0) until
// "test.release.<id>" comes (see holdRun) and returns at once from a
// later one; "tree" spawns a tree of jobs (see treeHandler); it
// reconnects without limit, quickly (fault tests restart the server and
// reset connections); it answers "test.stats.<name>" with its WorkerStats.
// "fan" spawns the payload's number of "sleep" jobs <id>-0, <id>-1, ...
// with the payload "hold" and returns. With memEnv=1 the worker keeps
// spawned jobs in memory, and each run of "tree" is reported on
// "test.ran" (see reportRun).
func childWorker() int {
	name := os.Getenv(nameEnv)
	nc, err := nats.Connect(os.Getenv(urlEnv), nats.ReconnectWait(100*time.Millisecond), nats.MaxReconnects(-1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	defer nc.Close()
	mem := os.Getenv(memEnv) == "1"
	w, err := NewWorker(nc, name, WithLease(time.Second), WithSlots(1), WithSpawnRecords(!mem))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	w.Handle("sleep", func(ctx context.Context, j *Job) ([]byte, error) {
		if string(j.Payload) == "hold" {
			holdRun(ctx, nc, name, j)
			return []byte(name), nil
		}
		nc.Publish("test.started", []byte(name+" "+j.ID))
		nc.Flush()
		ms, _ := strconv.Atoi(string(j.Payload))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return []byte(name), nil
	})
	w.Handle("fan", func(ctx context.Context, j *Job) ([]byte, error) {
		n, _ := strconv.Atoi(string(j.Payload))
		for i := range n {
			if err := j.SpawnID(ctx, j.ID+"-"+strconv.Itoa(i), "sleep", []byte("hold")); err != nil {
				return nil, err
			}
		}
		return []byte(name), nil
	})
	tree := treeHandler(name)
	if mem {
		tree = reportRun(nc, name, tree)
	}
	w.Handle("tree", tree)
	nc.Subscribe("test.stats."+name, func(m *nats.Msg) {
		b, _ := json.Marshal(w.Stats())
		m.Respond(b)
	})
	if err := w.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "child start:", err)
		return 2
	}
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(childCap):
	}
	w.Close()
	return 0
}

// reportRun wraps h: each run first publishes "test.ran" ("<worker> <id>")
// and waits until the server has it (a flush), publishing again after a
// failed flush (a reset or a blackholed connection), for up to 10 s. A job
// in memory has no completion of its own: this is how a test learns that
// it ran. The report precedes the run's end, so a root's completion comes
// after the reports of every run its subtree counted.
func reportRun(nc *nats.Conn, name string, h Handler) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && ctx.Err() == nil; {
			nc.Publish("test.ran", []byte(name+" "+j.ID))
			if nc.FlushTimeout(time.Second) == nil {
				break
			}
		}
		return h(ctx, j)
	}
}

// holdRun is the "sleep" handler for the payload "hold". It publishes
// "test.started" like any run; the first run of a job (attempt 0) then
// waits until "test.release.<id>" comes, the worker closes or childCap
// passes, and a later run (after a takeover) returns at once. A test that
// kills or pauses the worker in the middle of the job holds it this way:
// a job of a fixed length could end before a loaded machine had delivered
// the kill. It subscribes before it says it started, so a release sent
// after that reaches it.
func holdRun(ctx context.Context, nc *nats.Conn, name string, j *Job) {
	release := make(chan struct{}, 1)
	if j.Attempt == 0 {
		sub, err := nc.Subscribe("test.release."+j.ID, func(*nats.Msg) {
			select {
			case release <- struct{}{}:
			default:
			}
		})
		if err == nil {
			defer sub.Unsubscribe()
		}
	}
	nc.Publish("test.started", []byte(name+" "+j.ID))
	nc.Flush()
	if j.Attempt == 0 {
		select {
		case <-release:
		case <-ctx.Done():
		case <-time.After(childCap):
		}
	}
}

// child is a worker process.
type child struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
}

// startChild runs a worker process; the test's cleanup ends it.
func startChild(t *testing.T, url, name string, env ...string) *child {
	t.Helper()
	return startRole(t, name, append([]string{roleEnv + "=worker", urlEnv + "=" + url, nameEnv + "=" + name}, env...)...)
}

// startRole runs the test binary again as a child process with env added
// (its role and settings); the test's cleanup ends it.
func startRole(t *testing.T, name string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{name: name, cmd: cmd, in: in}
	t.Cleanup(c.stop)
	return c
}

// stop closes the child's stdin (it closes its worker and exits) and
// kills it, by its own pid, if it has not exited within 10 s.
func (c *child) stop() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// starts records "test.started" messages: which worker started which job.
type starts struct {
	mu  sync.Mutex
	by  map[string][]string // id -> workers, in order
	ch  chan [2]string
	sub *nats.Subscription
}

func watchStarts(t *testing.T, nc *nats.Conn) *starts {
	s := &starts{by: map[string][]string{}, ch: make(chan [2]string, 4096)}
	sub, err := nc.Subscribe("test.started", func(m *nats.Msg) {
		var w, id string
		fmt.Sscan(string(m.Data), &w, &id)
		s.mu.Lock()
		s.by[id] = append(s.by[id], w)
		s.mu.Unlock()
		select {
		case s.ch <- [2]string{w, id}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	nc.Flush()
	s.sub = sub
	t.Cleanup(func() { sub.Unsubscribe() })
	return s
}

func (s *starts) of(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.by[id]...)
}

// next waits (at most 20 s) for worker to start a job, and returns its id.
func (s *starts) next(t *testing.T, worker string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case st := <-s.ch:
			if st[0] == worker {
				return st[1]
			}
		case <-deadline:
			t.Fatalf("%s started no job within 20s", worker)
		}
	}
}

// stats asks a child worker for its counters.
func childStats(nc *nats.Conn, name string) (WorkerStats, error) {
	var st WorkerStats
	m, err := nc.Request("test.stats."+name, nil, time.Second)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(m.Data, &st)
}
