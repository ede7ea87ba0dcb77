// Package natsserver runs a NATS server with JetStream inside the process,
// for a cluster (package cluster) on one machine: one call gives workers
// and clients a server to connect to. It is a package of its own so that a
// program that only connects to a server (a worker, a client) does not
// link nats-server, as nats.go keeps the server out of its library.
package natsserver

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Server is a NATS server with JetStream running inside this process.
//
// Trust model: every client of the server's account (here, every client
// that may connect) can do anything a worker does: forge completions,
// answer steals in a worker's place, delete records. The account is the
// trust boundary. On loopback that is the local machine's users; beyond
// it, require credentials (UserPassword) or client certificates
// (TLS with a client CA). Start refuses every listener beyond loopback
// that lets a peer in without credentials (see Listen), unless Insecure.
type Server struct {
	srv        *server.Server
	tempDir    string   // removed by Shutdown; empty when the caller gave a directory
	storeLock  *os.File // held while the server runs; nil where there is no flock
	user, pass string   // what Connect authenticates with
}

// Option configures Start.
type Option func(*embedConfig)

type embedConfig struct {
	o   server.Options
	tls *server.TLSConfigOpts
	// badAuth: UserPassword was given an empty user or password.
	// nats-server requires no authentication at all for an empty user
	// (configureAuthorization keys single-user authorization on
	// Username), and takes an empty password as the password, so either
	// would leave the server open where the caller asked for a password.
	badAuth bool
	// bcryptPass: UserPassword was given a password that nats-server
	// reads as a bcrypt hash (comparePasswords in server/auth.go): no
	// client, Connect's included, could give it.
	bcryptPass bool
	// insecure: Insecure was given.
	insecure bool
}

// StoreDir keeps JetStream file storage in dir, which outlives the
// server (default: a temporary directory that Shutdown removes). Start
// fails while another server, in this process or another, uses dir (on
// systems with flock: Linux, macOS, the BSDs).
func StoreDir(dir string) Option {
	return func(c *embedConfig) { c.o.StoreDir = dir }
}

// Listen sets the address to listen on (default 127.0.0.1 and a
// random free port); port 0 also means a random free port. Listening
// beyond loopback (host "", 0.0.0.0, ::, or this machine's address) lets
// workers on other machines join, and Start refuses it unless clients
// must authenticate (UserPassword, TLS with a client CA, or users,
// tokens or accounts set through ServerOptions) or Insecure says to run
// it open.
//
// Start checks every other listener that ServerOptions opens the same
// way, as nats-server puts the websocket, MQTT, leaf node, route and
// gateway ports on every interface unless given a host: beyond loopback,
// websocket, MQTT and leaf node clients must authenticate as clients do
// (or by their own user, token or client certificates), routes and
// gateways by their own user and password or client certificates; and
// the monitoring and profiling ports, which authenticate no one, must
// stay on loopback. A user without a password, NoAuthUser, and client
// certificates with AllowNonTLS authenticate no one.
func Listen(host string, port int) Option {
	return func(c *embedConfig) {
		if port == 0 {
			port = server.RANDOM_PORT // nats-server takes 0 for its default, 4222
		}
		c.o.Host, c.o.Port = host, port
	}
}

// UserPassword makes the server refuse every client that does not
// give this user and password (nats-server's single-user authorization:
// Options.Username and Password). Connect gives them. Start fails if
// either is empty, or if the password starts as nats-server's bcrypt
// hashes do ($2a$10$, say): nats-server would take it for a hash of the
// password, which no client could then give.
func UserPassword(user, password string) Option {
	return func(c *embedConfig) {
		c.o.Username, c.o.Password = user, password
		c.badAuth = user == "" || password == ""
		c.bcryptPass = bcryptLike.MatchString(password)
	}
}

// bcryptLike is what nats-server takes for a bcrypt hash
// (validBcryptPrefix in server/auth.go).
var bcryptLike = regexp.MustCompile(`^\$2[abxy]\$\d{2}\$`)

