package maxprocsone_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/passes/maxprocsone"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), maxprocsone.Analyzer, "a", "prog", "onlycall", "dotimport")
}
