package steal_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documents a reader follows: the repository's Markdown files and the
// doc comments of its Go sources. TestDocLinksResolve and
// TestDocTestNamesExist check what can be checked mechanically in them.

// docFiles returns the repository's Markdown documents, relative to its root.
func docFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md", "*/README.md", "*/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if !slices.Contains(files, "README.md") || !slices.Contains(files, filepath.Join("docs", "cluster.md")) {
		t.Fatalf("found %v: not run from the repository's root?", files)
	}
	return files
}

// fullCheckout skips t unless the nested modules are here: a module zip of
// the root (what go get fetches) leaves them out, and the documents cite
// their tests and files.
func fullCheckout(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("cluster", "go.mod")); err != nil {
		t.Skip("not a full checkout of the repository (no cluster/go.mod)")
	}
}

var (
	fence    = regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// TestDocLinksResolve fails when a relative link in a Markdown document
// names a file or folder that does not exist. Links inside code are not
// links, and links to other sites are not checked.
func TestDocLinksResolve(t *testing.T) {
	fullCheckout(t)
	for _, name := range docFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpan.ReplaceAllString(fence.ReplaceAllString(string(b), ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(name), filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
			}
		}
	}
}

// testName matches a test, benchmark, example or fuzz function's name
// where it stands alone: not a field or function of another package
// (analysistest.TestData), not inside a longer word (XTestGoFiles).
var testName = regexp.MustCompile(`(^|[^.\w])((?:Test|Benchmark|Example|Fuzz)[A-Z_][\w]*)`)

// notOurs are names the documents cite that are not functions of this
// repository, each for the reason given.
var notOurs = map[string]string{
	"BenchmarkPingPongHog": "the Go runtime's proc_test.go, cited in docs/vet.md",
	"TestGoFiles":          "a field of go/build's Package, cited in docs/vet.md",
	"TestX":                "a stand-in for the reader's own test in docs/metrics.md",
}

// TestDocTestNamesExist fails when a Markdown document or a Go source's
// comment names a test, benchmark, example or fuzz function that no Go
// file of the repository declares. A name also matches the functions it
// begins (docs may cite TestContainerQuota* or -run 'TestGroup').
func TestDocTestNamesExist(t *testing.T) {
	fullCheckout(t)
	decl := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?((?:Test|Benchmark|Example|Fuzz)\w*)\(`)
	var declared []string
	cited := map[string][]string{} // name -> where
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			declared = append(declared, string(m[1]))
		}
		if !strings.HasSuffix(path, "_test.go") {
			for _, c := range goComments(string(b)) {
				for _, m := range testName.FindAllStringSubmatch(c, -1) {
					cited[m[2]] = append(cited[m[2]], path)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range docFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testName.FindAllStringSubmatch(string(b), -1) {
			cited[m[2]] = append(cited[m[2]], name)
		}
	}
	if len(declared) < 100 || len(cited) < 10 {
		t.Fatalf("found %d declared and %d cited names: the search is broken", len(declared), len(cited))
	}
	for name, where := range cited {
		if _, ok := notOurs[name]; ok {
			continue
		}
		if !slices.ContainsFunc(declared, func(d string) bool { return strings.HasPrefix(d, name) }) {
			slices.Sort(where)
			t.Errorf("%s names %s, which no Go file of the repository declares", strings.Join(slices.Compact(where), ", "), name)
		}
	}
}

// goComments returns the text of src's // comments, line by line: enough
// for doc comments, which is where sources cite tests.
func goComments(src string) []string {
	var out []string
	for line := range strings.Lines(src) {
		if _, c, ok := strings.Cut(line, "//"); ok {
			out = append(out, c)
		}
	}
	return out
}
