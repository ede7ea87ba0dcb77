package cgoflood_test

import (
	"go/build"
	"os"
	"os/exec"
	"testing"

	"github.com/worksteal/steal/vet/passes/cgoflood"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer runs on packages that import "C": analysistest loads
// them through go list, which runs the cgo tool when cgo is enabled and
// a C compiler is present, as for the cgocall pass of x/tools. Package
// a knows that clib's functions call C only through the callsCgo fact.
func TestAnalyzer(t *testing.T) {
	if !build.Default.CgoEnabled {
		t.Skip("cgo is disabled")
	}
	compilers := []string{"gcc", "clang", "cc"} // the go command's defaults
	if cc := os.Getenv("CC"); cc != "" {
		compilers = []string{cc}
	}
	found := false
	for _, cc := range compilers {
		if _, err := exec.LookPath(cc); err == nil {
			found = true
		}
	}
	if !found {
		t.Skipf("no C compiler among %v", compilers)
	}
	analysistest.Run(t, analysistest.TestData(), cgoflood.Analyzer, "clib", "a")
}
