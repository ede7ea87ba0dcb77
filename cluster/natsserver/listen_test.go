package natsserver

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// TestListenBeyondLoopbackNeedsAuth: Start refuses to listen beyond
// loopback with nothing that authenticates clients, unless Insecure says
// so; on loopback, or with a password, client certificates or accounts,
// it starts. The command line refused this, the package did not.
func TestListenBeyondLoopbackNeedsAuth(t *testing.T) {
	for _, host := range []string{"0.0.0.0", "", "::", "192.0.2.1"} {
		e, err := Start(Listen(host, 0))
		if err == nil {
			e.Shutdown()
			t.Errorf("Listen(%q) with no authentication started", host)
		} else if !strings.Contains(err.Error(), "beyond loopback") || !strings.Contains(err.Error(), "Insecure") {
			t.Errorf("Listen(%q): %v, want an error naming the exposure and the options", host, err)
		}
	}
	for name, opts := range map[string][]Option{
		"127.0.0.1":       {Listen("127.0.0.1", 0)},
		"localhost":       {Listen("localhost", 0)},
		"::1":             {Listen("::1", 0)},
		"password":        {Listen("0.0.0.0", 0), UserPassword("u", "p")},
		"insecure":        {Listen("0.0.0.0", 0), Insecure()},
		"accounts' users": {Listen("0.0.0.0", 0), ServerOptions(func(o *server.Options) { o.Users = []*server.User{{Username: "a", Password: "b"}} })},
		"a token":         {Listen("0.0.0.0", 0), ServerOptions(func(o *server.Options) { o.Authorization = "tok" })},
	} {
		e, err := Start(opts...)
		if err != nil {
			if name == "::1" && strings.Contains(err.Error(), "address") {
				continue // no IPv6 loopback on this machine
			}
			t.Errorf("%s: %v", name, err)
			continue
		}
		e.Shutdown()
	}
}

// TestListenPortZeroIsRandom: port 0 means a free port picked for the
// server, as with net.Listen, not nats-server's default 4222: two servers
// listening on port 0 both start.
func TestListenPortZeroIsRandom(t *testing.T) {
	a, err := Start(Listen("127.0.0.1", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown()
	b, err := Start(Listen("127.0.0.1", 0))
	if err != nil {
		t.Fatalf("a second server on port 0: %v", err)
	}
	defer b.Shutdown()
	if a.URL() == b.URL() || strings.HasSuffix(a.URL(), ":4222") {
		t.Errorf("URLs %s and %s: want two random ports", a.URL(), b.URL())
	}
}

// TestLoopbackNamesResolveToLoopback: a host name counts as loopback only
// when every address it resolves to is one. "localhost" was trusted by
// its spelling: on a machine whose hosts file maps it elsewhere, the
// server would have listened there with no authentication.
func TestLoopbackNamesResolveToLoopback(t *testing.T) {
	defer func(f func(string) ([]net.IP, error)) { lookupIP = f }(lookupIP)
	hosts := map[string][]net.IP{
		"localhost": {net.IPv4(192, 0, 2, 7)},
		"mixed":     {net.IPv4(127, 0, 0, 1), net.IPv4(192, 0, 2, 7)},
		"lo":        {net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	lookupIP = func(h string) ([]net.IP, error) {
		if ips, ok := hosts[h]; ok {
			return ips, nil
		}
		return nil, errors.New("no such host")
	}
	for host, want := range map[string]bool{"localhost": false, "mixed": false, "lo": true, "nowhere": false} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", host, got, want)
		}
	}
	e, err := Start(Listen("localhost", 0))
	if err == nil {
		e.Shutdown()
		t.Fatal("Listen(localhost) with localhost resolving beyond loopback started with no authentication")
	}
	if !strings.Contains(err.Error(), "beyond loopback") {
		t.Errorf("Listen(localhost): %v, want an error naming the exposure", err)
	}
}
