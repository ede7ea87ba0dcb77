// Package testfiles tests the -NAME.tests flag of the stealvet
// analyzers that skip _test.go files unless asked.
package testfiles

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Check runs a over the testdata package pattern twice: with its
// "tests" flag on, checking the package's want comments (and, if
// fixes, its golden files), then with the flag off, requiring no
// diagnostic in a _test.go file. The second run reuses the packages of
// the first, since loading a package with test files type-checks the
// testing package and its dependencies from source, which takes
// seconds.
func Check(t *testing.T, a *analysis.Analyzer, fixes bool, pattern string) {
	t.Helper()
	set := func(v string) {
		if err := a.Flags.Set("tests", v); err != nil {
			t.Fatal(err)
		}
	}
	set("true")
	t.Cleanup(func() { set("false") })
	run := analysistest.Run
	if fixes {
		run = analysistest.RunWithSuggestedFixes
	}
	results := run(t, analysistest.TestData(), a, pattern)

	set("false")
	var pkgs []*packages.Package
	for _, r := range results {
		pkgs = append(pkgs, r.Action.Package)
	}
	g, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for act := range g.All() {
		if act.Analyzer != a {
			continue
		}
		for _, d := range act.Diagnostics {
			if pos := act.Package.Fset.Position(d.Pos); strings.HasSuffix(pos.Filename, "_test.go") {
				t.Errorf("%s: reported with -%s.tests=false: %s", pos, a.Name, d.Message)
			}
			n++
		}
	}
	if n == 0 && len(pkgs) > 0 {
		// The package must have a finding outside its tests, so that
		// a run that reports nothing at all cannot pass.
		t.Errorf("-%s.tests=false: no diagnostic at all in %s", a.Name, pattern)
	}
}
