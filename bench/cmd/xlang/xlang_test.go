package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a stand-in for the Rust and Java
// programs when XLANG_FAKE is set: it prints XLANG_FAKE with its arguments
// substituted for $1..$6, or sleeps if XLANG_FAKE is "sleep".
func TestMain(m *testing.M) {
	if f := os.Getenv("XLANG_FAKE"); f != "" {
		if f == "sleep" {
			time.Sleep(time.Minute)
		}
		if log := os.Getenv("XLANG_FAKE_LOG"); log != "" && len(os.Args) > 2 {
			if lf, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
				fmt.Fprintln(lf, os.Args[2])
				lf.Close()
			}
		}
		for i, a := range os.Args[1:] {
			f = strings.ReplaceAll(f, fmt.Sprintf("$%d", i+1), a)
		}
		fmt.Println("some other output")
		fmt.Println(f)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fake(t *testing.T, out string) toolchain {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return toolchain{Lang: "rust", argv: []string{exe}, env: []string{"XLANG_FAKE=" + out}}
}

// TestMeasureAllInterleaves: each round runs every implementation once,
// starting one later each round, and collects a sample per process.
func TestMeasureAllInterleaves(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	out := `{"result":55,"ns":[7,7,7]}`
	rust, java := fake(t, out), fake(t, out)
	java.Lang = "java"
	rust.env = append(rust.env, "XLANG_FAKE_LOG="+log)
	java.env = append(java.env, "XLANG_FAKE_LOG="+log)
	k, _ := newKernel("fib", 10)
	o := options{runs: 2, set: testSettings, impls: []string{"rust-seq", "rayon-join", "java-seq", "java-invokeall"}}
	rs := measureAll(o, []kernel{k}, []toolchain{rust, java, {Lang: "go", Skipped: "test"}})
	b, _ := os.ReadFile(log)
	want := "rust-seq rayon-join java-seq java-invokeall rayon-join java-seq java-invokeall rust-seq"
	if got := strings.Join(strings.Fields(string(b)), " "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if len(rs) != 4 || rs.failed() {
		t.Fatalf("results %+v", rs)
	}
	for _, c := range rs {
		if !slices.Equal(c.Samples, []int64{7, 7}) {
			t.Errorf("%s: samples %v, want two of 7", c.Impl, c.Samples)
		}
	}
}

var testSettings = settings{Warmup: 2, Reps: 3, Threads: 2, Timeout: 20 * time.Second}

func TestNewKernel(t *testing.T) {
	for _, c := range []struct {
		name        string
		param       int
		want, units int64
	}{
		{"fib", 35, 9227465, 29860703}, {"fib", 0, 0, 1}, {"fib", 1, 1, 1},
		{"uts-bin", 100, 6661, 6661}, {"uts-geo", 5, 3345, 3345},
	} {
		k, err := newKernel(c.name, c.param)
		if err != nil || k.Want != c.want || k.Units != c.units {
			t.Errorf("newKernel(%s, %d) = %+v, %v; want result %d, units %d", c.name, c.param, k, err, c.want, c.units)
		}
	}
	for _, c := range []struct {
		name  string
		param int
	}{{"fib", -1}, {"fib", 46}, {"uts-geo", 15}, {"uts-bin", -1}, {"nope", 1}} {
		if _, err := newKernel(c.name, c.param); err == nil {
			t.Errorf("newKernel(%s, %d) accepted", c.name, c.param)
		}
	}
}

func TestPlan(t *testing.T) {
	names := func(list []impl) []string {
		var out []string
		for _, im := range list {
			out = append(out, im.Name)
		}
		return out
	}
	all := map[string]bool{"go": true, "rust": true, "java": true}
	if got := names(plan("fib", nil, all)); slices.Contains(got, "rayon-scope") || len(got) != 10 {
		t.Errorf("fib plan = %v: want 10, no UTS-only ones", got)
	}
	if got := names(plan("uts-bin", nil, all)); len(got) != len(impls) {
		t.Errorf("uts-bin plan = %v: want all %d", got, len(impls))
	}
	noRust := map[string]bool{"go": true, "java": true}
	if got := names(plan("uts-geo", []string{"steal-group", "rayon-join", "java-seq"}, noRust)); !slices.Equal(got, []string{"steal-group", "java-seq"}) {
		t.Errorf("filtered plan without rust = %v", got)
	}
}

// TestRunOneChecks: the program gets kernel, implementation, param,
// warm-ups, reps and threads in that order, and its result and its number
// of timings are checked.
func TestRunOneChecks(t *testing.T) {
	k, _ := newKernel("uts-bin", 100)
	im, _ := lookupImpl("rayon-scope")
	good := `{"result":6661,"ns":[30,10,20],"args":"$1 $2 $3 $4 $5 $6"}`
	for _, c := range []struct{ out, err string }{
		{good, ""},
		{`{"result":6660,"ns":[1,2,3]}`, "wrong result: got 6660, want 6661"},
		{`{"result":6661,"ns":[1,2]}`, "2 timings, want 3"},
		{`{"ns":[1,2,3]}`, "no result in output"},
		{`not json`, "no result line"},
		{`{"result":6661,"ns":[1,2,3]`, "bad result line"},
	} {
		ns, err := runOne(fake(t, c.out), im, k, testSettings)
		switch {
		case c.err == "" && (err != nil || ns != 20):
			t.Errorf("%s: %d, %v; want the median, 20", c.out, ns, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.out, err, c.err)
		}
	}
	// The arguments, echoed back where a result line should be.
	ns, err := runOne(fake(t, "$1 $2 $3 $4 $5 $6"), im, k, testSettings)
	if err == nil || !strings.Contains(err.Error(), `\nuts-bin rayon-scope 100 2 3 2"`) {
		t.Errorf("argument echo: %d, %v; want an error quoting uts-bin rayon-scope 100 2 3 2", ns, err)
	}
}

func TestRunOneTimeout(t *testing.T) {
	k, _ := newKernel("fib", 10)
	im, _ := lookupImpl("rayon-join")
	s := testSettings
	s.Timeout = 200 * time.Millisecond
	start := time.Now()
	_, err := runOne(fake(t, "sleep"), im, k, s)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestMissingToolchain: with nothing on PATH, every language is skipped
// with a message naming the missing tool and, for Rust and Java, what to
// install.
func TestMissingToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for lang, want := range map[string]string{
		"go":   "go not found on PATH",
		"rust": "cargo not found on PATH (apt-get install rustc cargo librust-rayon-dev",
		"java": "javac not found on PATH (apt-get install default-jdk-headless",
	} {
		tc := build(lang, ".", t.TempDir())
		if !strings.Contains(tc.Skipped, want) {
			t.Errorf("%s: skipped = %q, want it to say %q", lang, tc.Skipped, want)
		}
	}
}

// TestGoEndToEnd builds the bench harness and measures two fib
// implementations through it, as a run does.
func TestGoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the harness")
	}
	tc := build("go", filepath.Join("..", ".."), t.TempDir())
	if tc.Skipped != "" {
		t.Fatal(tc.Skipped)
	}
	k, _ := newKernel("fib", 20)
	for _, name := range []string{"steal-group", "go-seq"} {
		im, _ := lookupImpl(name)
		if ns, err := runOne(tc, im, k, testSettings); err != nil || ns <= 0 {
			t.Errorf("%s: %d, %v", name, ns, err)
		}
	}
	bad := impl{Name: "x", Lang: "go", Arg: "nope"}
	if _, err := runOne(tc, bad, k, testSettings); err == nil || err.Error() != "unsupported" {
		t.Errorf("a failing harness child: %v, want its error, unsupported", err)
	}
}

