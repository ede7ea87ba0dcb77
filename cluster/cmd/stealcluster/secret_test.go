package main

import (
	"strings"
	"testing"
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
