package main

import (
	"runtime"
	"slices"
	"sync/atomic"
)

// counter is a task's "few ns of work" and the count a workload checks.
type counter struct{ n atomic.Int64 }

func (c *counter) add() int64  { return c.n.Add(1) }
func (c *counter) load() int64 { return c.n.Load() }

// liveBytes is the live heap plus goroutine stacks after a full GC.
func liveBytes() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}

// sortCutoff is the slice length at or below which every sort
// implementation sorts sequentially (slices.Sort) instead of forking.
const sortCutoff = 2048

func sortLeaf(a []int) { slices.Sort(a) }

// merge merges the sorted a[:m] and a[m:] through tmp (len(tmp) == len(a)).
func merge(a, tmp []int, m int) {
	copy(tmp, a)
	i, j, k := 0, m, 0
	for i < m && j < len(tmp) {
		if tmp[j] < tmp[i] {
			a[k] = tmp[j]
			j++
		} else {
			a[k] = tmp[i]
			i++
		}
		k++
	}
	k += copy(a[k:], tmp[i:m])
	copy(a[k:], tmp[j:])
}
