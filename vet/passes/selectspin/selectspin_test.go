package selectspin_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/internal/testfiles"
	"github.com/worksteal/steal/vet/passes/selectspin"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), selectspin.Analyzer, "a")
}

// Test files are skipped unless -selectspin.tests is set.
func TestTestFiles(t *testing.T) {
	testfiles.Check(t, selectspin.Analyzer, true, "intests")
}
