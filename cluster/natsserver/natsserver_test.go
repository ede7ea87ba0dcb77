package natsserver

import (
	"errors"
	"testing"

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
