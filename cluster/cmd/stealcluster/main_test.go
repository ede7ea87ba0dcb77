package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/internal/cli"
	"go.uber.org/goleak"
)

// asProgram makes the test binary, started again with this variable set,
// run as the steal program: the process tests start it as cluster up and
// as worker, and cluster up -procs starts its workers the same way.
const asProgram = "STEAL_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// runWith runs the program in this process on the given input.
func runWith(stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Run(args, stdin, &out, &errb, commands()...)
	return code, out.String(), errb.String()
}

func TestUsageAndBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"cluster"}, 2, "stealcluster cluster up"},
		{[]string{"cluster", "down"}, 2, `stealcluster cluster: unknown subcommand "down"`},
		{[]string{"cluster"}, 2, "stealcluster cluster up -h and stealcluster cluster demo -h list the flags"},
		// -h asks for the usage: exit 0, as the root program's commands.
		{[]string{"cluster", "-h"}, 0, "stealcluster cluster up -h and stealcluster cluster demo -h list the flags"},
		{[]string{"cluster", "demo", "--help"}, 0, "flags:"},
		{[]string{"node", "--help"}, 0, "exactly as the root program's steal node"},
		// A stray word is refused, as by the root program's commands.
		{[]string{"worker", "-nats", "nats://x", "-name", "w1", "extra"}, 2, `unexpected argument "extra"`},
		// Names are checked before connecting: an unreachable server or
		// a started one must not hide a bad name.
		{[]string{"worker", "-nats", "nats://127.0.0.1:1", "-name", "a b"}, 2, `-name must be 1 to 64 of A-Z a-z 0-9 _ -, not "a b"`},
		{[]string{"worker", "-nats", "nats://127.0.0.1:1", "-name", "w1", "-cluster", ""}, 2, `-cluster must be 1 to 64 of A-Z a-z 0-9 _ -, not ""`},
		{[]string{"cluster", "up", "-cluster", "a.b", "-every", "1ms"}, 2, `-cluster must be 1 to 64 of A-Z a-z 0-9 _ -, not "a.b"`},
		{[]string{"cluster", "up", "-workers", "0"}, 2, "-workers must be 1 to 64"},
		{[]string{"cluster", "up", "-slots", "4097"}, 2, "-slots must be 1 to 4096"},
		{[]string{"worker", "-nats", "nats://x", "-name", "w1", "-slots", "1099511627776"}, 2, "-slots must be 1 to 4096"},
		{[]string{"cluster", "up", "-store", "tape"}, 2, "-store must be memory or file"},
		{[]string{"cluster", "up", "-nats", "nats://x", "-listen", "127.0.0.1:1"}, 2, "with -nats there is none"},
		{[]string{"cluster", "up", "-listen", "nowhere"}, 2, "-listen must be host:port"},
		{[]string{"cluster", "up", "-listen", "0.0.0.0:0"}, 2, "-listen 0.0.0.0:0 exposes the cluster beyond this machine"},
		{[]string{"cluster", "up", "-listen", ":4222"}, 2, "-listen :4222 exposes the cluster beyond this machine"},
		{[]string{"cluster", "up", "-listen", "0.0.0.0:0", "-tlscert", "c.pem", "-tlskey", "k.pem"}, 2, "exposes the cluster"},
		{[]string{"cluster", "up", "-tlscert", "c.pem"}, 2, "-tlscert and -tlskey go together"},
		{[]string{"cluster", "up", "-user", "u", "-password", ""}, 2, "-user needs a password"},
		{[]string{"cluster", "up", "-nats", "nats://x", "-insecure"}, 2, "with -nats there is none"},
		// Ignored by the workers in this process; -procs workers tried TLS
		// on a server without it, and cluster up waited 20 s for them.
		{[]string{"cluster", "up", "-tlsca", "ca.pem", "-every", "1ms"}, 2, "-tlsca applies with -nats"},
		{[]string{"cluster", "up", "-tlsclientcert", "c.pem", "-tlsclientkey", "k.pem", "-every", "1ms"}, 2, "-tlsclientcert and -tlsclientkey apply with -nats"},
		{[]string{"worker", "-nats", "nats://x", "-name", "w1", "-tlsclientcert", "c.pem"}, 2, "-tlsclientcert and -tlsclientkey go together"},
		{[]string{"cluster", "demo", "-depth", "9", "-fanout", "10"}, 2, "more than 100000 jobs"},
		// Jobs sleep whole milliseconds: 500µs ran jobs of 0 ms, the
		// header saying 500µs.
		{[]string{"cluster", "demo", "-sleep", "500us"}, 2, "-sleep must be whole milliseconds, not 500µs"},
		{[]string{"cluster", "demo", "-every", "1ns", "-roots", "1", "-depth", "0"}, 2, "-every must be at least 10ms, not 1ns"},
		{[]string{"worker", "-name", "w1"}, 2, "-nats URL is required"},
		{[]string{"worker", "-nats", "nats://x"}, 2, "-name is required"},
		{[]string{"node", "-cluster", "x"}, 2, "-cluster applies only with -nats"},
		{[]string{"node", "-tlsca", "ca.pem", "-user", "u"}, 2, "-tlsca and -user apply only with -nats"},
		{[]string{"node", "-nats", ""}, 2, "-nats needs a URL"},
		{[]string{"node", "-h"}, 0, "exactly as the root program's steal node"},
		// A cluster's buckets keep the lease and storage they were made
		// with: worker -lease 30s on a cluster of 3 s leases has 3 s.
		{[]string{"worker", "-h"}, 0, "if this process creates the cluster: one that exists keeps its own"},
		{[]string{"cluster", "up", "-h"}, 0, "memory or file,\n    \tif this process creates the cluster: one that exists keeps its own"},
		{[]string{"node", "-nats", "nats://x", "-lease", "1ms"}, 2, "-lease must be 1s to 1h0m0s, not 1ms"},
		// A lease this long overflowed a worker's read interval: a panic.
		{[]string{"cluster", "up", "-lease", "2562047h"}, 2, "-lease must be 1s to 1h0m0s, not 2562047h"},
		{[]string{"worker", "-nats", "nats://x", "-name", "w1", "-lease", "100h"}, 2, "-lease must be 1s to 1h0m0s"},
	} {
		code, _, errs := runWith(nil, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.err)
		}
	}
	code, out, _ := runWith(nil, "help")
	for _, want := range []string{"demo", "sim", "cluster up", "join a cluster on NATS", "with --nats URL"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
}

