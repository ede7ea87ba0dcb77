// Command xlang compares fork-join in Go (steal), Rust (Rayon) and Java
// (ForkJoinPool) on the same kernels: fib with a fork on every call and
// two UTS trees with a task per child. It builds each language's program,
// then runs every implementation interleaved, round-robin, each run a
// fresh process, checks every result, and reports medians, ranges and
// ratios to Rayon. From the bench directory:
//
//	go run ./cmd/xlang -runs 5          # everything; rewrites ../docs/xlang.md
//	go run ./cmd/xlang -runs 3 -kernels fib -impls steal-fork2,rayon-join
//
// A language whose toolchain is missing (cargo and rustc, or javac and
// java) is skipped with a message saying what to install; the Go side
// needs only Go. See xlang/README.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

type options struct {
	runs            int
	set             settings
	kernels, impls  []string
	langs           []string
	params          map[string]int
	doc             string
	docSet, partial bool
	rerender        bool
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "xlang:", err)
		os.Exit(2)
	}
	if o.rerender {
		err = rerender(o.doc)
	} else {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "xlang:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("xlang", flag.ContinueOnError)
	var o options
	fs.IntVar(&o.runs, "runs", 5, "rounds: each implementation runs once per round, in a fresh process")
	fs.IntVar(&o.set.Warmup, "warmup", 2, "untimed iterations at the start of each process (at least 1)")
	fs.IntVar(&o.set.Reps, "reps", 1, "timed iterations per process; a process's figure is their median")
	fs.IntVar(&o.set.Threads, "threads", runtime.NumCPU(), "workers in every pool (GOMAXPROCS, Rayon, ForkJoinPool)")
	fs.DurationVar(&o.set.Timeout, "timeout", 10*time.Minute, "limit per process")
	kernels := fs.String("kernels", strings.Join(kernelNames, ","), "kernels to run")
	implList := fs.String("impls", "", "implementations to run (default all): "+strings.Join(implNames(), ","))
	langList := fs.String("langs", strings.Join(langs, ","), "languages to build and run")
	fib := fs.Int("fib", 35, "fib: n")
	b0 := fs.Int("b0", 2000, "uts-bin: the root's children")
	depth := fs.Int("depth", 10, "uts-geo: the depth limit")
	fs.StringVar(&o.doc, "doc", "../docs/xlang.md", "where a complete run writes its document (and the .json beside it);\n"+
		"a partial run (a subset, other sizes, fewer than 3 runs) writes it only if -doc is given")
	fs.BoolVar(&o.rerender, "rerender", false, "rewrite the document from the .json beside it, without measuring")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.params = map[string]int{"fib": *fib, "uts-bin": *b0, "uts-geo": *depth}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "doc":
			o.docSet = true
		case "kernels", "impls", "langs", "fib", "b0", "depth", "threads":
			o.partial = true
		}
	})
	o.partial = o.partial || o.runs < 3
	o.kernels, o.langs = split(*kernels), split(*langList)
	if *implList != "" {
		o.impls = split(*implList)
	}
	return o, o.check()
}