// TLS makes the server take clients over TLS only, with the
// certificate and key in these PEM files. With clientCA set (a PEM file of
// certificate authorities), a client must also present a certificate one
// of them signed (mutual TLS): that authenticates clients; TLS alone only
// encrypts. Connections made by Connect are in-process and need no TLS
// (nats-server: createClientEx in server/server.go makes TLS available,
// not required, on them). Start fails if certFile or keyFile is empty.
func TLS(certFile, keyFile, clientCA string) Option {
	return func(c *embedConfig) {
		c.tls = &server.TLSConfigOpts{CertFile: certFile, KeyFile: keyFile, CaFile: clientCA, Verify: clientCA != ""}
	}
}

// Insecure lets Listen (or a listener of ServerOptions) open the server
// beyond loopback with nothing that authenticates clients: every client
// that can reach the address can do anything a worker does (see Server's
// trust model). Without it, Start refuses such an address.
func Insecure() Option { return func(c *embedConfig) { c.insecure = true } }

// ServerOptions hands the server's options to f for anything else
// (accounts, clustering with Routes). Start checks the listeners they
// open as Listen says.
func ServerOptions(f func(*server.Options)) Option {
	return func(c *embedConfig) { f(&c.o) }
}

// Start starts a NATS server with JetStream in this process,
// listening on loopback at a random port, and waits up to 10 s until it
// accepts connections. On error nothing is left running.
func Start(opts ...Option) (*Server, error) {
	c := &embedConfig{o: server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		NoSigs: true, NoLog: true, ServerName: "steal-embedded",
	}}
	for _, f := range opts {
		f(c)
	}
	o := &c.o
	if c.badAuth {
		return nil, errors.New("natsserver: UserPassword needs a user and a password, neither empty")
	}
	if c.bcryptPass {
		return nil, errors.New("natsserver: UserPassword's password starts as a bcrypt hash does ($2a$, $2b$, $2x$ or $2y$, " +
			"two digits, $): nats-server would take it for a hash and no client could log in; give the password itself")
	}
	if c.tls != nil {
		if c.tls.CertFile == "" || c.tls.KeyFile == "" {
			// nats-server would require TLS with no certificate to offer:
			// no client over TCP could join.
			return nil, errors.New("natsserver: TLS needs a certificate file and a key file, neither empty")
		}
		tc, err := server.GenTLSConfig(c.tls)
		if err != nil {
			return nil, fmt.Errorf("natsserver: TLS: %w", err)
		}
		o.TLSConfig, o.TLS, o.TLSVerify = tc, true, c.tls.Verify
	}
	if open := exposed(o); len(open) > 0 && !c.insecure {
		return nil, fmt.Errorf("natsserver: listening beyond loopback with nothing that authenticates: %s; "+
			"give UserPassword, TLS with a client CA, or users or accounts through ServerOptions "+
			"(routes and gateways: a user and password of their own or client certificates), "+
			"keep the listener on loopback, or give Insecure to run it open", strings.Join(open, "; "))
	}
	e := &Server{user: o.Username, pass: o.Password}
	if o.StoreDir == "" {
		dir, err := os.MkdirTemp("", "steal-nats-*")
		if err != nil {
			return nil, err
		}
		o.StoreDir, e.tempDir = dir, dir
	}
	lock, err := lockStore(o.StoreDir)
	if err != nil {
		e.cleanup()
		return nil, err
	}
	e.storeLock = lock
	srv, err := server.NewServer(o)
	if err != nil {
		e.cleanup()
		return nil, err
	}
	// With NoLog, nats-server says why it could not start (a port in
	// use, an unusable store directory) to no one: Start returned and
	// ReadyForConnections waited its 10 s. Both failures are reported
	// through Fatalf before srv.Start returns; keep that message.
	fatal := &fatalLogger{}
	srv.SetLogger(fatal, false, false)
	srv.Start()
	if msg := fatal.message(); msg != "" {
		srv.Shutdown()
		srv.WaitForShutdown()
		e.cleanup()
		return nil, fmt.Errorf("natsserver: the NATS server did not start: %s", msg)
	}
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		e.cleanup()
		return nil, errors.New("natsserver: the NATS server did not start within 10s")
	}
	e.srv = srv
	return e, nil
}

