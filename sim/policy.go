package sim

import (
	"fmt"
	"strings"

	"github.com/worksteal/steal/coord"
)

// Mode is what an idle worker does when its own deque is empty.
type Mode int

// The modes.
const (
	// NoSteal: the worker stays idle; the baseline of a static schedule.
	NoSteal Mode = iota
	// Central: all jobs sit in one shared FIFO queue; every fetch costs
	// the steal latency. The initial distribution is ignored.
	Central
	// StealOne: take one job from the back of a victim's deque.
	StealOne
	// StealHalf: take the back half (rounded up) of a victim's deque.
	StealHalf
)

// Policy is a scheduling policy: a mode and, for the stealing modes, how
// the victim is chosen.
type Policy struct {
	Mode    Mode
	Victims coord.VictimPolicy
}

// String names the policy: "none", "central", or "one/<victims>" and
// "half/<victims>", e.g. "half/best_of_two".
func (p Policy) String() string {
	switch p.Mode {
	case NoSteal:
		return "none"
	case Central:
		return "central"
	case StealOne:
		return "one/" + p.Victims.String()
	case StealHalf:
		return "half/" + p.Victims.String()
	}
	return fmt.Sprintf("Policy(%d)", int(p.Mode))
}

// ParsePolicy parses a name as String writes it. "one" and "half" alone
// mean most_loaded victims.
func ParsePolicy(name string) (Policy, error) {
	mode, victims, slash := strings.Cut(name, "/")
	switch mode {
	case "none", "central":
		if slash {
			break
		}
		if mode == "none" {
			return Policy{Mode: NoSteal}, nil
		}
		return Policy{Mode: Central}, nil
	case "one", "half":
		p := Policy{Mode: StealOne}
		if mode == "half" {
			p.Mode = StealHalf
		}
		if !slash {
			return p, nil
		}
		v, err := coord.ParseVictimPolicy(victims)
		if err != nil {
			return Policy{}, fmt.Errorf("sim: policy %q: %w", name, err)
		}
		p.Victims = v
		return p, nil
	}
	return Policy{}, fmt.Errorf("sim: unknown policy %q (want none, central, one/<victims> or half/<victims>)", name)
}

// ParsePolicies parses a comma-separated list; "all" means AllPolicies.
func ParsePolicies(list string) ([]Policy, error) {
	if list == "all" {
		return AllPolicies(), nil
	}
	var out []Policy
	for _, name := range strings.Split(list, ",") {
		p, err := ParsePolicy(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// AllPolicies lists every policy: none, central, then steal one and steal
// half with each victim policy.
func AllPolicies() []Policy {
	out := []Policy{{Mode: NoSteal}, {Mode: Central}}
	for _, m := range []Mode{StealOne, StealHalf} {
		for _, v := range []coord.VictimPolicy{coord.Random, coord.MostLoaded, coord.BestOfTwo} {
			out = append(out, Policy{Mode: m, Victims: v})
		}
	}
	return out
}
