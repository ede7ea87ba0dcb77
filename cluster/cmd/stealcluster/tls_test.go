package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/worksteal/steal/cluster/natsserver"
)

// selfSigned writes a self-signed certificate for 127.0.0.1, good for
// servers and clients and its own CA, and its key; it returns their files.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// A server that requires client certificates (cluster up -tlsclientca)
// can be joined by the program's own workers: -tlsclientcert and
// -tlsclientkey give the certificate they present. Without them, no
// worker of this program could join such a server.
func TestClientCertificate(t *testing.T) {
	cert, key := selfSigned(t)
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
	cert, key := selfSigned(t)
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
