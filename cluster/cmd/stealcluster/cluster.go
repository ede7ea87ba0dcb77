package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/worksteal/steal"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
	"github.com/worksteal/steal/internal/cli"
)

const clusterUsage = `usage: stealcluster cluster up   [flags]   NATS and workers, until SIGINT or SIGTERM
       stealcluster cluster demo [flags]   the same with a skewed workload; exits 0 once it is done

Starts a NATS server with JetStream inside this process, on loopback at a
random port (or -listen), and -workers workers named w1, w2, ... in this
process (or, with -procs, as child processes running stealcluster worker). It
prints the server's URL: other processes and machines join with
stealcluster worker -nats URL -name w5. With -nats it uses that server instead.

Security: any client that can connect to the server can do what a worker
does: read every job, forge completions, answer steals in a worker's place,
delete records. The NATS account is the trust boundary. On loopback, that
is every user of this machine. -listen on any other address is refused
unless clients must authenticate: -user with -password (or
$STEAL_NATS_PASSWORD), or TLS with client certificates (-tlscert, -tlskey,
-tlsclientca); -insecure runs it open anyway, and says so on stderr.

cluster up prints a status line every -every: the live workers (those that
joined or left since the last line), the jobs they completed and stole, and
each queue.

cluster demo submits every root job to w1; each root spawns a tree of jobs
that sleep a little, as jobs waiting on I/O would. The other workers get
work only by stealing. It prints progress lines (jobs done, jobs stolen,
each worker's queue), then a summary once the cluster is idle.
`

// clusterFlags are the flags of cluster up and cluster demo.
type clusterFlags struct {
	conn               connFlags
	workers, slots     int
	procs              bool
	store, dir, listen string
	listenHost         string
	listenPort         int
	tlsCert, tlsKey    string // the embedded server's certificate
	tlsClientCA        string // CAs of the client certificates it requires
	insecure           bool
	demo               demoFlags
	isDemo             bool
	every              time.Duration // cluster up's status interval
}

func (f *clusterFlags) register(fs *flag.FlagSet) {
	f.conn.register(fs, "use the NATS server at this URL instead of starting one")
	f.conn.registerSpawn(fs)
	fs.IntVar(&f.workers, "workers", 4, "workers to start")
	fs.IntVar(&f.slots, "slots", runtime.GOMAXPROCS(0), "jobs each worker runs at once: a pool worker each, about 8 KB\n"+
		"(-workers 64 -slots 4096 in this process hold about 2 GB)")
	fs.BoolVar(&f.procs, "procs", false, "run each worker as a child process (stealcluster worker), each with GOMAXPROCS its share of the CPUs\n(unless GOMAXPROCS is set); they are stopped on exit")
	fs.StringVar(&f.store, "store", "memory", "where the cluster's buckets keep jobs: memory or file,\n"+
		"if this process creates the cluster: one that exists keeps its own")
	fs.StringVar(&f.dir, "dir", "", "the embedded server's JetStream directory, kept after exit (default: a temporary one, removed)")
	fs.StringVar(&f.listen, "listen", "", "the embedded server's host:port, port 0 for a random one (default 127.0.0.1:0);\n"+
		"0.0.0.0:4222 lets other machines join: refused without -user, client-certificate TLS or -insecure")
	fs.StringVar(&f.tlsCert, "tlscert", "", "the embedded server's TLS certificate (PEM): clients must use TLS")
	fs.StringVar(&f.tlsKey, "tlskey", "", "the key of -tlscert (PEM)")
	fs.StringVar(&f.tlsClientCA, "tlsclientca", "", "with -tlscert, require client certificates signed by these CAs (PEM)")
	fs.BoolVar(&f.insecure, "insecure", false, "allow -listen beyond loopback with no authentication: every client\n"+
		"that reaches the port can read and submit jobs, forge completions and delete records")
	if f.isDemo {
		f.demo.register(fs)
	} else {
		fs.DurationVar(&f.every, "every", 5*time.Second, "status line interval: workers joined and left, jobs done, steals, queues")
	}
}

