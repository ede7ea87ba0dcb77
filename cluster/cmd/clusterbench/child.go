package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal/cluster"
)

// The recovery benchmark re-runs this program as a worker process, so that
// it can be killed with SIGKILL: main sees roleEnv and runs childMain.
// The sweep's worker processes (-procs) are roleSweep (sweepchild.go).
const (
	roleEnv  = "DISTBENCH_ROLE" // "dist", "central" or roleSweep
	urlEnv   = "DISTBENCH_URL"
	nameEnv  = "DISTBENCH_NAME"
	jobEnv   = "DISTBENCH_JOB_MS"
	childCap = time.Minute // a child exits after this whatever happens
)

// childMain runs one worker of one slot until its stdin closes or childCap
// passes. Each job publishes "bench.started" ("<name> <id>") and sleeps
// the job time; the worker publishes "bench.ready.<name>" once it can
// take jobs.
func childMain() int {
	if os.Getenv(roleEnv) == roleSweep {
		return sweepChildMain()
	}
	name := os.Getenv(nameEnv)
	ms, _ := strconv.Atoi(os.Getenv(jobEnv))
	nc, err := nats.Connect(os.Getenv(urlEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	defer nc.Close()
	job := func(id string) {
		nc.Publish("bench.started", []byte(name+" "+id))
		nc.Flush()
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func() {}
	switch os.Getenv(roleEnv) {
	case "dist":
		stop, err = childDist(ctx, nc, name, job)
	default:
		err = childCentral(ctx, nc, job)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	nc.Publish("bench.ready."+name, nil)
	nc.Flush()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(childCap):
	}
	cancel()
	stop()
	return 0
}

func childDist(ctx context.Context, nc *nats.Conn, name string, job func(string)) (func(), error) {
	w, err := cluster.NewWorker(nc, name, cluster.WithCluster(clusterName), cluster.WithSlots(1),
		cluster.WithLease(time.Second), cluster.WithStealMode(cluster.StealOff))
	if err != nil {
		return nil, err
	}
	w.Handle("job", func(_ context.Context, j *cluster.Job) ([]byte, error) {
		job(j.ID)
		return nil, nil
	})
	if err := w.Start(ctx); err != nil {
		return nil, err
	}
	return func() { w.Close() }, nil
}

func childCentral(ctx context.Context, nc *nats.Conn, job func(string)) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	cons, err := js.Consumer(ctx, queueStream, queueConsumer)
	if err != nil {
		return err
	}
	go func() {
		for ctx.Err() == nil {
			fctx, cancel := context.WithTimeout(ctx, fetchWait)
			batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
			if err == nil {
				for m := range batch.Messages() {
					job(string(m.Data()))
					m.Ack()
				}
			}
			cancel()
		}
	}()
	return nil
}

// child is a worker process.
type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
}

// startChild runs this program as a worker process of role on the server
// at url.
func startChild(role, url, name string, job time.Duration) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"="+role, urlEnv+"="+url, nameEnv+"="+name,
		jobEnv+"="+strconv.Itoa(int(job/time.Millisecond)))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd, in: in}, nil
}

// kill sends SIGKILL to the child, by its own pid, and reaps it.
func (c *child) kill() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// stop closes the child's stdin (it closes its worker and exits) and kills
// it if it has not exited within 10 s.
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
