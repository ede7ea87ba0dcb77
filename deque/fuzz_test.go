package deque

import (
	"slices"
	"testing"
)

// The fuzz targets drive two queues from one goroutine (each the owner of
// one, stealing into the other) with a sequence of operations decoded from
// the input, and compare every result with a slice model. Their seed corpus
// runs in every go test; go test -fuzz FuzzDeque (or FuzzRing) explores.

var fuzzSeeds = [][]byte{
	{},
	{0, 0, 0, 4, 4, 4, 4},
	{1, 3, 200, 6, 6, 6, 6, 7, 255},
	{2, 3, 100, 3, 100, 3, 100, 7, 250, 7, 250, 4},
	{3, 0, 1, 2, 5, 13, 6, 14, 3, 40, 8, 9, 10, 11, 12, 15, 6, 6, 4, 5},
	{0, 3, 255, 3, 255, 3, 255, 14, 6, 15, 7, 255, 7, 255, 7, 255, 7, 255, 4},
	{2, 11, 11, 3, 33, 6, 14, 3, 65, 13, 6, 6, 6, 15, 15, 12, 12},
}

// fuzzModel is the sequential model of one queue: items, oldest first.
type fuzzModel []int

func (m *fuzzModel) newest() (int, bool) {
	if len(*m) == 0 {
		return 0, false
	}
	x := (*m)[len(*m)-1]
	*m = (*m)[:len(*m)-1]
	return x, true
}

func (m *fuzzModel) oldest(k int) []int {
	out := slices.Clone((*m)[:k])
	*m = (*m)[k:]
	return out
}

func FuzzDeque(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		var q [2]*Deque[int]
		var m [2]fuzzModel
		for i := range q {
			q[i] = New[int]()
			q[i].startAt(startIndices[int(data[0])%len(startIndices)] + uint32(i)*3)
		}
		next := 1
		push := func(i int) {
			p := new(int)
			*p = next
			q[i].Push(p)
			m[i] = append(m[i], next)
			next++
		}
		for pc := 1; pc < len(data); pc++ {
			op, i := data[pc]%8, int(data[pc]/8)%2
			arg := 0
			if (op == 3 || op == 7) && pc+1 < len(data) {
				pc++
				arg = int(data[pc])
			}
			switch op {
			case 0, 1, 2:
				push(i)
			case 3: // a burst, to grow the buffer
				for range arg {
					push(i)
				}
			case 4:
				want, ok := m[i].newest()
				if got := q[i].Pop(); val(got) != want || (got != nil) != ok {
					t.Fatalf("op %d: Pop = %d, want %d", pc, val(got), want)
				}
			case 5:
				var want int
				if len(m[i]) > 0 {
					want = m[i].oldest(1)[0]
				}
				if got := q[i].Steal(); val(got) != want {
					t.Fatalf("op %d: Steal = %d, want %d", pc, val(got), want)
				}
			case 6: // StealHalf from q[i] into q[1-i]
				n := len(m[i])
				got := q[i].StealHalf(q[1-i])
				if n == 0 {
					if got != nil {
						t.Fatalf("op %d: StealHalf of an empty deque = %d", pc, val(got))
					}
					break
				}
				want := m[i].oldest(min(n-n/2, MaxBatch))
				if val(got) != want[0] {
					t.Fatalf("op %d: StealHalf = %d, want %d", pc, val(got), want[0])
				}
				m[1-i] = append(m[1-i], want[1:]...)
			case 7: // pop a burst, to shrink the buffer
				for range arg {
					want, _ := m[i].newest()
					if got := q[i].Pop(); val(got) != want {
						t.Fatalf("op %d: Pop = %d, want %d", pc, val(got), want)
					}
				}
			}
			for j := range q {
				if q[j].Len() != len(m[j]) {
					t.Fatalf("op %d: deque %d: Len = %d, model holds %d", pc, j, q[j].Len(), len(m[j]))
				}
				c := len(q[j].buf.Load().slots)
				if c < minCap || c&(c-1) != 0 || c < len(m[j]) {
					t.Fatalf("op %d: deque %d: buffer of %d slots holds %d items", pc, j, c, len(m[j]))
				}
			}
		}
		// Drain both and compare what is left.
		for j := range q {
			for len(m[j]) > 0 {
				want := m[j].oldest(1)[0]
				if got := q[j].Steal(); val(got) != want {
					t.Fatalf("drain: Steal = %d, want %d", val(got), want)
				}
			}
			if q[j].Pop() != nil || q[j].Steal() != nil {
				t.Fatal("drained deque not empty")
			}
		}
	})
}

func FuzzRing(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		var q [2]*Ring[int]
		var m [2]fuzzModel
		for i := range q {
			q[i] = new(Ring[int])
			q[i].startAt(startIndices[int(data[0])%len(startIndices)] + uint32(i)*100)
		}
		next := 1
		put := func(pc, i int) {
			p := new(int)
			*p = next
			m[i] = append(m[i], next)
			next++
			batch := q[i].Put(p)
			if len(m[i]) <= RingSize {
				if batch != nil {
					t.Fatalf("op %d: Put into a ring of %d overflowed", pc, len(m[i])-1)
				}
				return
			}
			want := m[i].oldest(RingSize / 2)
			want = append(want, m[i][len(m[i])-1])
			m[i] = m[i][:len(m[i])-1]
			got := make([]int, len(batch))
			for k, x := range batch {
				got[k] = val(x)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: overflow batch %v, want %v", pc, got, want)
			}
		}
		get := func(pc, i int) {
			want := 0
			if len(m[i]) > 0 {
				want = m[i].oldest(1)[0]
			}
			if got := q[i].Get(); val(got) != want {
				t.Fatalf("op %d: Get = %d, want %d", pc, val(got), want)
			}
		}
		for pc := 1; pc < len(data); pc++ {
			op, i := data[pc]%8, int(data[pc]/8)%2
			arg := 0
			if (op == 3 || op == 7) && pc+1 < len(data) {
				pc++
				arg = int(data[pc])
			}
			switch op {
			case 0, 1, 2:
				put(pc, i)
			case 3: // a burst, to fill the ring and overflow it
				for range arg + 64 {
					put(pc, i)
				}
			case 4, 5:
				get(pc, i)
			case 6: // StealHalf from q[i] into q[1-i]
				n := len(m[i])
				got := q[i].StealHalf(q[1-i])
				if n == 0 {
					if got != nil {
						t.Fatalf("op %d: StealHalf of an empty ring = %d", pc, val(got))
					}
					break
				}
				room := RingSize - len(m[1-i]) + 1
				want := m[i].oldest(min(n-n/2, room))
				if val(got) != want[0] {
					t.Fatalf("op %d: StealHalf = %d, want %d", pc, val(got), want[0])
				}
				m[1-i] = append(m[1-i], want[1:]...)
			case 7:
				for range arg {
					get(pc, i)
				}
			}
			for j := range q {
				if q[j].Len() != len(m[j]) {
					t.Fatalf("op %d: ring %d: Len = %d, model holds %d", pc, j, q[j].Len(), len(m[j]))
				}
			}
		}
		for j := range q {
			for len(m[j]) > 0 {
				get(-1, j)
			}
			if q[j].Get() != nil {
				t.Fatal("drained ring not empty")
			}
		}
	})
}
