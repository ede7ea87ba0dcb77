package sim

import (
	"testing"

	"github.com/worksteal/steal/coord"
)

func TestPolicyNamesRoundTrip(t *testing.T) {
	all := AllPolicies()
	if len(all) != 8 {
		t.Fatalf("AllPolicies has %d entries, want 8", len(all))
	}
	for _, p := range all {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("%v: parsed %v, %v", p, got, err)
		}
	}
}

func TestParsePolicyShortcutsAndErrors(t *testing.T) {
	if p, _ := ParsePolicy("half"); p != (Policy{Mode: StealHalf, Victims: coord.MostLoaded}) {
		t.Errorf("half = %v", p)
	}
	for _, bad := range []string{"", "steal", "none/random", "one/nearest", "none/", "central/", "one/", "half/"} {
		if _, err := ParsePolicy(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s := (Policy{Mode: 9}).String(); s != "Policy(9)" {
		t.Errorf("bad mode String = %q", s)
	}
}

func TestParsePolicies(t *testing.T) {
	ps, err := ParsePolicies("none, one/random,half/best_of_two")
	if err != nil || len(ps) != 3 || ps[2].String() != "half/best_of_two" {
		t.Fatalf("ParsePolicies = %v, %v", ps, err)
	}
	if ps, _ := ParsePolicies("all"); len(ps) != 8 {
		t.Fatalf("all gave %d", len(ps))
	}
	if _, err := ParsePolicies("none,bogus"); err == nil {
		t.Fatal("bogus accepted")
	}
}
