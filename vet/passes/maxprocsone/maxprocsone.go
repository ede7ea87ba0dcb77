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
		if funcs.IsTestFile(pass.Fset, call.Pos()) {
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
	return fixes.DeleteStmt(pass.Fset, file, body, stmt), true
}
