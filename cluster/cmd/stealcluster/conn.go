package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
)

// connFlags are the flags that say which cluster to join and how.
type connFlags struct {
	url, creds, cluster string
	user, password      string
	tlsCA               string
	tlsCert, tlsKey     string // the client certificate this process presents
	replicas            int
	lease               time.Duration
	spawnRecords        bool   // workers only: a record per spawned job
	prog                string // the command, as its messages start ("stealcluster worker")
}

// passwordEnv carries the password when -password is not given, so that
// it stays out of process listings.
const passwordEnv = "STEAL_NATS_PASSWORD"

// tokenEnv carries a token for the NATS server, out of command lines:
// cluster up -procs passes a token of its -nats URL to its workers in it.
const tokenEnv = "STEAL_NATS_TOKEN"

// maxLease bounds -lease: a worker waits multiples of its lease (up to
// 4 leases times ⌈W/8⌉ between reads of the workers bucket), and a lease
// of some thousands of hours overflows those waits, a panic in the
// worker. An hour is far beyond any sensible lease.
const maxLease = time.Hour

func (c *connFlags) register(fs *flag.FlagSet, urlHelp string) {
	c.spawnRecords = true // the library's default, for commands without the flag
	c.prog = fs.Name()
	fs.StringVar(&c.url, "nats", "", urlHelp)
	fs.StringVar(&c.creds, "creds", "", "NATS credentials file (user JWT and NKey seed)")
	fs.StringVar(&c.user, "user", "", "NATS user; its password is -password or $"+passwordEnv+" (a token without -user: $"+tokenEnv+")")
	fs.StringVar(&c.password, "password", "", "NATS password for -user (default $"+passwordEnv+")")
	fs.StringVar(&c.tlsCA, "tlsca", "", "PEM file of the certificate authorities that signed the NATS server's TLS certificate")
	fs.StringVar(&c.tlsCert, "tlsclientcert", "", "the client certificate (PEM) this process presents, for a server that\n"+
		"requires one (cluster up -tlsclientca)")
	fs.StringVar(&c.tlsKey, "tlsclientkey", "", "the key of -tlsclientcert (PEM)")
	fs.StringVar(&c.cluster, "cluster", "default", "cluster name: clusters on one NATS system stay apart")
	fs.IntVar(&c.replicas, "replicas", 1, "replicas of the buckets this process creates (3 on a three-server NATS cluster)")
	// The lease is the workers bucket's TTL, set by whoever creates it.
	fs.DurationVar(&c.lease, "lease", 3*time.Second, "worker lease (1s to 1h): a worker silent this long is taken for dead;\n"+
		"if this process creates the cluster: one that exists keeps its own")
}

// registerSpawn adds -spawn-records, for the commands that run workers.
func (c *connFlags) registerSpawn(fs *flag.FlagSet) {
	fs.BoolVar(&c.spawnRecords, "spawn-records", true, "give each spawned job a record and a completion of its own;\n"+
		"false keeps spawned jobs in memory (lent to thieves): a root completes once its tree is done,\n"+
		"children run at least once and are not recorded, and a tree costs the servers nothing per child")
}

func (c *connFlags) check() error {
	// An explicit -password without -user is a mistake; the variable is
	// read only for -user, as it may be left set in an environment that
	// has no use for it (cluster up -procs passes its own to its workers).
	if c.user == "" && c.password != "" {
		return fmt.Errorf("-password needs -user")
	}
	if c.user != "" && c.password == "" {
		c.password = os.Getenv(passwordEnv)
	}
	if c.user != "" && c.password == "" {
		return fmt.Errorf("-user needs a password: -password or $%s", passwordEnv)
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return fmt.Errorf("-tlsclientcert and -tlsclientkey go together")
	}
	if err := checkURLs(c.url); err != nil {
		return err
	}
	if err := checkCreds(c.creds); err != nil {
		return err
	}
	if err := checkName("-cluster", c.cluster); err != nil {
		return err
	}
	if c.replicas < 1 || c.replicas > 5 {
		return fmt.Errorf("-replicas must be 1 to 5, not %d", c.replicas)
	}
	if c.lease < time.Second || c.lease > maxLease {
		return fmt.Errorf("-lease must be 1s to %v, not %v", maxLease, c.lease)
	}
	return nil
}

// checkCreds refuses a -creds file that does not hold a user JWT and its
// NKey seed, before any connection: nats.go reads the file only when the
// server asks for credentials, so against a server that asks for none a
// wrong file went unnoticed and the process joined as no user. The error
// names the file, never its contents.
func checkCreds(file string) error {
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("-creds: %w", err)
	}
	if tok, err := jwt.ParseDecoratedJWT(b); err != nil || tok == "" {
		return fmt.Errorf("-creds %s: no user JWT in it", file)
	} else if _, err := jwt.DecodeUserClaims(tok); err != nil {
		return fmt.Errorf("-creds %s: no valid user JWT in it (a credentials file holds the user JWT and then its NKey seed)", file)
	}
	if _, err := jwt.ParseDecoratedUserNKey(b); err != nil {
		return fmt.Errorf("-creds %s: no user NKey seed in it", file)
	}
	return nil
}

// givenEmpty reports whether the flag name was given with an empty value:
// -nats "" (often an unset variable, quoted) must not read as no -nats at
// all, which starts an embedded server instead of joining the one meant.
func givenEmpty(fs *flag.FlagSet, name string) bool {
	empty := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name && f.Value.String() == "" {
			empty = true
		}
	})
	return empty
}

