package maxprocsone

import (
	"go/ast"
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/worksteal/steal/vet/internal/fixes"
	"github.com/worksteal/steal/vet/internal/funcs"
)

// Analyzer reports runtime.GOMAXPROCS(1) outside tests.
var Analyzer = &analysis.Analyzer{
	Name:     "maxprocsone",
	Doc:      "report runtime.GOMAXPROCS(1) in non-test code\n\nWith one P there is nothing to steal from and goroutines run one at a time; delete the call and keep the default.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/maxprocsone",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

const msg = "GOMAXPROCS(1) surprise: with a single P there is no other run queue to steal from, " +
	"so every goroutine takes its turn on one thread; delete the call and keep the default " +
	"(set the GOMAXPROCS environment variable for a one-P run)"

func run(pass *analysis.Pass) (any, error) {
	if !funcs.Imports(pass.Pkg, "runtime") {
		return nil, nil
	}
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for cur := range insp.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		if len(call.Args) != 1 || !funcs.Is(funcs.Callee(pass.TypesInfo, call), "runtime", "GOMAXPROCS") {
			continue
		}
		if v := pass.TypesInfo.Types[call.Args[0]].Value; v == nil || !constant.Compare(v, token.EQL, constant.MakeInt64(1)) {
			continue
		}
		if funcs.IsTestFile(pass.Fset, call.Pos()) || restored(pass, cur) {
			continue
		}
		d := analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Message: msg}
		if edit, ok := deletion(pass, cur); ok {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Delete the runtime.GOMAXPROCS(1) call",
				TextEdits: []analysis.TextEdit{edit},
			}}
		}
		pass.Report(d)
	}
	return nil, nil
}

// deletion returns the edit deleting the call at cur when the call is
// a statement directly in the body of init, or of main in package main.
func deletion(pass *analysis.Pass, cur inspector.Cursor) (analysis.TextEdit, bool) {
	stmt, ok := cur.Parent().Node().(*ast.ExprStmt)
	if !ok {
		return analysis.TextEdit{}, false
	}
	body, ok := cur.Parent().Parent().Node().(*ast.BlockStmt)
	if !ok {
		return analysis.TextEdit{}, false
	}
	decl, ok := cur.Parent().Parent().Parent().Node().(*ast.FuncDecl)
	if !ok || decl.Body != body || !funcs.IsMainOrInit(pass.Pkg, decl) {
		return analysis.TextEdit{}, false
	}
	file := funcs.EnclosingFile(cur)
	if fixes.LeavesDotImportUnused(pass.TypesInfo, file, stmt) {
		return analysis.TextEdit{}, false // import . "runtime" would not compile
	}
	return fixes.DeleteStmt(pass.Fset, file, body, stmt), true
}

// restored reports whether the GOMAXPROCS(1) call at cur is a scoped
// change: its result, the old value, goes straight to a deferred
// runtime.GOMAXPROCS call, as in
//
//	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
//
// (testing.AllocsPerRun does this to count allocations on one P), or
// the enclosing function sets GOMAXPROCS again later, to a value other
// than 1 (old := runtime.GOMAXPROCS(1); ...; runtime.GOMAXPROCS(old)).
// Either way the program gets its Ps back.
func restored(pass *analysis.Pass, cur inspector.Cursor) bool {
	info := pass.TypesInfo
	if outer, ok := cur.Parent().Node().(*ast.CallExpr); ok {
		if _, deferred := cur.Parent().Parent().Node().(*ast.DeferStmt); deferred &&
			funcs.Is(funcs.Callee(info, outer), "runtime", "GOMAXPROCS") {
			return true
		}
		// Any other call around it (a conversion, a log line) only
		// passes the old value on: look for a later call as below.
	}
	one := cur.Node().(*ast.CallExpr)
	for fn := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		for c := range fn.Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			if call.Pos() <= one.End() || len(call.Args) != 1 ||
				!funcs.Is(funcs.Callee(info, call), "runtime", "GOMAXPROCS") {
				continue
			}
			// A constant below 1 (0, -1) only queries; 1 sets 1 again.
			if v := info.Types[call.Args[0]].Value; v == nil || constant.Compare(v, token.GTR, constant.MakeInt64(1)) {
				return true // sets a value other than 1
			}
		}
		break // the innermost function only
	}
	return false
}
