package natsserver

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestEmbeddedUserPassword: with a user and password, the server refuses
// an anonymous client and a wrong password, and takes the right ones and
// Connect's in-process connections.
func TestEmbeddedUserPassword(t *testing.T) {
	e, err := Start(StoreDir(t.TempDir()), UserPassword("steal", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	for _, opts := range [][]nats.Option{nil, {nats.UserInfo("steal", "wrong")}} {
		nc, err := nats.Connect(e.URL(), opts...)
		if err == nil {
			nc.Close()
			t.Fatalf("a client without the password connected")
		}
		if !errors.Is(err, nats.ErrAuthorization) {
			t.Errorf("refused with %v, want an authorization violation", err)
		}
	}
	nc, err := nats.Connect(e.URL(), nats.UserInfo("steal", "s3cret"))
	if err != nil {
		t.Fatalf("with the password: %v", err)
	}
	nc.Close()
	nc, err = e.Connect()
	if err != nil {
		t.Fatalf("in process: %v", err)
	}
	nc.Close()
}

// TestUserPasswordEmpty: a user or password left empty is refused, not
// taken for no authentication (nats-server turns single-user
// authorization on only for a non-empty user) or for an empty password.
func TestUserPasswordEmpty(t *testing.T) {
	for _, up := range [][2]string{{"", "s3cret"}, {"steal", ""}} {
		e, err := Start(StoreDir(t.TempDir()), UserPassword(up[0], up[1]))
		if err == nil {
			nc, cerr := nats.Connect(e.URL(), nats.UserInfo(up[0], ""))
			if cerr == nil {
				nc.Close()
			}
			e.Shutdown()
			t.Errorf("UserPassword(%q, %q) started (a client without the password connected: %v)", up[0], up[1], cerr == nil)
		}
	}
}

// TestUserPasswordLikeBcrypt: a password that nats-server would read as
// a bcrypt hash ($2a$10$...) is refused at once, without the password
// in the error. The server compared every client's password against it
// as a hash, so no client, Connect's included, could give it: the first
// in-process connection failed after 10 s with "read/write on closed
// pipe".
func TestUserPasswordLikeBcrypt(t *testing.T) {
	const pw = "$2a$10$s3cretxxxxxxxxxxxxxxxx"
	start := time.Now()
	e, err := Start(StoreDir(t.TempDir()), UserPassword("steal", pw))
	if err == nil {
		nc, cerr := e.Connect(nats.Timeout(2 * time.Second))
		if cerr == nil {
			nc.Close()
		}
		e.Shutdown()
		t.Fatalf("started (Connect: %v)", cerr)
	}
	if !strings.Contains(err.Error(), "bcrypt") || strings.Contains(err.Error(), "s3cret") || time.Since(start) > 2*time.Second {
		t.Errorf("after %v: %v; want at once an error that says bcrypt and not the password", time.Since(start), err)
	}
}