// Without -nats, node is the root program's command: same replies, same
// log.
func TestNodeWithoutNATSIsTheBaseNode(t *testing.T) {
	in := `{"src":"c","dest":"n","body":{"type":"check_cluster_state","msg_id":1}}` + "\nnot json\n" +
		`{"src":"c","dest":"n","body":{"type":"steal_job","msg_id":2,"thief_worker":"w3"}}` + "\n"
	code, out, errs := runWith(strings.NewReader(in), "node")
	var bout, berr bytes.Buffer
	bcode := cli.Run([]string{"node"}, strings.NewReader(in), &bout, &berr)
	if code != 0 || code != bcode || out != bout.String() || errs != berr.String() || !strings.Contains(out, "job_stolen") {
		t.Fatalf("full program: %d %q %q\nroot program: %d %q %q", code, out, errs, bcode, bout.String(), berr.String())
	}
}

// $STEAL_NATS_PASSWORD is the password of -user: without -user it is
// not a password given, so a worker without -user connects as it would
// without the variable, rather than being refused (cluster up -procs
// passes its environment on to its workers). An explicit -password
// without -user is refused, with or without -nats, rather than ignored.
func TestPasswordWithoutUser(t *testing.T) {
	t.Setenv(passwordEnv, "s3cret")
	code, _, errs := runWith(nil, "worker", "-nats", "nats://127.0.0.1:1", "-name", "w1")
	if code != 1 || !strings.Contains(errs, "no servers available") {
		t.Errorf("worker without -user, $%s set: code %d, stderr %q; want 1, no server at the URL", passwordEnv, code, errs)
	}
	// -every 1ms, refused after the password, keeps cluster up from
	// running on if it took the password.
	code, _, errs = runWith(nil, "cluster", "up", "-password", "p", "-every", "1ms")
	if code != 2 || !strings.Contains(errs, "-password needs -user") {
		t.Errorf("cluster up -password without -user: code %d, stderr %q; want 2 and -password needs -user", code, errs)
	}
}

// A -dir the server cannot use is named at once: the embedded server,
// its log off, would only fail to be ready for 10 s.
func TestUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _, errs := runWith(nil, "cluster", "up", "-dir", file)
	if code != 1 || !strings.Contains(errs, "-dir "+file+": ") || time.Since(start) > 5*time.Second {
		t.Errorf("cluster up -dir <a file>: code %d after %v, stderr %q; want 1 at once, naming -dir",
			code, time.Since(start).Round(time.Millisecond), errs)
	}
}

// A -listen address already taken is named at once, as -dir is.
func TestListenAddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Now()
	code, _, errs := runWith(nil, "cluster", "up", "-listen", l.Addr().String())
	if code != 1 || !strings.Contains(errs, "-listen "+l.Addr().String()+": ") || time.Since(start) > 5*time.Second {
		t.Errorf("cluster up -listen <a port in use>: code %d after %v, stderr %q; want 1 at once, naming -listen",
			code, time.Since(start).Round(time.Millisecond), errs)
	}
}

// TestRootCommandsNameThisProgram: the commands this program shares with
// the root one (demo, sim) name this program in their messages.
func TestRootCommandsNameThisProgram(t *testing.T) {
	defer func(p string) { cli.Program = p }(cli.Program)
	cli.Program = "stealcluster"
	for _, cmd := range []string{"sim", "demo"} {
		code, _, stderr := runWith(strings.NewReader(""), cmd, "-bogus")
		if code != 2 || !strings.Contains(stderr, "stealcluster "+cmd) || strings.Contains(stderr, "steal "+cmd) {
			t.Errorf("%s -bogus: exit %d, stderr %q, want 2 and this program's name", cmd, code, stderr)
		}
	}
}
