package containerprocs_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/passes/containerprocs"
)

// A module whose go directive is 1.25: the runtime's default follows
// the CPU limit, and the fixes delete or replace the call.
func TestGo125(t *testing.T) {
	dir := filepath.Join(analysistest.TestData(), "go125")
	analysistest.RunWithSuggestedFixes(t, dir, containerprocs.Analyzer, "./...")
}

// A module at go 1.24: reported with the pre-1.25 advice and no fix
// (analysistest.Run fails on a fix only through a golden file, so the
// test checks for fixes itself).
func TestGo124(t *testing.T) {
	dir := filepath.Join(analysistest.TestData(), "go124")
	checkNoFixes(t, analysistest.Run(t, dir, containerprocs.Analyzer, "./..."))
}

// GOPATH mode: no module, no version.
func TestUnknownVersion(t *testing.T) {
	checkNoFixes(t, analysistest.Run(t, analysistest.TestData(), containerprocs.Analyzer, "gopath"))
}

func checkNoFixes(t *testing.T, results []*analysistest.Result) {
	t.Helper()
	for _, r := range results {
		for _, d := range r.Action.Diagnostics {
			if len(d.SuggestedFixes) > 0 {
				t.Errorf("%s: unexpected fix %q", r.Action.Package.Fset.Position(d.Pos), d.SuggestedFixes[0].Message)
			}
		}
	}
}
