package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/internal/cli"
)

const workerUsage = `usage: stealcluster worker -nats URL -name W [-creds F] [-slots N] [-cluster C]

Joins the cluster at URL as worker W and runs its jobs (the tree and sleep
types: see go doc github.com/worksteal/steal/cluster/cmd/stealcluster) until SIGINT or
SIGTERM, then closes: its queued jobs go to another worker at once. It exits
1 if no server took its lease back then (its jobs were not handed over), and
if it stops serving on its own: another process registered the name W while
this one was paused or cut off past its lease, or no server renewed its
lease for -server-loss-limit.

flags:
`

// runWorker is stealcluster worker.
func runWorker(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stealcluster worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c connFlags
	c.register(fs, "NATS server URL, e.g. the one stealcluster cluster up prints (required)")
	c.registerSpawn(fs)
	name := fs.String("name", "", "worker name: 1 to 64 of A-Z a-z 0-9 _ - (required)")
	slots := fs.Int("slots", runtime.GOMAXPROCS(0), "jobs run at once")
	loss := fs.Duration("server-loss-limit", time.Minute, "stop, exiting 1, when no server renewed the lease for this long (at least 2s)")
	fs.Usage = func() { fmt.Fprint(stderr, workerUsage); fs.PrintDefaults() }
	if code := cli.Parse(fs, args, stderr); code >= 0 {
		return code
	}
	if err := workerArgs(fs, &c, *name, *slots); err != nil {
		fmt.Fprintln(stderr, "stealcluster worker:", err)
		return 2
	}
	if *loss < 2*time.Second {
		fmt.Fprintf(stderr, "stealcluster worker: -server-loss-limit must be at least 2s, not %v\n", *loss)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	nc, err := c.connect(c.url, "stealcluster worker "+*name)
	if err != nil {
		fmt.Fprintln(stderr, "stealcluster worker:", err)
		return 1
	}
	defer nc.Close()
	w, err := startWorker(ctx, nc, *name, *slots, &c, cluster.WithServerLossLimit(*loss))
	if err != nil {
		fmt.Fprintf(stderr, "stealcluster worker: %s: %v\n", *name, err)
		return 1
	}
	fmt.Fprintf(stdout, "worker %s joined cluster %s at %s\n", *name, c.cluster, shown(c.url))
	select {
	case <-ctx.Done():
	case <-w.Done():
	}
	gone := w.Err() // it stopped serving on its own
	err = w.Close()
	s := w.Stats()
	fmt.Fprintf(stdout, "worker %s stopped: completed %d jobs, stole %d, gave %d\n", *name, s.Completed, s.Stolen, s.Given)
	switch {
	case gone != nil:
		fmt.Fprintf(stderr, "stealcluster worker: %s stopped serving: %v\n", *name, gone)
		return 1
	case errors.Is(err, cluster.ErrNotHandedOver):
		fmt.Fprintf(stderr, "stealcluster worker: %s could not hand its jobs over: no server answered; "+
			"another worker takes them once its lease expires, if a server that holds them comes back (%v)\n", *name, err)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "stealcluster worker:", err)
		return 1
	}
	return 0
}

func workerArgs(fs *flag.FlagSet, c *connFlags, name string, slots int) error {
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case givenEmpty(fs, "nats"):
		return fmt.Errorf("-nats needs a URL")
	case c.url == "":
		return fmt.Errorf("-nats URL is required (stealcluster cluster up prints it)")
	case name == "":
		return fmt.Errorf("-name is required")
	case slots < 1 || slots > steal.MaxWorkers:
		return fmt.Errorf("-slots must be 1 to %d, not %d", steal.MaxWorkers, slots)
	}
	if err := checkName("-name", name); err != nil {
		return err
	}
	return c.check()
}

// startWorker makes, registers and starts one worker on nc.
func startWorker(ctx context.Context, nc *nats.Conn, name string, slots int, c *connFlags, extra ...cluster.Option) (*cluster.Worker, error) {
	w, err := cluster.NewWorker(nc, name, append(append(c.options(), cluster.WithSlots(slots)), extra...)...)
	if err != nil {
		return nil, err
	}
	register(w)
	if err := w.Start(ctx); err != nil {
		return nil, err
	}
	return w, nil
}
