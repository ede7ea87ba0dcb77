// Package containerprocs defines an Analyzer that reports
// runtime.GOMAXPROCS(runtime.NumCPU()).
//
// # Pitfall: misuse of GOMAXPROCS in containers
//
//	runtime.GOMAXPROCS(runtime.NumCPU())
//
// runtime.NumCPU counts the CPUs the process may be scheduled on, not
// the CPU limit (cgroup quota) of its container. A service with a
// 2-CPU limit on a 64-CPU host that sets GOMAXPROCS to NumCPU runs 64
// Ps: threads spinning in search of work to steal use up the quota,
// and the kernel then throttles the whole process for the rest of
// each period, which shows as tail latency.
//
// What the call costs depends on the go directive of the main module,
// because the runtime picks its GODEBUG defaults from it:
//
//   - go 1.25 and later: the default GOMAXPROCS follows the cgroup CPU
//     limit and is updated when the limit changes, but only until the
//     program sets GOMAXPROCS itself. The call switches that off and
//     brings back the host's CPU count. Delete it; if the code must
//     undo an earlier GOMAXPROCS call, runtime.SetDefaultGOMAXPROCS
//     restores the default.
//   - before go 1.25: the default is already NumCPU (unless the
//     GOMAXPROCS environment variable says otherwise, which the call
//     overrides), so the call is redundant at best. The fix is outside
//     the code: raise the go directive to 1.25 or later, or import
//     go.uber.org/automaxprocs, which reads the quota.
//
// The analyzer uses the Go version of the module that holds the package
// (types.Package.GoVersion, from go.mod), which is the main module's
// when the program is checked in its own module. A package of unknown
// version (GOPATH mode) gets the pre-1.25 message.
//
// # Suggested fix (go 1.25 and later)
//
// When the call is a statement of its own in an init function or in
// main of package main, and the only call setting GOMAXPROCS in the
// package's non-test files (main runs after every init, so a call in
// main may undo one made in an init), the fix deletes it. Anywhere else, a statement runtime.GOMAXPROCS(
// runtime.NumCPU()), plain or deferred, may be undoing an earlier call,
// so the fix replaces it with runtime.SetDefaultGOMAXPROCS(), which has
// that effect without losing the container-aware default. Before go
// 1.25 no fix is offered: deleting the call would not fix a container.
// Nor when runtime is dot-imported (import . "runtime"): the drivers do
// not remove an unused dot import, and the replacement needs the
// package's name.
//
// # What is deliberately not reported
//
//   - Any other argument: a constant (see maxprocsone for 1), a value
//     read from configuration, or arithmetic on NumCPU such as
//     NumCPU()/2, which states an intent the analyzer cannot judge.
//   - A NumCPU result stored in a variable first.
//   - Calls in _test.go files.
package containerprocs