func TestTable(t *testing.T) {
	k, _ := newKernel("fib", 10) // 177 calls
	var rs results
	add := func(name string, samples []int64, errs ...string) {
		im, _ := lookupImpl(name)
		c := rs.get(k.Name, im)
		c.Samples, c.Errors = samples, errs
	}
	add("rayon-join", []int64{2000, 1000, 3000})
	add("steal-fork2", []int64{4000, 4000, 5000})
	add("steal-group", nil, "timeout after 10m0s")
	add("java-seq", []int64{1770}, "exit status 1: boom")
	tbl := rs.table(k)
	for _, want := range []string{
		"| `rayon-join` | rust | 2.00 µs | 1.00 µs–3.00 µs | 1.00× | 11.3 ns |",
		"| **`steal-fork2`** | go | 4.00 µs | 4.00 µs–5.00 µs | 2.00× | 22.6 ns |",
		"| **`steal-group`** | go | **failed** |  |  | timeout after 10m0s |",
		"| `java-seq` | java | 1.77 µs | 1.77 µs–1.77 µs (1 failed: exit status 1: boom) | 0.89× | 10.0 ns |",
	} {
		if !strings.Contains(tbl, want) {
			t.Errorf("table lacks %q:\n%s", want, tbl)
		}
	}
	if strings.Index(tbl, "steal-fork2`") > strings.Index(tbl, "| `rayon-join`") {
		t.Errorf("rows not in implementation order:\n%s", tbl)
	}
	if !rs.failed() {
		t.Error("failed() missed the failures")
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags(nil)
	if err != nil || o.partial || o.docSet || o.runs != 5 || o.set.Warmup != 2 || len(o.kernels) != 3 || o.impls != nil {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	for _, args := range [][]string{{"-runs", "2"}, {"-kernels", "fib"}, {"-impls", "go-seq"}, {"-b0", "10"}} {
		if o, err := parseFlags(args); err != nil || !o.partial {
			t.Errorf("%v: partial = %v, %v", args, o.partial, err)
		}
	}
	if o, _ := parseFlags([]string{"-runs", "1", "-doc", "x.md"}); !o.docSet || o.doc != "x.md" {
		t.Errorf("-doc: %+v", o)
	}
	for _, args := range [][]string{{"-runs", "0"}, {"-warmup", "0"}, {"-kernels", "fob"}, {"-impls", "rayon"}, {"-langs", "c"}} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestMarkdown(t *testing.T) {
	k, _ := newKernel("uts-bin", 100)
	var rs results
	im, _ := lookupImpl("rayon-join")
	rs.get(k.Name, im).Samples = []int64{1e6}
	r := report{Command: "cd bench && go run ./cmd/xlang -runs 1", Runs: 1, Settings: testSettings,
		Kernels: []kernel{k}, Results: rs,
		Toolchains: []toolchain{{Lang: "java", Skipped: "javac not found on PATH"}}}
	md, err := r.markdown()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go run ./cmd/xlang -runs 1\n", "### uts-bin (100: 6661 nodes)",
		"| java | skipped: javac not found on PATH |", "| `rayon-join` | rust | 1.00 ms |"} {
		if !strings.Contains(md, want) {
			t.Errorf("document lacks %q", want)
		}
	}
}

// TestRerender: the document made again from the JSON is the one written.
func TestRerender(t *testing.T) {
	k, _ := newKernel("fib", 10)
	var rs results
	im, _ := lookupImpl("steal-fork2")
	rs.get(k.Name, im).Samples = []int64{3e6, 1e6}
	r := report{Command: "x", Runs: 2, Settings: testSettings, Kernels: []kernel{k}, Results: rs,
		Machine: machine{CPU: "test cpu", LoadStart: "1 2 3"}, Toolchains: []toolchain{{Lang: "go", Version: "go test"}}}
	path := filepath.Join(t.TempDir(), "xlang.md")
	if err := r.write(path); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	os.WriteFile(path, []byte("edited"), 0o644)
	if err := rerender(path); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != string(first) || !strings.Contains(string(first), "| **`steal-fork2`** | go | 2.00 ms |") {
		t.Errorf("rerendered:\n%s\nwritten:\n%s", again, first)
	}
}

// TestRatioSpan checks the ratios the document's prose quotes: the range
// over kernels and implementations, one figure when the ends agree, and
// failed or missing cells left out.
func TestRatioSpan(t *testing.T) {
	rs := results{
		{Kernel: "a", Impl: "x", Samples: []int64{10, 20, 30}},
		{Kernel: "a", Impl: "y", Samples: []int64{40}},
		{Kernel: "a", Impl: "ref", Samples: []int64{10}},
		{Kernel: "b", Impl: "x", Samples: []int64{15}},
		{Kernel: "b", Impl: "y", Errors: []string{"boom"}},
		{Kernel: "b", Impl: "ref", Samples: []int64{10}},
		{Kernel: "c", Impl: "x", Samples: []int64{99}},
	}
	for _, tc := range []struct{ as, b, kernels, want string }{
		{"x,y", "ref", "a,b", "1.5–4.0×"}, // a: 2.0 and 4.0; b: 1.5 (y failed)
		{"x", "ref", "a", "2.0×"},
		{"x", "ref", "a,c", "2.0×"}, // c has no ref
		{"y", "ref", "b", "—"},
		{"x", "nobody", "a,b", "—"},
	} {
		if got := rs.ratioSpan(tc.as, tc.b, tc.kernels); got != tc.want {
			t.Errorf("ratioSpan(%q, %q, %q) = %q, want %q", tc.as, tc.b, tc.kernels, got, tc.want)
		}
	}
}
