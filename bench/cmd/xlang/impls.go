package main

import (
	"fmt"
	"slices"

	"github.com/worksteal/steal/bench/internal/uts"
)

// kernel is one algorithm every language runs with the same parameter.
type kernel struct {
	Name  string `json:"name"`
	Param int    `json:"param"`
	Want  int64  `json:"want"` // the result every implementation must print
	Units int64  `json:"units"`
	Unit  string `json:"unit"` // what Units counts: calls or nodes
}

// kernelNames in the order they run and are reported.
var kernelNames = []string{"fib", "uts-bin", "uts-geo"}

// newKernel computes what the kernel must return for param, and how many
// calls or nodes that is.
func newKernel(name string, param int) (kernel, error) {
	k := kernel{Name: name, Param: param}
	switch name {
	case "fib":
		if param < 0 || param > 45 {
			return k, fmt.Errorf("fib: n = %d, want 0..45", param)
		}
		k.Want, k.Units, k.Unit = fib(param), 2*fib(param+1)-1, "call"
	case "uts-bin", "uts-geo":
		if param < 0 || (name == "uts-geo" && param > 14) {
			return k, fmt.Errorf("%s: param %d out of range", name, param)
		}
		t := uts.Binomial(param)
		if name == "uts-geo" {
			t = uts.Geometric(param)
		}
		k.Want = t.Count(t.Root())
		k.Units, k.Unit = k.Want, "node"
	default:
		return k, fmt.Errorf("unknown kernel %q (have %v)", name, kernelNames)
	}
	return k, nil
}

// fib is the n-th Fibonacci number, by iteration.
func fib(n int) int64 {
	a, b := int64(0), int64(1)
	for range n {
		a, b = b, a+b
	}
	return a
}

// impl is one implementation: a program of one language and the name that
// program knows it by.
type impl struct {
	Name    string // in tables and flags
	Lang    string // go, rust or java
	Arg     string // the harness's implementation name, or the program's argument
	UTSOnly bool
	How     string // how it forks, for the document
}

// impls in the order of the tables.
var impls = []impl{
	{"go-seq", "go", "sequential", false, "plain recursion"},
	{"steal-fork2", "go", "steal", false, "`Fork2`: fib(n-1) and fib(n-2); UTS: the two halves of a node's children, down to one child"},
	{"steal-join", "go", "steal-join", false, "`Join` with closures, split as steal-fork2"},
	{"steal-spawn", "go", "steal-spawn", false, "`Spawn` + `Future.Wait`: fib(n-1) spawned, fib(n-2) called; UTS: a `Spawn` per child, then a `Wait` for each"},
	{"steal-group", "go", "steal-group", false, "`NewGroup` per call or node, a `Go` per child (two for fib), `Wait`"},
	{"rust-seq", "rust", "rust-seq", false, "plain recursion"},
	{"rayon-join", "rust", "rayon-join", false, "`rayon::join`, split as steal-fork2"},
	{"rayon-par_iter", "rust", "rayon-par_iter", true, "`(0..k).into_par_iter().map(child).sum()` per node; Rayon splits the range"},
	{"rayon-scope", "rust", "rayon-scope", true, "`rayon::scope` per node, `s.spawn` per child adding to an `AtomicU64`"},
	{"java-seq", "java", "java-seq", false, "plain recursion"},
	{"java-forkjoin", "java", "java-forkjoin", false, "`RecursiveTask`: fib as its javadoc (fork f1, compute f2, join f1); UTS: fork every child, join newest first"},
	{"java-invokeall", "java", "java-invokeall", false, "`RecursiveTask` with `invokeAll(f1, f2)`; UTS: `invokeAll(children)`"},
}

// reference is the implementation ratios are taken to.
const reference = "rayon-join"

// langs in the order they are built.
var langs = []string{"go", "rust", "java"}

// plan lists the implementations of kernel k among those chosen.
func plan(k string, chosen []string, have map[string]bool) []impl {
	var out []impl
	for _, im := range impls {
		if im.UTSOnly && k == "fib" || !have[im.Lang] {
			continue
		}
		if chosen == nil || slices.Contains(chosen, im.Name) {
			out = append(out, im)
		}
	}
	return out
}

func lookupImpl(name string) (impl, bool) {
	for _, im := range impls {
		if im.Name == name {
			return im, true
		}
	}
	return impl{}, false
}
