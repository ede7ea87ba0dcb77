package deque_test

import (
	"fmt"

	"github.com/worksteal/steal/deque"
)

func ptr(v int) *int { return &v }

func ExampleNew() {
	d := deque.New[int]() // the calling goroutine is the owner
	for i := 1; i <= 4; i++ {
		d.Push(ptr(i))
	}
	fmt.Println("len", d.Len())
	fmt.Println("owner pops the newest:", *d.Pop())
	fmt.Println("a thief steals the oldest:", *d.Steal())
	fmt.Println("len", d.Len())
	// Output:
	// len 4
	// owner pops the newest: 4
	// a thief steals the oldest: 1
	// len 2
}

func ExampleDeque_Pop() {
	d := deque.New[string]()
	a, b := "a", "b"
	d.Push(&a)
	d.Push(&b)
	fmt.Println(*d.Pop(), *d.Pop(), d.Pop())
	// Output: b a <nil>
}

func ExampleDeque_Steal() {
	d := deque.New[string]()
	a, b := "a", "b"
	d.Push(&a)
	d.Push(&b)
	fmt.Println(*d.Steal(), *d.Steal(), d.Steal())
	// Output: a b <nil>
}

func ExampleDeque_StealHalf() {
	victim, mine := deque.New[int](), deque.New[int]()
	for i := 1; i <= 7; i++ {
		victim.Push(ptr(i))
	}
	// 7 - 7/2 = 4 items: the oldest is returned, three go onto mine.
	first := victim.StealHalf(mine)
	fmt.Println("run now:", *first)
	fmt.Println("victim keeps", victim.Len(), "and I hold", mine.Len())
	for x := mine.Pop(); x != nil; x = mine.Pop() {
		fmt.Print(*x, " ")
	}
	fmt.Println()
	// Output:
	// run now: 1
	// victim keeps 3 and I hold 3
	// 4 3 2
}

func ExampleRing_Get() {
	var r deque.Ring[int] // the zero Ring is empty and ready
	for i := 1; i <= 3; i++ {
		r.Put(ptr(i))
	}
	fmt.Println("len", r.Len())
	fmt.Println("owner gets the oldest:", *r.Get())
	// Output:
	// len 3
	// owner gets the oldest: 1
}

func ExampleRing_Put() {
	var r deque.Ring[int]
	var global []*int // where a scheduler would move an overflow batch
	for i := 1; i <= deque.RingSize+1; i++ {
		if batch := r.Put(ptr(i)); batch != nil {
			global = append(global, batch...) // copy: batch is valid until the next Put
		}
	}
	fmt.Println("ring", r.Len(), "global", len(global))
	fmt.Println("global runs", *global[0], "...", *global[len(global)-1])
	fmt.Println("ring runs", *r.Get(), "next")
	// Output:
	// ring 128 global 129
	// global runs 1 ... 257
	// ring runs 129 next
}

func ExampleRing_StealHalf() {
	var victim, mine deque.Ring[int]
	for i := 1; i <= 10; i++ {
		victim.Put(ptr(i))
	}
	// 10 - 10/2 = 5 items: the oldest is returned, four go into mine.
	first := victim.StealHalf(&mine)
	fmt.Println("run now:", *first)
	fmt.Println("victim keeps", victim.Len(), "and I hold", mine.Len())
	for x := mine.Get(); x != nil; x = mine.Get() {
		fmt.Print(*x, " ")
	}
	fmt.Println()
	// Output:
	// run now: 1
	// victim keeps 5 and I hold 4
	// 2 3 4 5
}

func ExampleDeque_Push() {
	d := deque.New[string]()
	for _, s := range []string{"x", "y"} {
		d.Push(&s) // pointers: Push neither copies nor allocates per item
	}
	fmt.Println(d.Len(), *d.Pop())
	// Output: 2 y
}

func ExampleDeque_Len() {
	d := deque.New[int]()
	fmt.Println(d.Len())
	d.Push(ptr(1))
	d.Push(ptr(2))
	d.Steal()
	fmt.Println(d.Len())
	// Output:
	// 0
	// 1
}

func ExampleRing_Len() {
	var r deque.Ring[int]
	r.Put(ptr(1))
	r.Put(ptr(2))
	fmt.Println(r.Len())
	r.Get()
	fmt.Println(r.Len())
	// Output:
	// 2
	// 1
}

func ExampleRing_PutBatch() {
	var r deque.Ring[string]
	batch := []*string{new(string), new(string), new(string)}
	*batch[0], *batch[1], *batch[2] = "a", "b", "c"
	fmt.Println(r.PutBatch(batch), r.Len()) // one publishing store for the lot
	fmt.Println(*r.Get())
	// Output:
	// 3 3
	// a
}

func ExampleDeque_PopIf() {
	d := deque.New[string]()
	a, b := "a", "b"
	d.Push(&a)
	d.Push(&b)
	fmt.Println(d.PopIf(&a)) // a is not the newest: nothing taken
	fmt.Println(d.PopIf(&b), d.Len())
	// Output:
	// false
	// true 1
}

func ExampleDeque_Bottom() {
	d := deque.New[int]()
	d.Push(ptr(1))
	mark := d.Bottom() // items at mark and above were pushed after this
	d.Push(ptr(2))
	d.Push(ptr(3))
	fmt.Println("pushed since:", d.Bottom()-mark)
	// Output: pushed since: 2
}
