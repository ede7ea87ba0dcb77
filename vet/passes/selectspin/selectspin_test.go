package selectspin_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/passes/selectspin"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), selectspin.Analyzer, "a")
}
