package racyqueue_test

import (
	"testing"

	"github.com/worksteal/steal/vet/passes/racyqueue"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer checks the reports in both packages, the second of
// which only knows of the atomic use through the usedAtomically fact.
func TestAnalyzer(t *testing.T) {
	if err := racyqueue.Analyzer.Flags.Set("enable", "true"); err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), racyqueue.Analyzer, "q", "user")
}
