package main

import (
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/worksteal/steal/cluster/internal/testcert"
	"github.com/worksteal/steal/cluster/natsserver"
)

// A server that requires client certificates (cluster up -tlsclientca)
// can be joined by the program's own workers: -tlsclientcert and
// -tlsclientkey give the certificate they present. Without them, no
// worker of this program could join such a server.
func TestClientCertificate(t *testing.T) {
	cert, key := testcert.SelfSigned(t)
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()), natsserver.TLS(cert, key, cert))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	url := strings.Replace(srv.URL(), "nats://", "tls://", 1)
	code, out, errs := runWith(nil, "cluster", "demo", "-nats", url, "-tlsca", cert, "-tlsclientcert", cert, "-tlsclientkey", key,
		"-workers", "1", "-roots", "1", "-depth", "0")
	if code != 0 || !strings.Contains(out, "summary: 1 of 1 jobs completed") {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, _, errs = runWith(nil, "cluster", "demo", "-nats", url, "-tlsca", cert, "-workers", "1", "-roots", "1", "-depth", "0")
	// With TLS 1.3 the server checks the client's certificate after the
	// handshake: the client reads its alert ("certificate required") or,
	// when it writes first, finds the connection closed (seen in a CI
	// run). Either way it is refused.
	refused := strings.Contains(errs, "certificate required") || strings.Contains(errs, "closed by remote")
	if code != 1 || !refused {
		t.Fatalf("without a client certificate: exit %d, stderr %q; want 1, refused by the server", code, errs)
	}
}

// An embedded server beyond loopback counts TLS as authentication only
// when it verifies client certificates: TLS without a client CA, which
// turns verification off, is refused even if ServerOptions had turned it
// on (it ends up off).
func TestEmbeddedTLSWithoutClientCARefused(t *testing.T) {
	cert, key := testcert.SelfSigned(t)
	e, err := natsserver.Start(natsserver.Listen("0.0.0.0", 0), natsserver.TLS(cert, key, ""),
		natsserver.ServerOptions(func(o *server.Options) { o.TLSVerify = true }))
	if err == nil {
		verify := e.NATS().ClientURL()
		e.Shutdown()
		t.Fatalf("started at %s without verifying clients, beyond loopback", verify)
	}
	if !strings.Contains(err.Error(), "beyond loopback") {
		t.Fatalf("Start = %v, want the refusal of an open listener", err)
	}
}
