package sim

import "testing"

func TestSpawnChildrenIsDeterministicAndBounded(t *testing.T) {
	s := Spawn{Prob: 0.5, Children: 3, Depth: 2}
	spawned := 0
	for k := range uint64(10000) {
		n := s.children(Task{Key: k}, 1)
		if n != s.children(Task{Key: k}, 1) {
			t.Fatal("children not deterministic")
		}
		if n != 0 && n != 3 {
			t.Fatalf("children = %d, want 0 or 3", n)
		}
		if n > 0 {
			spawned++
		}
		if s.children(Task{Key: k, Depth: 2}, 1) != 0 {
			t.Fatal("a job at the depth limit spawned")
		}
	}
	if spawned < 4700 || spawned > 5300 {
		t.Fatalf("%d of 10000 spawned with probability 0.5", spawned)
	}
	if (Spawn{}).children(Task{}, 0) != 0 {
		t.Fatal("zero Spawn spawned")
	}
	if childKey(1, 0) == childKey(1, 1) || childKey(1, 0) == childKey(2, 0) {
		t.Fatal("child keys collide")
	}
}
