package lockthread_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/internal/testfiles"
	"github.com/worksteal/steal/vet/passes/lockthread"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), lockthread.Analyzer, "a", "gui", "netns")
}

// Test files are skipped unless -lockthread.tests is set.
func TestTestFiles(t *testing.T) {
	testfiles.Check(t, lockthread.Analyzer, false, "intests")
}
