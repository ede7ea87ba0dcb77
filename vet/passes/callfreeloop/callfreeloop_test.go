package callfreeloop_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/worksteal/steal/vet/passes/callfreeloop"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), callfreeloop.Analyzer, "a")
}
