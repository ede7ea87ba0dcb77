package steal

import (
	"slices"
	"strings"
	"testing"
)

// Every exported function that takes a *Worker refuses a nil one with a
// panic that names it, before anything is queued.
func TestNilWorkerNamed(t *testing.T) {
	id := func(w *Worker, x int) int { return x }
	idErr := func(w *Worker, x int) (int, error) { return x, nil }
	calls := map[string]func(){
		"For":            func() { For(nil, 0, 1, func(*Worker, int) {}) },
		"ForRange":       func() { ForRange(nil, 0, 1, func(*Worker, int, int) {}) },
		"Fork2":          func() { Fork2(nil, id, 1, 2) },
		"Spawn":          func() { Spawn(nil, func(*Worker) int { return 0 }) },
		"NewGroup":       func() { NewGroup(nil) },
		"NewResultGroup": func() { NewResultGroup[int](nil) },
		"Join":           func() { Join(nil, func(*Worker) {}, func(*Worker) {}) },
		"Join2":          func() { Join2(nil, func(*Worker, int) {}, 1, 2) },
		"Map":            func() { Map(nil, []int{1}, id) },
		"MapErr":         func() { MapErr(nil, []int{1}, idErr) },
		"MapSeq":         func() { MapSeq(nil, slices.Values([]int{1}), id) },
		"MapSeqErr":      func() { MapSeqErr(nil, slices.Values([]int{1}), idErr) },
		"Worker.ID":      func() { (*Worker)(nil).ID() },
		"Worker.Pool":    func() { (*Worker)(nil).Pool() },
		"Worker.Context": func() { (*Worker)(nil).Context() },
		"Worker.Spawn":   func() { (*Worker)(nil).Spawn(func(*Worker) {}) },
		"Worker.Block":   func() { (*Worker)(nil).Block(func() {}) },
	}
	for name, call := range calls {
		msg, _ := mustPanic(t, name, call).(string)
		want := "steal: nil *Worker passed to " + name + ";"
		if !strings.HasPrefix(msg, want) {
			t.Errorf("%s with a nil *Worker panicked with %q; want it to start %q", name, msg, want)
		}
	}
}
