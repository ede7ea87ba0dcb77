package unboundedgo_test

import (
	"testing"

	"github.com/worksteal/steal/vet/passes/unboundedgo"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), unboundedgo.Analyzer, "a")
}
