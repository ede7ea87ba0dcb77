package callfreeloop_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/internal/testfiles"
	"github.com/worksteal/steal/vet/passes/callfreeloop"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), callfreeloop.Analyzer, "a")
}

// Test files are skipped unless -callfreeloop.tests is set.
func TestTestFiles(t *testing.T) {
	testfiles.Check(t, callfreeloop.Analyzer, false, "intests")
}
