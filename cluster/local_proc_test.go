package cluster

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestKillMidTree: a worker process killed with SIGKILL in the middle of a
// tree of spawning jobs loses none of them. Children it held only in
// memory are spawned again by the re-run of their anchor (the nearest
// ancestor with a record), and children of completed parents have
// records; every job of the tree completes exactly once and no record is
// left.
func TestKillMidTree(t *testing.T) {
	h, kids, _ := procCluster(t)
	const depth = 7 // 255 jobs of 10 ms
	ids := treeIDs("t", depth)
	if err := h.client.Submit(context.Background(), "t", "tree", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "30 completions", func() bool { return h.count("d.>") >= 30 })
	if err := kids["w1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	atKill := h.count("d.>")
	byW1 := 0
	for _, id := range ids {
		r := h.wait(id)
		if r.Err != nil {
			t.Fatalf("%s: recorded by %s, err %v", id, r.Worker, r.Err)
		}
		if r.Worker == "w1" {
			byW1++
		}
	}
	t.Logf("killed w1 at %d of %d completions; w1 recorded %d", atKill, len(ids), byW1)
	if atKill >= len(ids) || byW1 == 0 {
		t.Fatalf("the kill did not land mid-tree: %d of %d completed, %d by w1", atKill, len(ids), byW1)
	}
	checkQuiet(t, h, len(ids))
}
