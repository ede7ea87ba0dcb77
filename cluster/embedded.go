package cluster

import (
	"errors"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Embedded is a NATS server with JetStream running inside this process.
type Embedded struct {
	srv     *server.Server
	tempDir string // removed by Shutdown; empty when the caller gave a directory
}

// EmbeddedOption configures StartEmbedded.
type EmbeddedOption func(*server.Options)

// EmbedStoreDir keeps JetStream file storage in dir, which outlives the
// server (default: a temporary directory that Shutdown removes).
func EmbedStoreDir(dir string) EmbeddedOption {
	return func(o *server.Options) { o.StoreDir = dir }
}

// EmbedListen sets the address to listen on (default 127.0.0.1 and a
// random free port). Listening beyond loopback lets workers on other
// machines join; secure it first (see the nats-server documentation).
func EmbedListen(host string, port int) EmbeddedOption {
	return func(o *server.Options) { o.Host, o.Port = host, port }
}

// EmbedServerOptions hands the server's options to f for anything else
// (TLS, accounts, clustering with Routes).
func EmbedServerOptions(f func(*server.Options)) EmbeddedOption { return EmbeddedOption(f) }

// StartEmbedded starts a NATS server with JetStream in this process,
// listening on loopback at a random port, and waits up to 10 s until it
// accepts connections. On error nothing is left running.
func StartEmbedded(opts ...EmbeddedOption) (*Embedded, error) {
	o := &server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		NoSigs: true, NoLog: true, ServerName: "steal-embedded",
	}
	for _, f := range opts {
		f(o)
	}
	e := &Embedded{}
	if o.StoreDir == "" {
		dir, err := os.MkdirTemp("", "steal-nats-*")
		if err != nil {
			return nil, err
		}
		o.StoreDir, e.tempDir = dir, dir
	}
	srv, err := server.NewServer(o)
	if err != nil {
		e.cleanup()
		return nil, err
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		srv.WaitForShutdown()
		e.cleanup()
		return nil, errors.New("cluster: embedded NATS server did not start within 10s")
	}
	e.srv = srv
	return e, nil
}

// URL is the server's client URL (nats://127.0.0.1:port), for processes
// that dial in.
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Server is the running server, for monitoring or tests.
func (e *Embedded) Server() *server.Server { return e.srv }

// Connect opens an in-process connection to the server (no TCP).
func (e *Embedded) Connect(opts ...nats.Option) (*nats.Conn, error) {
	return nats.Connect("", append(opts, nats.InProcessServer(e.srv))...)
}

// Shutdown stops the server, waits until it has stopped, and removes its
// temporary store directory if StartEmbedded made one.
//
// Known limitation of nats-server v2.15.2: an atomic batch (the workers'
// steals, takeovers and completions) that reaches a file-storage stream
// while the server shuts down can leave that batch's store goroutines
// running after Shutdown returns. A process that exits loses them; one
// that starts and stops servers many times should close its workers and
// clients before Shutdown, so that no batch is in flight.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.cleanup()
}

func (e *Embedded) cleanup() {
	if e.tempDir != "" {
		os.RemoveAll(e.tempDir)
	}
}