// URL is the server's client URL (nats://127.0.0.1:port), for processes
// that dial in.
func (e *Server) URL() string { return e.srv.ClientURL() }

// NATS is the running nats-server, for monitoring (Varz, Connz) or tests.
func (e *Server) NATS() *server.Server { return e.srv }

// Connect opens an in-process connection to the server (no TCP), with the
// user and password of UserPassword if it was given.
func (e *Server) Connect(opts ...nats.Option) (*nats.Conn, error) {
	if e.user != "" {
		opts = append([]nats.Option{nats.UserInfo(e.user, e.pass)}, opts...)
	}
	return nats.Connect("", append(opts, nats.InProcessServer(e.srv))...)
}

// Shutdown stops the server, waits until it has stopped, and removes its
// temporary store directory if Start made one.
//
// Known limitation of nats-server v2.15.2: an atomic batch (the workers'
// steals, takeovers and completions) that reaches a file-storage stream
// while the server shuts down can leave that batch's store goroutines
// running after Shutdown returns. A process that exits loses them; one
// that starts and stops servers many times should close its workers and
// clients before Shutdown, so that no batch is in flight.
func (e *Server) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.cleanup()
}

// fatalLogger is a server.Logger that drops everything but the first
// Fatalf message.
type fatalLogger struct {
	mu    sync.Mutex
	fatal string
}

func (l *fatalLogger) Fatalf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fatal == "" {
		l.fatal = fmt.Sprintf(format, v...)
	}
}

func (l *fatalLogger) message() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}

func (*fatalLogger) Noticef(string, ...any) {}
func (*fatalLogger) Warnf(string, ...any)   {}
func (*fatalLogger) Errorf(string, ...any)  {}
func (*fatalLogger) Debugf(string, ...any)  {}
func (*fatalLogger) Tracef(string, ...any)  {}

func (e *Server) cleanup() {
	if e.storeLock != nil {
		e.storeLock.Close() // a second Shutdown's Close fails harmlessly
	}
	if e.tempDir != "" {
		os.RemoveAll(e.tempDir)
	}
}

