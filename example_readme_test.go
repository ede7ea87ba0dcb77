package steal_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/worksteal/steal"
)

// The code from "// Fork-join" to the end of Example_readme is the
// README's "Use the library" program after its package clause and imports,
// with main renamed; TestREADMESnippetIsExample keeps the two identical.

// Fork-join: a task may wait on its children; the waiting worker helps.
func sum(w *steal.Worker, xs []int) int {
	if len(xs) < 4096 {
		total := 0
		for _, x := range xs {
			total += x
		}
		return total
	}
	a, b := steal.Fork2(w, sum, xs[:len(xs)/2], xs[len(xs)/2:]) // no allocation
	return a + b
}

// process stands for real work on one file: here it fails on anything but .txt.
func process(w *steal.Worker, name string) error {
	if !strings.HasSuffix(name, ".txt") {
		return fmt.Errorf("process %s: not a .txt file", name)
	}
	return nil
}

func Example_readme() {
	p := steal.New() // one worker per GOMAXPROCS; idle workers park and cost nothing
	defer p.Close()  // runs everything queued, returns panics as errors

	done := make(chan struct{}) // only to print in a fixed order
	p.Go(func() { fmt.Println("fire and forget, from anywhere"); close(done) })
	<-done

	data := make([]int, 1_000_000)
	for i := range data {
		data[i] = i
	}
	var total int
	p.Run(func(w *steal.Worker) { total = sum(w, data) })
	fmt.Println("sum:", total)

	// errgroup-style, nested to any depth, cancelled on the first error:
	files := []string{"a.txt", "b.txt", "c.pdf", "d.txt"}
	var err error
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		for _, f := range files {
			g.Go(func(w *steal.Worker) error { return process(w, f) })
		}
		err = g.Wait()
	})
	fmt.Println("group:", err)
	// Output:
	// fire and forget, from anywhere
	// sum: 499999500000
	// group: process c.pdf: not a .txt file
}

// TestREADMESnippetIsExample fails when the README's library snippet and
// Example_readme differ, so that the snippet always compiles and runs.
func TestREADMESnippetIsExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Use the library")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md has no Go block under "## Use the library"`)
	}
	const header = "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\n\t\"github.com/worksteal/steal\"\n)\n\n"
	if !strings.HasPrefix(block, header) || !strings.Contains(block, "func main() {") {
		t.Fatalf("README snippet should start with %q and hold func main:\n%s", header, block)
	}
	block = strings.TrimPrefix(block, header)
	example := strings.Replace(string(src), "func Example_readme() {", "func main() {", 1)
	if !strings.Contains(example, block) {
		t.Errorf("README.md's snippet is not a copy of example_readme_test.go (with main for Example_readme):\n%s", block)
	}
}
