package natsserver

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/worksteal/steal/cluster/internal/testcert"
)

// anonymous reports whether the NATS server at addr serves a plain
// client that gives no credentials: CONNECT, then PING answered by PONG.
func anonymous(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil { // INFO
		return false
	}
	if _, err := c.Write([]byte("CONNECT {\"verbose\":false}\r\nPING\r\n")); err != nil {
		return false
	}
	line, err := r.ReadString('\n')
	return err == nil && line == "PONG\r\n"
}

// so returns a ServerOptions option that applies f.
func so(f func(o *server.Options)) Option { return ServerOptions(f) }

// routes gives the server a cluster (a route port) and a route to
// nowhere, which a clustered JetStream asks for.
func routes(o *server.Options) {
	o.Cluster.Name, o.Cluster.Port = "c", -1
	o.Routes = server.RoutesFromStr("nats://127.0.0.1:1")
}

// TestEveryListenerNeedsAuth: beyond loopback, Start refuses every
// listener that lets a peer in without credentials, not only the client
// port: a websocket, MQTT, leaf node, route or gateway port that
// ServerOptions opens (nats-server puts them on every interface unless
// told a host), the monitoring and profiling ports, which have no
// authentication, and client "authentication" that admits anyone (a
// user without a password, a no-auth user, TLSVerify with no TLS,
// client certificates with plain connections allowed). Each of these
// started, reachable with no credentials; Insecure still runs them.
func TestEveryListenerNeedsAuth(t *testing.T) {
	cert, key := testcert.SelfSigned(t)
	users := []*server.User{{Username: "a", Password: "b"}}
	refused := map[string][]Option{
		"TLSVerify without TLS":   {Listen("0.0.0.0", 0), so(func(o *server.Options) { o.TLSVerify = true })},
		"a no-auth user":          {Listen("0.0.0.0", 0), so(func(o *server.Options) { o.Users, o.NoAuthUser = users, "a" })},
		"a user without password": {Listen("0.0.0.0", 0), so(func(o *server.Options) { o.Username = "u" })},
		"users, one without password": {Listen("0.0.0.0", 0), so(func(o *server.Options) {
			o.Users = []*server.User{{Username: "a", Password: "b"}, {Username: "c"}}
		})},
		"client certificates, plain allowed": {Listen("0.0.0.0", 0), TLS(cert, key, cert), so(func(o *server.Options) { o.AllowNonTLS = true })},
		"websocket on every interface":       {so(func(o *server.Options) { o.Websocket.Port, o.Websocket.NoTLS = -1, true })},
		"websocket, a no-auth user": {UserPassword("u", "p"), so(func(o *server.Options) {
			o.Users = users
			o.Websocket.Port, o.Websocket.NoTLS, o.Websocket.NoAuthUser = -1, true, "a"
		})},
		"MQTT on every interface":       {so(func(o *server.Options) { o.MQTT.Port = -1 })},
		"leaf nodes on every interface": {so(func(o *server.Options) { o.LeafNode.Port = -1 })},
		"routes on every interface":     {UserPassword("u", "p"), so(routes)},
		"gateways on every interface": {UserPassword("u", "p"), so(func(o *server.Options) {
			o.JetStream, o.Gateway.Name, o.Gateway.Port = false, "g", -1
		})},
		"monitoring beyond loopback": {Listen("0.0.0.0", 0), UserPassword("u", "p"), so(func(o *server.Options) { o.HTTPPort = -1 })},
		"profiling beyond loopback":  {Listen("0.0.0.0", 0), UserPassword("u", "p"), so(func(o *server.Options) { o.ProfPort = -1 })},
	}
	for name, opts := range refused {
		e, err := Start(append([]Option{StoreDir(t.TempDir())}, opts...)...)
		if err == nil {
			anon := "refused"
			if anonymous(e.NATS().Addr().String()) {
				anon = "served"
			}
			e.Shutdown()
			t.Errorf("%s: started (an anonymous client on the client port was %s)", name, anon)
			continue
		}
		if !strings.Contains(err.Error(), "beyond loopback") || !strings.Contains(err.Error(), "Insecure") {
			t.Errorf("%s: %v, want an error naming the exposure and Insecure", name, err)
		}
		e, err = Start(append([]Option{StoreDir(t.TempDir()), Insecure()}, opts...)...)
		if err != nil {
			t.Errorf("%s, Insecure: %v", name, err)
			continue
		}
		e.Shutdown()
	}
	started := map[string][]Option{
		"websocket on loopback": {so(func(o *server.Options) {
			o.Websocket.Host, o.Websocket.Port, o.Websocket.NoTLS = "127.0.0.1", -1, true
		})},
		"websocket, clients' password": {Listen("0.0.0.0", 0), UserPassword("u", "p"),
			so(func(o *server.Options) { o.Websocket.Port, o.Websocket.NoTLS = -1, true })},
		"leaf nodes, clients' password": {UserPassword("u", "p"), so(func(o *server.Options) { o.LeafNode.Port = -1 })},
		"routes with their own password": {UserPassword("u", "p"), so(func(o *server.Options) {
			routes(o)
			o.Cluster.Username, o.Cluster.Password = "r", "rp"
		})},
		"monitoring on loopback": {Listen("0.0.0.0", 0), UserPassword("u", "p"),
			so(func(o *server.Options) { o.HTTPHost, o.HTTPPort = "127.0.0.1", -1 })},
		"client certificates": {Listen("0.0.0.0", 0), TLS(cert, key, cert)},
	}
	for name, opts := range started {
		e, err := Start(append([]Option{StoreDir(t.TempDir())}, opts...)...)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		e.Shutdown()
	}
}

// TestTLSNeedsCertificateAndKey: TLS with no certificate or no key file
// is refused. TLS("", "", clientCA) started a server that required TLS
// and had no certificate to offer: no client over TCP could ever join it.
func TestTLSNeedsCertificateAndKey(t *testing.T) {
	cert, key := testcert.SelfSigned(t)
	for _, files := range [][3]string{{"", "", cert}, {"", "", ""}, {cert, "", cert}, {"", key, ""}} {
		e, err := Start(StoreDir(t.TempDir()), TLS(files[0], files[1], files[2]))
		if err == nil {
			e.Shutdown()
			t.Errorf("TLS(%q, %q, %q) started", files[0], files[1], files[2])
		} else if !strings.Contains(err.Error(), "TLS") {
			t.Errorf("TLS(%q, %q, %q): %v, want an error naming TLS", files[0], files[1], files[2], err)
		}
	}
}
