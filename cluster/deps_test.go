package cluster

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoServerLinked: the package links no nats-server; a program that
// runs only workers and clients stays free of it. The embedded server is
// in package natsserver.
func TestNoServerLinked(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/nats-io/nats-server") {
			t.Errorf("package cluster depends on %s", dep)
		}
	}
	if !strings.Contains(string(out), "github.com/nats-io/nats.go") {
		t.Errorf("go list -deps lists no nats.go: not the package's dependencies?\n%s", out)
	}
}
