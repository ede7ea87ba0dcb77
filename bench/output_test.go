package main

import "testing"

func TestBriefLine(t *testing.T) {
	for _, tc := range []struct {
		workload string
		results  []Result
		want     string
	}{
		{"fib", []Result{{Impl: "steal", OK: true}, {Impl: "conc", OK: true}},
			"fib          ok: steal conc"},
		{"nested", []Result{{Impl: "steal", OK: true}, {Impl: "ants", Error: "timeout"}, {Impl: "pond", Error: "timeout"}},
			"nested       ok: steal; timed out as expected (deadlock by design): ants pond"},
		// A timeout nobody expects, and a wrong result, are named as failures.
		{"nested", []Result{{Impl: "steal", Error: "timeout"}, {Impl: "goroutines", OK: true}, {Impl: "channel", Error: "wrong result: got 1, want 2"}},
			"nested       ok: goroutines; steal FAILED: timeout; channel FAILED: wrong result: got 1, want 2"},
		{"fib", []Result{{Impl: "ants", Error: "timeout"}},
			"fib          ok: none; ants FAILED: timeout"},
	} {
		if got := briefLine(tc.workload, tc.results); got != tc.want {
			t.Errorf("briefLine(%s) =\n%q, want\n%q", tc.workload, got, tc.want)
		}
	}
}
