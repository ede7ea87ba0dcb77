package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/internal/cli"
	"github.com/worksteal/steal/node"
)

const nodeUsage = `usage: stealcluster node < messages
       stealcluster node -nats URL [-creds F] [-cluster C] < messages

Reads one JSON message per line (a value may span lines) and writes one
reply per line, in the protocol of package node. Without -nats, against a
cluster simulated in this process, exactly as the root program's steal node.

With -nats, against the workers of a real cluster on NATS (see
go doc github.com/worksteal/steal/cluster/cmd/stealcluster for what each message
does there).

flags:
`

// runNode is stealcluster node. Without -nats it is the root program's command,
// byte for byte; with it, the protocol against a cluster on NATS.
func runNode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stealcluster node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c connFlags
	c.register(fs, "serve against the cluster on the NATS server at this URL")
	fs.Usage = func() { fmt.Fprint(stderr, nodeUsage); fs.PrintDefaults() }
	if code := cli.Parse(fs, args, stderr); code >= 0 {
		return code
	}
	if c.url == "" && fs.NFlag() > 0 {
		fmt.Fprintln(stderr, "stealcluster node:", withoutNATS(fs))
		return 2
	}
	if c.url == "" {
		return baseNode(args, stdin, stdout, stderr)
	}
	if err := c.check(); err != nil {
		fmt.Fprintln(stderr, "stealcluster node:", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "stealcluster node: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	// No signal handler: as in stealcluster node, SIGINT ends the process. Its
	// hosted workers then stop renewing their leases, and their jobs go to
	// survivors once the leases expire.
	ctx := context.Background()
	nc, err := c.connect(c.url, "stealcluster node")
	if err != nil {
		fmt.Fprintln(stderr, "stealcluster node:", err)
		return 1
	}
	defer nc.Close()
	cl, err := cluster.NewClient(ctx, nc, c.options()...)
	if err != nil {
		fmt.Fprintln(stderr, "stealcluster node:", err)
		return 1
	}
	s := &session{client: cl, hosts: newHosts(nc, c.options()), sim: node.New(), timeout: 10 * time.Second}
	defer s.hosts.close() // before nc closes: hosted workers hand their jobs over
	if err := s.serve(ctx, stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "stealcluster node:", err)
		return 1
	}
	return 0
}

// withoutNATS names the flags given to node without a URL for -nats, all
// of which configure the connection to one.
func withoutNATS(fs *flag.FlagSet) string {
	var given []string
	nats := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "nats" {
			nats = true
		} else {
			given = append(given, "-"+f.Name)
		}
	})
	switch {
	case nats:
		return "-nats needs a URL"
	case len(given) == 1:
		return given[0] + " applies only with -nats"
	}
	return strings.Join(given[:len(given)-1], ", ") + " and " + given[len(given)-1] + " apply only with -nats"
}

// baseNode runs the root program's node command.
func baseNode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	i := slices.IndexFunc(cli.Base(), func(c cli.Command) bool { return c.Name == "node" })
	return cli.Base()[i].Run(args, stdin, stdout, stderr)
}
