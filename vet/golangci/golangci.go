// Package golangci registers the stealvet analyzers as a golangci-lint
// module plugin named "stealvet" (see the module plugin system of
// golangci-lint: a .custom-gcl.yml names this package, and
// "golangci-lint custom" builds a binary that includes it).
//
// Settings, under linters.settings.custom.stealvet.settings:
//
//	disable: [selectspin]   # analyzers to switch off, by name
//
// The analyzers come from suite.Analyzers, so an analyzer added to the
// suite is in the plugin too.
//
// No analyzer flag can be set here: the opt-in racyqueue stays off (it
// reports nothing without -racyqueue.enable), and the analyzers with a
// -NAME.tests flag skip _test.go files.
package golangci

import (
	"fmt"
	"slices"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/worksteal/steal/vet/suite"
)

func init() { register.Plugin("stealvet", New) }

// Settings are the plugin's settings in the golangci-lint configuration.
type Settings struct {
	// Disable names analyzers to switch off.
	Disable []string `json:"disable"`
}

type plugin struct{ settings Settings }

// New decodes the plugin's settings; golangci-lint calls it.
func New(conf any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, err
	}
	for _, name := range s.Disable {
		if !slices.ContainsFunc(suite.Analyzers, func(a *analysis.Analyzer) bool { return a.Name == name }) {
			return nil, fmt.Errorf("stealvet: disable: no analyzer named %q", name)
		}
	}
	return &plugin{settings: s}, nil
}

// BuildAnalyzers returns the suite less the disabled analyzers.
func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, a := range suite.Analyzers {
		if !slices.Contains(p.settings.Disable, a.Name) {
			out = append(out, a)
		}
	}
	return out, nil
}

// GetLoadMode asks for type information, which every analyzer needs.
func (p *plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
