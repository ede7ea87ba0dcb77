package yieldless_test

import (
	"testing"

	"github.com/worksteal/steal/vet/passes/yieldless"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer checks the reports and the mayBlock facts, including a
// fact imported from package b into package a.
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), yieldless.Analyzer, "a", "b")
}
