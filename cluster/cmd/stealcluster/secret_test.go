package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// A -nats URL that does not parse (here a bad port) is still masked:
// the password it carries shows neither in the "NATS server at" line nor
// in the error that nats.go's url.Parse returns, which quotes the URL.
func TestBadURLPasswordNotShown(t *testing.T) {
	for _, args := range [][]string{
		{"cluster", "up", "-nats", "nats://u:s3cret@127.0.0.1:x"},
		{"worker", "-name", "w1", "-nats", "nats://u:s3cret@127.0.0.1:x"},
		{"cluster", "up", "-nats", "nats://tok3n@127.0.0.1:x"},
		{"cluster", "up", "-nats", "u:s3cret@127.0.0.1:x"}, // no scheme: nats.go takes it for nats://
	} {
		code, out, errs := runWith(nil, args...)
		if code == 0 || strings.Contains(out+errs, "s3cret") || strings.Contains(out+errs, "tok3n") {
			t.Errorf("%v: code %d, stdout %q, stderr %q: want a failure that masks the credentials", args, code, out, errs)
		}
	}
}

// A URL without a scheme is a nats:// one to nats.go, credentials and
// all: shown masks them there too.
func TestShownMasksSchemelessURL(t *testing.T) {
	for _, u := range []string{"u:s3cret@127.0.0.1:4222", "tok3n@127.0.0.1:4222", "nats://a:b@h:1, u:s3cret@h:2"} {
		if got := shown(u); strings.Contains(got, "s3cret") || strings.Contains(got, "tok3n") {
			t.Errorf("shown(%q) = %q, want the credentials masked", u, got)
		}
	}
}

// A password or token that holds / ? or # unencoded ends a URL's
// authority early: url.Parse, and nats.go, read no credentials in
// "nats://s3cret/tok@host" (host "s3cret", path "/tok@host") or
// "nats://u:12#s3cret@host" (port 12), so shown printed them whole. Such a
// -nats is refused before anything prints it, the secret masked in the
// error; alone, or next to a server that answers.
func TestURLCredentialsCutShortNotShown(t *testing.T) {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	for _, u := range []string{"nats://s3cret/tok@127.0.0.1:1", "nats://u:12#s3cret@127.0.0.1:1",
		"u:1234?s3cret@127.0.0.1:1", "tls://u:12/s3cret@127.0.0.1:1"} {
		if got := shown(u); strings.Contains(got, "s3cret") {
			t.Errorf("shown(%q) = %q, want the credentials masked", u, got)
		}
		for _, args := range [][]string{
			{"cluster", "demo", "-workers", "1", "-roots", "1", "-depth", "0", "-nats", srv.URL() + "," + u},
			{"cluster", "up", "-nats", u},
			{"worker", "-name", "w1", "-nats", u},
			{"node", "-nats", u},
		} {
			code, out, errs := runWith(strings.NewReader(""), args...)
			if code != 2 || strings.Contains(out+errs, "s3cret") || !strings.Contains(errs, "-nats") {
				t.Errorf("%v: code %d, stdout %q, stderr %q: want 2, an error naming -nats, the secret masked", args, code, out, errs)
			}
		}
	}
}

// A -creds file that holds no user JWT and NKey seed is refused before
// connecting, naming the flag and the file, never the contents: against
// a server that asks for no credentials, nats.go never reads the file, so
// a worker given an empty or wrong one joined as if given none.
func TestCredsFileCheckedBeforeConnecting(t *testing.T) {
	e, err := natsserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown()
	dir := t.TempDir()
	files := map[string]string{
		"empty":    "",
		"garbage":  "not a creds file s3cret\n",
		"jwt only": "-----BEGIN NATS USER JWT-----\neyJhbGciOiJlZDI1NTE5In0.eyJzdWIiOiJVQSJ9.c2ln\n------END NATS USER JWT------\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runWithin(t, 20*time.Second, "worker", "-name", "w1", "-nats", e.URL(), "-creds", path)
		if code == 0 || !strings.Contains(errs, "-creds") || !strings.Contains(errs, path) || strings.Contains(out+errs, "s3cret") {
			t.Errorf("%s: code %d, stdout %q, stderr %q: want a failure naming -creds and the file", name, code, out, errs)
		}
	}
	code, _, errs := runWithin(t, 20*time.Second, "worker", "-name", "w1", "-nats", e.URL(), "-creds", filepath.Join(dir, "missing"))
	if code == 0 || !strings.Contains(errs, "-creds") {
		t.Errorf("missing file: code %d, stderr %q", code, errs)
	}
}
