package containerprocs

import (
	"go/ast"
	"go/constant"
	"go/version"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/worksteal/steal/vet/internal/fixes"
	"github.com/worksteal/steal/vet/internal/funcs"
)

// Analyzer reports runtime.GOMAXPROCS(runtime.NumCPU()).
var Analyzer = &analysis.Analyzer{
	Name:     "containerprocs",
	Doc:      "report runtime.GOMAXPROCS(runtime.NumCPU())\n\nNumCPU ignores a container's CPU limit, and since Go 1.25 any GOMAXPROCS call also switches off the runtime's limit-aware default; delete the call.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/containerprocs",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

const (
	why = "so under a CPU limit the program runs more Ps than its quota, and threads spinning to steal work " +
		"use up the quota until the kernel throttles the whole process"
	msgNew = "GOMAXPROCS(NumCPU()) in a container: since Go 1.25 setting GOMAXPROCS switches off the runtime's " +
		"default that follows the container's CPU limit, and NumCPU counts the host's CPUs, " + why +
		"; delete the call (runtime.SetDefaultGOMAXPROCS restores the default)"
	msgOld = "GOMAXPROCS(NumCPU()) in a container: NumCPU counts the host's CPUs, not the container's CPU limit, " + why +
		"; the call repeats the pre-1.25 default (and overrides the GOMAXPROCS environment variable): " +
		"delete it, and set go 1.25 or later in go.mod (the runtime then follows the limit) or import go.uber.org/automaxprocs"
)

// limitAware is the first Go version whose runtime defaults GOMAXPROCS
// to the cgroup CPU limit (GODEBUG containermaxprocs and
// updatemaxprocs, set from the main module's go directive).
const limitAware = "go1.25"

func run(pass *analysis.Pass) (any, error) {
	if !funcs.Imports(pass.Pkg, "runtime") {
		return nil, nil
	}
	v := pass.Pkg.GoVersion()
	aware := v != "" && version.Compare(v, limitAware) >= 0
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for cur := range insp.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		if len(call.Args) != 1 || !funcs.Is(funcs.Callee(pass.TypesInfo, call), "runtime", "GOMAXPROCS") {
			continue
		}
		arg, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
		if !ok || len(arg.Args) != 0 || !funcs.Is(funcs.Callee(pass.TypesInfo, arg), "runtime", "NumCPU") {
			continue
		}
		if funcs.IsTestFile(pass.Fset, call.Pos()) {
			continue
		}
		d := analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Message: msgOld}
		if aware {
			d.Message = msgNew
			if fix, ok := suggest(pass, cur); ok {
				d.SuggestedFixes = []analysis.SuggestedFix{fix}
			}
		}
		pass.Report(d)
	}
	return nil, nil
}

// suggest returns the fix for the call at cur, when the call is a
// statement of its own (plain or deferred).
func suggest(pass *analysis.Pass, cur inspector.Cursor) (analysis.SuggestedFix, bool) {
	call := cur.Node().(*ast.CallExpr)
	var stmt ast.Stmt
	switch s := cur.Parent().Node().(type) {
	case *ast.ExprStmt:
		stmt = s
	case *ast.DeferStmt:
		stmt = s
	default:
		return analysis.SuggestedFix{}, false
	}
	if body, ok := cur.Parent().Parent().Node().(*ast.BlockStmt); ok {
		decl, ok := cur.Parent().Parent().Parent().Node().(*ast.FuncDecl)
		if _, plain := stmt.(*ast.ExprStmt); plain && ok && decl.Body == body &&
			funcs.IsMainOrInit(pass.Pkg, decl) && countMaxprocs(pass) == 1 &&
			// The drivers do not remove an unused import . "runtime".
			!fixes.LeavesDotImportUnused(pass.TypesInfo, funcs.EnclosingFile(cur), stmt) {
			return analysis.SuggestedFix{
				Message:   "Delete the call: the default follows the container's CPU limit",
				TextEdits: []analysis.TextEdit{fixes.DeleteStmt(pass.Fset, funcs.EnclosingFile(cur), body, stmt)},
			}, true
		}
	}
	// Replace with runtime.SetDefaultGOMAXPROCS(), written with the
	// same qualifier as the call, where this file's Go version has it.
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return analysis.SuggestedFix{}, false // a dot import
	}
	qual, ok := sel.X.(*ast.Ident)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	file := funcs.EnclosingFile(cur)
	if fv := pass.TypesInfo.FileVersions[file]; fv != "" && version.Compare(fv, limitAware) < 0 {
		return analysis.SuggestedFix{}, false
	}
	return analysis.SuggestedFix{
		Message: "Replace with runtime.SetDefaultGOMAXPROCS()",
		TextEdits: []analysis.TextEdit{{
			Pos: call.Pos(), End: call.End(),
			NewText: []byte(qual.Name + ".SetDefaultGOMAXPROCS()"),
		}},
	}, true
}

// countMaxprocs counts the runtime.GOMAXPROCS calls in the package's
// non-test files that set the value (GOMAXPROCS(n) with n < 1 only reads
// it). The
// whole package, not only the function: main runs after every init,
// and an init after the ones before it, so a NumCPU call there may be
// undoing a call made elsewhere in the package, which deleting it
// would leave in force.
func countMaxprocs(pass *analysis.Pass) int {
	n := 0
	for _, f := range pass.Files {
		if funcs.IsTestFile(pass.Fset, f.Pos()) {
			continue
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !funcs.Is(funcs.Callee(pass.TypesInfo, call), "runtime", "GOMAXPROCS") {
				return true
			}
			// An argument below 1 only reads the setting.
			if v := pass.TypesInfo.Types[call.Args[0]].Value; v == nil || constant.Sign(v) > 0 {
				n++
			}
			return true
		})
	}
	return n
}
