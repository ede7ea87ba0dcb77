package main

// sequential: the same work in a loop on the calling goroutine, where that
// means something: the floor the pools' overhead is measured against.

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

func sortSeq(a, tmp []int) {
	if len(a) <= sortCutoff {
		sortLeaf(a)
		return
	}
	m := len(a) / 2
	sortSeq(a[:m], tmp[:m])
	sortSeq(a[m:], tmp[m:])
	merge(a, tmp, m)
}

func spawnSeq(r *Run) (int64, error) {
	var count counter
	task := func() { count.add() }
	for range r.Param {
		task()
	}
	return count.load(), nil
}

func chainedSeq(r *Run) (int64, error) {
	n := int64(r.Param)
	var count counter
	for count.add() < n {
	}
	return count.load(), nil
}

func nestedSeq(r *Run) (int64, error) {
	var leaves counter
	var node func(depth int)
	node = func(depth int) {
		if depth == 0 {
			leaves.add()
			return
		}
		for range fanOut {
			node(depth - 1)
		}
	}
	node(r.Param)
	return leaves.load(), nil
}

func imbalancedSeq(r *Run) (int64, error) {
	data := imbalancedData(r.Param)
	var sum int64
	r.Start()
	for range imbalancedTasks {
		sum += sumInts(data)
	}
	return sum, nil
}

func idleSeq(r *Run) (int64, error) {
	var count counter
	for range idleBatch {
		count.add()
	}
	measureIdle(r)
	return count.load(), nil
}
