package golangci_test

import (
	"testing"

	"github.com/golangci/plugin-module-register/register"

	_ "github.com/worksteal/steal/vet/golangci"
	"github.com/worksteal/steal/vet/suite"
)

func build(t *testing.T, conf any) ([]string, error) {
	t.Helper()
	newPlugin, err := register.GetPlugin("stealvet")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(conf)
	if err != nil {
		return nil, err
	}
	if p.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q", p.GetLoadMode())
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range as {
		names = append(names, a.Name)
	}
	return names, nil
}

func TestAllByDefault(t *testing.T) {
	names, err := build(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(suite.Analyzers) {
		t.Errorf("got %v, want all %d analyzers", names, len(suite.Analyzers))
	}
}

func TestDisable(t *testing.T) {
	names, err := build(t, map[string]any{"disable": []any{"selectspin"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == "selectspin" {
			t.Errorf("selectspin not disabled: %v", names)
		}
	}
	if len(names) != len(suite.Analyzers)-1 {
		t.Errorf("got %v", names)
	}
}

func TestUnknownName(t *testing.T) {
	if _, err := build(t, map[string]any{"disable": []any{"nosuch"}}); err == nil {
		t.Error("an unknown analyzer name was accepted")
	}
	if _, err := build(t, map[string]any{"disabel": []any{"selectspin"}}); err == nil {
		t.Error("an unknown setting was accepted")
	}
}
