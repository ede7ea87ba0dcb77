package suite_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/worksteal/steal/vet/suite"
)

func TestAnalyzers(t *testing.T) {
	if err := analysis.Validate(suite.Analyzers); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range suite.Analyzers {
		names = append(names, a.Name)
		// A multichecker flag takes the name; help prints the doc.
		if a.Doc == "" || a.URL == "" || !strings.HasSuffix(a.URL, "/"+a.Name) {
			t.Errorf("%s: doc %q, URL %q", a.Name, a.Doc, a.URL)
		}
	}
	// One analyzer for each pitfall with a static rule.
	for _, want := range []string{"lockthread", "maxprocsone", "callfreeloop", "unboundedgo", "racyqueue",
		"yieldless", "selectspin", "cgoflood", "containerprocs"} {
		if !slices.Contains(names, want) {
			t.Errorf("suite lacks %s: %v", want, names)
		}
	}
}
