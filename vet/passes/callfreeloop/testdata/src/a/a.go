package a

import (
	"sync/atomic"
	"time"
	"unsafe"
)

var done bool

func busyWaitFlag() {
	go func() { done = true }()
	for !done { // want `call-free busy-wait: nothing this loop writes can end it`
	}
}

func busyWaitCounting(x *int) int {
	i := 0
	for *x == 0 { // want `call-free busy-wait`
		i++
	}
	return i
}

func spinCounting() {
	n := 0
	for { // want `call-free infinite loop`
		n++
	}
}

var stop bool

func guardedBreak() int {
	n := 0
	for { // want `call-free busy-wait`
		if stop {
			break
		}
		n++
	}
	return n
}

type state struct {
	ready bool
	spins int
}

func fieldWait(s *state) {
	for !s.ready { // want `call-free busy-wait`
		s.spins++
	}
}

func arithmeticOnly(flag bool, b, c int) int {
	a := 0
	for flag { // want `call-free busy-wait`
		a = b*2 + c
	}
	return a
}

func labeled(quit *bool) {
	n := 0
outer:
	for { // want `call-free busy-wait`
		switch {
		case *quit:
			break outer
		}
		n++
	}
	_ = n
}

func constantTrue() {
	for true { // want `call-free infinite loop`
	}
}

func returnsWhenSet(flag *int32) {
	for { // want `call-free busy-wait`
		if *flag != 0 {
			return
		}
	}
}

// Negative look-alikes.

func counting(a []int) int {
	sum := 0
	for i := 0; i < len(a); i++ {
		sum += a[i]
	}
	return sum
}

type node struct{ next *node }

func walk(p *node) int {
	n := 0
	for p != nil {
		p = p.next
		n++
	}
	return n
}

func exitOnCount() int {
	i := 0
	for {
		if i > 10 {
			break
		}
		i++
	}
	return i
}

func sleeps() {
	for !done {
		time.Sleep(time.Millisecond)
	}
}

func atomicSpin(flag *atomic.Bool) {
	for !flag.Load() {
	}
}

func receives(ch chan int) int {
	n := 0
	for {
		v := <-ch
		if v == 0 {
			return n
		}
		n += v
	}
}

func selects(ch chan int) {
	for {
		select {
		case <-ch:
			return
		default:
		}
	}
}

func aliased() int {
	x := 0
	p := &x
	for *p < 10 {
		x++
	}
	return x
}

func heap(a, b []int) {
	for a[0] == 0 {
		b[0]++
	}
}

func crash() {
	for {
		*(*int)(nil) = 0 // faults on the first iteration
	}
}

// The same store through a nil pointer, spelled through unsafe.Pointer.
func crashUnsafe() {
	for {
		*(*int)(unsafe.Pointer(nil)) = 0
	}
}

func once() int {
	n := 0
	for {
		n++
		break
	}
	return n
}

func never() {
	for false {
	}
}

func stateMachine() int {
	state, n := 0, 0
	for {
		switch state {
		case 0:
			state = 1
		case 1:
			return n
		}
		n++
	}
}

func ranges(a []int) int {
	n := 0
	for range a {
		n++
	}
	return n
}

func gotoOut(x *int) {
	for {
		if *x == 0 {
			goto out
		}
	}
out:
}

func crashNilVar() {
	for {
		var x *int32
		*x = 0
	}
}

func mustNotReturn() int {
	panic("unreachable")
	for {
	}
}

func noReturn() { panic("always") }

func afterNoReturn() int {
	noReturn()
	for {
	}
}

// Ranging over a type parameter whose core type is a channel receives.
func genericRange[C ~chan int](c C) {
	for {
		for range c {
		}
	}
}
