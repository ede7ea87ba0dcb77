package sim

import (
	"math/rand/v2"

	"github.com/worksteal/steal/coord"
)

// victims keeps, as deque lengths change, what the victim policies need to
// choose in O(1) or O(log W) instead of scanning every worker: the set of
// workers with a queued job (for random and best of two) and a tournament
// tree over the lengths (for most loaded, maintained only under that
// policy since it costs O(log W) per change).
type victims struct {
	policy  coord.VictimPolicy
	lens    []int   // deque length per worker
	members []int32 // workers with lens > 0, in no particular order
	slot    []int32 // position in members, -1 when absent
	tree    []int32 // tree[1] is the longest worker; leaves from len(tree)/2
}

func newVictims(workers int, policy coord.VictimPolicy) *victims {
	v := &victims{policy: policy, lens: make([]int, workers), slot: make([]int32, workers)}
	for i := range v.slot {
		v.slot[i] = -1
	}
	if policy == coord.MostLoaded {
		leaves := 1
		for leaves < workers {
			leaves *= 2
		}
		v.tree = make([]int32, 2*leaves)
		for i := range leaves {
			v.tree[leaves+i] = int32(min(i, workers-1)) // padding repeats the last
		}
		for i := leaves - 1; i > 0; i-- {
			v.tree[i] = v.tree[2*i]
		}
	}
	return v
}

// set records worker w's new deque length.
func (v *victims) set(w int32, n int) {
	was := v.lens[w]
	v.lens[w] = n
	switch {
	case was == 0 && n > 0:
		v.slot[w] = int32(len(v.members))
		v.members = append(v.members, w)
	case was > 0 && n == 0:
		last := v.members[len(v.members)-1]
		v.members[v.slot[w]], v.slot[last] = last, v.slot[w]
		v.members = v.members[:len(v.members)-1]
		v.slot[w] = -1
	}
	if v.tree != nil {
		v.replay(w)
	}
}

// replay recomputes the winners on the path from w's leaf to the root;
// ties go to the lower worker index, like coord.MostLoaded.
func (v *victims) replay(w int32) {
	for i := (len(v.tree)/2 + int(w)) / 2; i > 0; i /= 2 {
		a, b := v.tree[2*i], v.tree[2*i+1]
		if v.lens[b] > v.lens[a] || v.lens[b] == v.lens[a] && b < a {
			a = b
		}
		v.tree[i] = a
	}
}

// choose returns a worker with a queued job, or -1 when there is none.
func (v *victims) choose(r *rand.Rand) int32 {
	n := len(v.members)
	if n == 0 {
		return -1
	}
	switch v.policy {
	case coord.MostLoaded:
		return v.tree[1]
	case coord.BestOfTwo:
		if n == 1 {
			return v.members[0]
		}
		// Two distinct members, as coord.BestOfTwo draws them: the same
		// one twice would be a random pick, not a comparison.
		i, j := r.IntN(n), r.IntN(n-1)
		if j >= i {
			j++
		}
		a, b := v.members[i], v.members[j]
		if v.lens[b] > v.lens[a] || v.lens[b] == v.lens[a] && b < a {
			return b // ties go to the lower index, like coord's
		}
		return a
	default:
		return v.members[r.IntN(n)]
	}
}
