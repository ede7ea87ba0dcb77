package main

import (
	"slices"
	"testing"
	"time"
)

// A tree job without children is one job whatever its depth: size and
// treeIDs must say so at once. A loop over the depth would spin for ages
// on a payload such as {"depth": 4611686018427387904, "fanout": 0},
// pinning a CPU of the worker that runs it (and keeping it from closing),
// or of cluster demo -depth 4611686018427387904 -fanout 0.
func TestTreeWithoutChildren(t *testing.T) {
	within(t, "size", func() {
		if n, err := (treeJob{Depth: 1 << 62, Fanout: 0}).size(); n != 1 || err != nil {
			t.Errorf("size: %d, %v; want 1 job", n, err)
		}
	})
	within(t, "treeIDs", func() {
		if ids := treeIDs([]string{"r"}, 1<<62, 0); !slices.Equal(ids, []string{"r"}) {
			t.Errorf("treeIDs: %v, want [r]", ids)
		}
	})
	if n, err := (treeJob{Depth: 1 << 62, Fanout: 1}).size(); err == nil {
		t.Fatalf("size of a chain of depth 1<<62: %d, want an error", n)
	}
}

// within runs f and fails the test if it does not return within 5 s.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return within 5s", what)
	}
}