// Loopback reports whether Listen(host, port) keeps the server on this
// machine: host is a loopback address, or a name (localhost, say) every
// address of which, as this machine resolves it, is a loopback address
// ("" and 0.0.0.0 mean every interface). Start refuses any other host
// unless clients must authenticate or Insecure is given; a program can
// check its flags with it before it starts anything.
func Loopback(host string) bool {
	if ip := net.ParseIP(host); ip != nil || host == "" {
		return ip != nil && ip.IsLoopback()
	}
	// A name is trusted for what it resolves to, not its spelling: a
	// hosts file may map even localhost elsewhere.
	ips, err := lookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// lookupIP resolves a host name for Loopback; tests replace it.
var lookupIP = net.LookupIP

// exposed describes each listener the options open beyond loopback that
// lets a peer in without credentials, and what that peer can do: the
// client port, and the websocket, MQTT, leaf node, route and gateway
// ports (nats-server listens on every interface for those when their
// host is empty), and the monitoring and profiling ports, which
// authenticate no one.
func exposed(o *server.Options) []string {
	const full = "any client that reaches it can read jobs, forge completions and delete records"
	var open []string
	add := func(what, host string, ok bool, harm string) {
		if !ok && !Loopback(host) {
			open = append(open, fmt.Sprintf("%s on %q: %s", what, host, harm))
		}
	}
	orAll := func(host string) string { // nats-server's default host for the other listeners
		if host == "" {
			return "0.0.0.0"
		}
		return host
	}
	add("clients", o.Host, authenticates(o), full)
	if ws := &o.Websocket; ws.Port != 0 {
		add("websocket clients", orAll(ws.Host), overrideAuthenticates(o, ws.Username, ws.Password, ws.Token, ws.NoAuthUser) ||
			verifiesClients(ws.TLSConfig) && !ws.NoTLS, full)
	}
	if mq := &o.MQTT; mq.Port != 0 {
		add("MQTT clients", orAll(mq.Host), overrideAuthenticates(o, mq.Username, mq.Password, mq.Token, mq.NoAuthUser) ||
			verifiesClients(mq.TLSConfig), full)
	}
	if ln := &o.LeafNode; ln.Port != 0 {
		// A leaf node's own authorization, else the clients' (nats-server:
		// isLeafNodeAuthorized falls back to isClientAuthorized).
		ok := false
		switch {
		case ln.Username != "":
			ok = ln.Password != ""
		case ln.Nkey != "":
			ok = true
		case len(ln.Users) > 0:
			ok = withPasswords(ln.Users)
		default:
			ok = usersAuthenticate(o)
		}
		add("leaf nodes", orAll(ln.Host), ok || verifiesClients(ln.TLSConfig), full)
	}
	if cl := &o.Cluster; cl.Port != 0 || cl.ListenStr != "" {
		add("routes", orAll(cl.Host), cl.Username != "" && cl.Password != "" || o.CustomRouterAuthentication != nil ||
			verifiesClients(cl.TLSConfig), "any server that reaches it joins as a route and sees and sends every message")
	}
	if gw := &o.Gateway; gw.Port != 0 {
		add("gateways", orAll(gw.Host), gw.Username != "" && gw.Password != "" || verifiesClients(gw.TLSConfig),
			"any server that reaches it joins as a gateway and sees and sends messages")
	}
	if o.HTTPPort != 0 || o.HTTPSPort != 0 {
		host := o.HTTPHost
		if host == "" {
			host = o.Host // nats-server's default
		}
		add("monitoring", host, false, "it has no authentication: anyone who reaches it lists connections, subscriptions and streams")
	}
	if o.ProfPort != 0 {
		add("profiling", o.Host, false, "it has no authentication: anyone who reaches it reads the server's profiles")
	}
	return open
}

// authenticates reports whether the options make every client
// authenticate: a user and password or token, users (each with a
// password) or nkeys, operators (JWT), a custom authenticator, or client
// certificates verified on every connection; and no user that a client
// without credentials becomes (NoAuthUser).
func authenticates(o *server.Options) bool {
	return usersAuthenticate(o) || verifiesClients(o.TLSConfig) && !o.AllowNonTLS
}

// usersAuthenticate reports whether the options' users, tokens, nkeys,
// operators or authenticator admit only clients that give credentials.
// o.TLSVerify alone counts for nothing: the TLS configuration's ClientAuth
// is what nats-server enforces.
func usersAuthenticate(o *server.Options) bool {
	if o.NoAuthUser != "" {
		return false
	}
	if o.Username != "" && o.Password == "" { // the user's name alone would let a client in
		return false
	}
	if len(o.Users) > 0 && !withPasswords(o.Users) {
		return false
	}
	return o.Username != "" || o.Authorization != "" || len(o.Users) > 0 || len(o.Nkeys) > 0 ||
		len(o.TrustedOperators) > 0 || len(o.TrustedKeys) > 0 || o.CustomClientAuthentication != nil
}

// overrideAuthenticates is usersAuthenticate for a websocket or MQTT
// listener, whose own user, token or no-auth user override the clients'
// (nats-server: wsConfigAuth, and processClientOrLeafAuthentication).
func overrideAuthenticates(o *server.Options, user, password, token, noAuthUser string) bool {
	if noAuthUser != "" || user != "" && password == "" {
		return false
	}
	return user != "" || token != "" || usersAuthenticate(o)
}

// withPasswords reports whether every user has a password.
func withPasswords(users []*server.User) bool {
	for _, u := range users {
		if u == nil || u.Password == "" {
			return false
		}
	}
	return true
}

// verifiesClients reports whether tc requires a client certificate
// signed by its CAs.
func verifiesClients(tc *tls.Config) bool {
	return tc != nil && tc.ClientAuth == tls.RequireAndVerifyClientCert
}