// check validates the flags; the error names the bad one.
func (f *clusterFlags) check(fs *flag.FlagSet) error {
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case givenEmpty(fs, "nats"):
		return fmt.Errorf("-nats needs a URL")
	case f.workers < 1 || f.workers > 64:
		return fmt.Errorf("-workers must be 1 to 64, not %d", f.workers)
	case f.slots < 1 || f.slots > steal.MaxWorkers:
		return fmt.Errorf("-slots must be 1 to %d, not %d", steal.MaxWorkers, f.slots)
	case f.store != "memory" && f.store != "file":
		return fmt.Errorf("-store must be memory or file, not %q", f.store)
	case f.conn.url != "" && (f.dir != "" || f.listen != ""):
		return fmt.Errorf("-dir and -listen configure the embedded server; with -nats there is none")
	case f.conn.url == "" && f.conn.creds != "":
		return fmt.Errorf("-creds applies with -nats: the embedded server has no accounts")
	case f.conn.url == "" && f.conn.tlsCA != "":
		// Workers in this process connect in-process, without TLS; those
		// of -procs would ask TLS of a server that has none (-procs with
		// -tlscert is refused below).
		return fmt.Errorf("-tlsca applies with -nats: the embedded server's own certificate is -tlscert")
	case f.conn.url == "" && (f.conn.tlsCert != "" || f.conn.tlsKey != ""):
		// The workers in this process connect in-process, without TLS.
		return fmt.Errorf("-tlsclientcert and -tlsclientkey apply with -nats: the embedded server's own certificate is -tlscert")
	case f.conn.url != "" && (f.tlsCert != "" || f.tlsKey != "" || f.tlsClientCA != "" || f.insecure):
		return fmt.Errorf("-tlscert, -tlskey, -tlsclientca and -insecure configure the embedded server; with -nats there is none")
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return fmt.Errorf("-tlscert and -tlskey go together")
	case f.tlsClientCA != "" && f.tlsCert == "":
		return fmt.Errorf("-tlsclientca needs -tlscert and -tlskey")
	case f.tlsCert != "" && f.procs:
		return fmt.Errorf("-procs with -tlscert is not supported: start the workers with stealcluster worker -tlsca")
	}
	if f.listen != "" {
		host, port, err := net.SplitHostPort(f.listen)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil || p < 0 || p > 65535 {
			return fmt.Errorf("-listen must be host:port, not %q", f.listen)
		}
		if p == 0 {
			p = -1 // a random free port; NATS reads 0 as its default, 4222
		}
		f.listenHost, f.listenPort = host, p
	}
	if err := f.conn.check(); err != nil {
		return err
	}
	if f.conn.url == "" && f.listen != "" && !natsserver.Loopback(f.listenHost) && !f.insecure &&
		f.conn.user == "" && f.tlsClientCA == "" {
		return fmt.Errorf("-listen %s exposes the cluster beyond this machine, and any client of the server "+
			"can read jobs, forge completions and delete records: give -user with -password (or $%s), "+
			"or -tlscert, -tlskey and -tlsclientca, or -insecure to run it open", f.listen, passwordEnv)
	}
	if f.isDemo {
		if err := f.demo.check(); err != nil {
			return err
		}
	} else if f.every < 10*time.Millisecond {
		return fmt.Errorf("-every must be at least 10ms, not %v", f.every)
	}
	return nil
}

// runCluster is stealcluster cluster: up or demo.
func runCluster(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "up" && args[0] != "demo") {
		fmt.Fprint(stderr, clusterUsage, "\nstealcluster cluster up -h and stealcluster cluster demo -h list the flags.\n")
		if len(args) > 0 && cli.IsHelp(args[0]) {
			return 0 // the usage, as asked
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "\nstealcluster cluster: unknown subcommand %q: up or demo\n", args[0])
		}
		return 2
	}
	f := clusterFlags{isDemo: args[0] == "demo"}
	fs := flag.NewFlagSet("stealcluster cluster "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Usage = func() { fmt.Fprint(stderr, clusterUsage, "\nflags:\n"); fs.PrintDefaults() }
	if code := cli.Parse(fs, args[1:], stderr); code >= 0 {
		return code
	}
	if err := f.check(fs); err != nil {
		fmt.Fprintf(stderr, "stealcluster cluster %s: %v\n", args[0], err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var out *cli.Output
	if f.isDemo {
		// The demo's output is what it is run for: output that could not
		// be written fails it, as it fails steal demo. cluster up's
		// status lines are a log, and the cluster serves on without them.
		out = cli.NewOutput(stdout)
		stdout = out
	}
	c, err := startCluster(ctx, &f, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "stealcluster cluster %s: %v\n", args[0], err)
		return 1
	}
	code := 0
	if f.isDemo {
		code = runDemo(ctx, c, &f.demo, stdout, stderr)
	} else {
		report(ctx, c.client, f.every, stdout)
		fmt.Fprintln(stdout, "stopping")
	}
	if err := c.stop(); err != nil {
		stopReport(stdout, stderr, args[0], err)
		return max(code, 1)
	}
	fmt.Fprintln(stdout, "cluster stopped")
	if out != nil && out.Err() != nil {
		fmt.Fprintf(stderr, "stealcluster cluster %s: writing the output: %v\n", args[0], out.Err())
		return max(code, 1)
	}
	return code
}

// stopReport prints each error of runningCluster.stop on a line of its
// own, and a last line that says how many workers did not hand their
// jobs over: "cluster stopped" alone would read as all well.
func stopReport(stdout, stderr io.Writer, sub string, err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	kept := 0
	for _, e := range errs {
		if errors.Is(e, cluster.ErrNotHandedOver) {
			kept++
		}
		fmt.Fprintf(stderr, "stealcluster cluster %s: stopping: %v\n", sub, e)
	}
	if kept == 0 {
		fmt.Fprintln(stdout, "cluster stopped, with errors")
		return
	}
	fmt.Fprintf(stderr, "stealcluster cluster %s: no server answered: another worker takes the jobs not handed over "+
		"once their workers' leases expire, if a server that holds them comes back\n", sub)
	fmt.Fprintf(stdout, "cluster stopped; jobs of %d workers not handed over\n", kept)
}