func (o *options) check() error {
	if o.runs < 1 || o.set.Warmup < 1 || o.set.Reps < 1 || o.set.Threads < 1 {
		return fmt.Errorf("-runs, -warmup, -reps and -threads must be at least 1")
	}
	for _, k := range o.kernels {
		if !slices.Contains(kernelNames, k) {
			return fmt.Errorf("unknown kernel %q (have %s)", k, strings.Join(kernelNames, ", "))
		}
	}
	for _, im := range o.impls {
		if _, ok := lookupImpl(im); !ok {
			return fmt.Errorf("unknown implementation %q (have %s)", im, strings.Join(implNames(), ", "))
		}
	}
	for _, l := range o.langs {
		if !slices.Contains(langs, l) {
			return fmt.Errorf("unknown language %q (have %s)", l, strings.Join(langs, ", "))
		}
	}
	return nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func implNames() []string {
	var out []string
	for _, im := range impls {
		out = append(out, im.Name)
	}
	return out
}

// run builds, measures, prints and (for a complete run, or with -doc)
// writes the document. It fails if the directory is wrong, no language
// builds, or any process failed (after writing what it has).
func run(o options) error {
	if _, err := os.Stat(filepath.Join("xlang", "rust", "Cargo.toml")); err != nil {
		return fmt.Errorf("run me from the bench directory (cd bench && go run ./cmd/xlang): %v", err)
	}
	var ks []kernel
	for _, name := range o.kernels {
		k, err := newKernel(name, o.params[name])
		if err != nil {
			return err
		}
		ks = append(ks, k)
	}
	m := describeMachine()
	tcs, err := buildAll(o)
	if err != nil {
		return err
	}
	rs := measureAll(o, ks, tcs)
	m.LoadEnd = loadavg()
	rep := report{Machine: m, Command: command0(), Runs: o.runs, Settings: o.set, Kernels: ks, Toolchains: tcs, Results: rs}
	for _, k := range ks {
		fmt.Printf("\n%s (%d)\n\n%s", k.Name, k.Param, rs.table(k))
	}
	if o.docSet || !o.partial {
		if err := rep.write(o.doc); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "wrote", o.doc)
	} else {
		fmt.Fprintln(os.Stderr, "a partial run: not writing", o.doc, "(give -doc to write it anyway)")
	}
	if rs.failed() {
		return fmt.Errorf("some runs failed (see the tables)")
	}
	return nil
}

// command0 is the command line of this run, as the document quotes it.
func command0() string {
	return strings.Join(append([]string{"cd bench && go run ./cmd/xlang"}, os.Args[1:]...), " ")
}

// buildAll builds the languages of the chosen implementations into
// xlang/build; it fails only if none builds.
func buildAll(o options) ([]toolchain, error) {
	out, err := filepath.Abs(filepath.Join("xlang", "build"))
	if err != nil {
		return nil, err
	}
	var tcs []toolchain
	built := 0
	for _, lang := range o.langs {
		if !slices.ContainsFunc(impls, func(im impl) bool {
			return im.Lang == lang && (o.impls == nil || slices.Contains(o.impls, im.Name))
		}) {
			continue
		}
		fmt.Fprintf(os.Stderr, "building %s ... ", lang)
		tc := build(lang, ".", out)
		if tc.Skipped != "" {
			fmt.Fprintf(os.Stderr, "skipping %s: %s\n", lang, tc.Skipped)
		} else {
			fmt.Fprintln(os.Stderr, tc.Version)
			built++
		}
		tcs = append(tcs, tc)
	}
	if built == 0 {
		return nil, fmt.Errorf("nothing to run: no chosen language built")
	}
	return tcs, nil
}

// measureAll runs every round: in each, every kernel, and for each kernel
// every implementation once, starting one later in the list each round.
func measureAll(o options, ks []kernel, tcs []toolchain) results {
	byLang := map[string]toolchain{}
	have := map[string]bool{}
	for _, tc := range tcs {
		if tc.Skipped == "" {
			byLang[tc.Lang], have[tc.Lang] = tc, true
		}
	}
	var rs results
	for round := range o.runs {
		for _, k := range ks {
			list := plan(k.Name, o.impls, have)
			for i := range list {
				im := list[(i+round)%len(list)]
				fmt.Fprintf(os.Stderr, "round %d/%d  %-8s %-15s ", round+1, o.runs, k.Name, im.Name)
				c := rs.get(k.Name, im)
				ns, err := runOne(byLang[im.Lang], im, k, o.set)
				if err != nil {
					c.Errors = append(c.Errors, err.Error())
					fmt.Fprintln(os.Stderr, "FAILED:", firstLine(err.Error()))
					continue
				}
				c.Samples = append(c.Samples, ns)
				fmt.Fprintln(os.Stderr, fmtNs(ns))
			}
		}
	}
	return rs
}