// nameRE is the cluster package's rule for worker and cluster names.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// checkName checks a name flag before any connection: the cluster
// package would refuse the name only once connected, and without
// naming the flag.
func checkName(flag, name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%s must be 1 to 64 of A-Z a-z 0-9 _ -, not %q", flag, name)
	}
	return nil
}

// checkURLs refuses a URL of urls (-nats) with an "@" that is not the
// end of its credentials: a password or token holding / ? or #
// unencoded ends the authority early ("nats://u:12/pw@host" is host u,
// port 12, path "/pw@host"), so that url.Parse and nats.go read no
// credentials and would dial, and print, the secret as a host.
func checkURLs(urls string) error {
	if urls == "" {
		return nil
	}
	for _, p := range strings.Split(urls, ",") {
		if u, err := natsURL(p); err == nil && cutShort(p, u) {
			return fmt.Errorf("-nats %s: the credentials before the @ must be percent-encoded where they hold / ? or # (%%2F %%3F %%23)",
				shown(p))
		}
	}
	return nil
}

// cutShort reports whether p, parsed as u, has an "@" after its scheme
// that is not part of u's authority: a NATS URL has no path, query or
// fragment that could hold one.
func cutShort(p string, u *url.URL) bool {
	rest := p
	if i := strings.Index(p, "://"); i >= 0 {
		rest = p[i+len("://"):]
	}
	at := strings.LastIndex(rest, "@")
	return at >= 0 && (u.User == nil || strings.ContainsAny(rest[:at], "/?#"))
}

// shown is urls (a NATS server URL, or several separated by commas) as
// printed: a password in one is masked, as -user's password is never
// printed, and so is a token (a user with no password).
func shown(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		u, err := natsURL(p)
		if err != nil || cutShort(p, u) {
			parts[i] = maskUnparsed(strings.TrimSpace(p))
			continue
		}
		if u.User == nil {
			continue
		}
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		} else {
			u.User = url.User("xxxxx")
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}

// natsURL parses one URL of a -nats list as nats.go reads it: without a
// scheme it is a nats:// URL (url.Parse alone took "u:pw@host:port" for
// scheme u, and its password went unseen).
func natsURL(p string) (*url.URL, error) {
	p = strings.TrimSpace(p)
	if !strings.Contains(p, "://") {
		p = "nats://" + p
	}
	return url.Parse(p)
}

// maskUnparsed masks what may be credentials in a URL that url.Parse
// refused (a bad port, say): everything between the scheme and the last
// "@". Such a URL still reaches the "NATS server at" line and the error
// nats.go returns, which quotes it.
func maskUnparsed(u string) string {
	start := 0
	if i := strings.Index(u, "://"); i >= 0 {
		start = i + len("://")
	}
	if j := strings.LastIndex(u, "@"); j >= start {
		return u[:start] + "xxxxx" + u[j:]
	}
	return u
}

// options are the cluster options the flags select.
func (c *connFlags) options() []cluster.Option {
	return []cluster.Option{cluster.WithCluster(c.cluster), cluster.WithReplicas(c.replicas), cluster.WithLease(c.lease),
		cluster.WithSpawnRecords(c.spawnRecords)}
}

// asyncError reports an error nats.go met on connection name (a write
// to a server that went away, a slow consumer) on stderr, starting with
// the command, as the command's own lines do; nats.go's default handler
// printed it bare.
func (c *connFlags) asyncError(name string) nats.ErrHandler {
	prog := c.prog
	if prog == "" {
		prog = "stealcluster"
	}
	return func(_ *nats.Conn, sub *nats.Subscription, err error) {
		if sub != nil {
			fmt.Fprintf(os.Stderr, "%s: nats: %v (%s, subscription on %s)\n", prog, err, name, sub.Subject)
			return
		}
		fmt.Fprintf(os.Stderr, "%s: nats: %v (%s)\n", prog, err, name)
	}
}

// connect dials urls with the credentials, if any. It fails at once when
// no server answers (RetryOnFailedConnect(false)); once connected, it
// reconnects without limit.
func (c *connFlags) connect(urls, name string) (*nats.Conn, error) {
	if urls == "" {
		return nil, errors.New("no NATS URL: give -nats")
	}
	opts := []nats.Option{nats.Name(name), nats.RetryOnFailedConnect(false), nats.MaxReconnects(-1),
		nats.ErrorHandler(c.asyncError(name))}
	if c.creds != "" {
		opts = append(opts, nats.UserCredentials(c.creds))
	}
	if c.user != "" {
		opts = append(opts, nats.UserInfo(c.user, c.password))
	} else if tok := os.Getenv(tokenEnv); tok != "" && c.creds == "" {
		opts = append(opts, nats.Token(tok))
	}
	if c.tlsCA != "" {
		opts = append(opts, nats.RootCAs(c.tlsCA))
	}
	if c.tlsCert != "" {
		opts = append(opts, nats.ClientCert(c.tlsCert, c.tlsKey))
	}
	nc, err := nats.Connect(urls, opts...)
	// nats.go returns url.Parse's error as it is, with the whole URL,
	// password or token included, in its text.
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = shown(ue.URL)
	}
	return nc, err
}
