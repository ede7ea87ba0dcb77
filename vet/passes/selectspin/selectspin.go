package selectspin

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/worksteal/steal/vet/internal/bounds"
	"github.com/worksteal/steal/vet/internal/funcs"
	"github.com/worksteal/steal/vet/internal/loopfx"
)

// Analyzer reports select-with-default spins.
var Analyzer = &analysis.Analyzer{
	Name:     "selectspin",
	Doc:      "report loops that spin on a select with a non-blocking default\n\nThe goroutine never parks and holds its P and a CPU; remove the default so the select blocks, or add a timer case.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/selectspin",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

const (
	fixAdvice = "; remove the default so the select blocks, or add a timer case (a time.Ticker) for periodic work"
	msgSpin   = "channel-driven spin: the select's default lets each iteration of this loop finish without blocking, " +
		"so the goroutine never parks and keeps its P and a CPU busy that work stealing could give to runnable goroutines" + fixAdvice
	msgGosched = "channel-driven spin with runtime.Gosched: the select's default lets each iteration finish without parking, " +
		"and Gosched only lends the P to goroutines already runnable, so the loop burns a CPU whenever there is nothing else to run" + fixAdvice
)

// tests is the -selectspin.tests flag. Off by default: a test that builds this
// pattern usually does so on purpose (the runtime's own tests make CPU
// hogs and locked spinners to exercise the scheduler), and test code
// does not run where work stealing matters.
var tests bool

func init() {
	Analyzer.Flags.BoolVar(&tests, "tests", false, "also report in _test.go files")
}

func run(pass *analysis.Pass) (any, error) {
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var fx *loopfx.Analysis
	for cur := range insp.Root().Preorder((*ast.ForStmt)(nil)) {
		loop := cur.Node().(*ast.ForStmt)
		if !tests && funcs.IsTestFile(pass.Fset, loop.Pos()) {
			continue
		}
		selects := defaultSelects(loop.Body)
		if len(selects) == 0 {
			continue
		}
		// The other cases of these selects run on events; what is
		// left is the path an iteration takes when nothing is ready.
		cases := make(map[ast.Node]bool)
		for _, s := range selects {
			for _, c := range s.Body.List {
				if c.(*ast.CommClause).Comm != nil {
					cases[c] = true
				}
			}
		}
		skip := func(n ast.Node) bool { return cases[n] }
		spins, gosched := spinPath(pass.TypesInfo, loop, selects, skip)
		if !spins {
			continue
		}
		var label *ast.Ident
		if ls, ok := cur.Parent().Node().(*ast.LabeledStmt); ok {
			label = ls.Label
		}
		if fx == nil {
			fx = loopfx.New(pass.TypesInfo, pass.Files)
		}
		if fx.Progresses(loop, label, skip) {
			continue
		}
		def := defaultClause(selects[0])
		d := analysis.Diagnostic{Pos: def.Pos(), End: def.Colon + 1, Message: msgSpin}
		if gosched {
			d.Message = msgGosched
		}
		if edit, ok := removeDefault(pass.TypesInfo, pass.Fset, loop, selects[0]); ok {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Remove the default case so the select blocks",
				TextEdits: []analysis.TextEdit{edit},
			}}
		}
		pass.Report(d)
	}
	return nil, nil
}

// defaultSelects returns the select statements with a default case in
// body, leaving out those in nested loops (which are loops of their
// own), function literals and other selects' cases, but for a select in
// another's default case: it runs when nothing else is ready, and its
// own default keeps that path from blocking.
func defaultSelects(body *ast.BlockStmt) []*ast.SelectStmt {
	var out []*ast.SelectStmt
	var visit func(ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt:
			return false
		case *ast.SelectStmt:
			if d := defaultClause(n); d != nil {
				out = append(out, n)
				for _, st := range d.Body {
					ast.Inspect(st, func(m ast.Node) bool {
						// Try a send, else drain the channel and try again
						// (a value replaced by a newer one): when the send
						// is not ready the channel is full, so the drain
						// is. Not a spin; the inner select stays "blocking".
						if inner, ok := m.(*ast.SelectStmt); ok && drains(inner, n) {
							return false
						}
						return visit(m)
					})
				}
			}
			return false
		}
		return true
	}
	ast.Inspect(body, visit)
	return out
}

// drains reports whether inner receives from a channel that a case of
// outer sends to.
func drains(inner, outer *ast.SelectStmt) bool {
	sent := make(map[string]bool)
	for _, c := range outer.Body.List {
		if send, ok := c.(*ast.CommClause).Comm.(*ast.SendStmt); ok {
			sent[types.ExprString(send.Chan)] = true
		}
	}
	for _, c := range inner.Body.List {
		if ch := bounds.CommRecv(c.(*ast.CommClause).Comm); ch != nil && sent[types.ExprString(ch)] {
			return true
		}
	}
	return false
}

func defaultClause(s *ast.SelectStmt) *ast.CommClause {
	for _, c := range s.Body.List {
		if c := c.(*ast.CommClause); c.Comm == nil {
			return c
		}
	}
	return nil
}

// spinPath reports whether the default path of loop (everything but
// the subtrees skip selects) can neither block nor do work, and
// whether it calls runtime.Gosched.
func spinPath(info *types.Info, loop *ast.ForStmt, selects []*ast.SelectStmt, skip func(ast.Node) bool) (spins, gosched bool) {
	isDefaultSelect := make(map[ast.Node]bool)
	for _, s := range selects {
		isDefaultSelect[s] = true
	}
	spins = true
	visit := func(n ast.Node) bool {
		if !spins || skip(n) {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch fn := funcs.Callee(info, n); {
			case !funcs.IsCall(info, n):
			case funcs.Is(fn, "runtime", "Gosched"):
				gosched = true
			case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic":
				// A poll of an atomic flag is still a poll.
			default:
				spins = false
			}
		case *ast.SelectStmt:
			if !isDefaultSelect[n] {
				spins = false // blocks
			}
		case *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
			spins = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				spins = false
			}
		case *ast.RangeStmt:
			// Ranging over a channel receives; over a function, calls;
			// over a type parameter, may do either.
			switch info.TypeOf(n.X).Underlying().(type) {
			case *types.Chan, *types.Signature, *types.Interface:
				spins = false
			}
		}
		return spins
	}
	for _, n := range []ast.Node{loop.Cond, loop.Post, loop.Body} {
		if n != nil {
			ast.Inspect(n, visit)
		}
	}
	return spins, gosched
}

// removeDefault returns the edit that deletes the default case of s,
// when that is safe: loop is a bare for {} whose body is s alone, the
// default is empty, s has another case to block on, and no case's
// channel or sent value calls anything but a Done method.
func removeDefault(info *types.Info, fset *token.FileSet, loop *ast.ForStmt, s *ast.SelectStmt) (analysis.TextEdit, bool) {
	if loop.Init != nil || loop.Cond != nil || loop.Post != nil ||
		len(loop.Body.List) != 1 || loop.Body.List[0] != s || len(s.Body.List) < 2 {
		return analysis.TextEdit{}, false
	}
	def := defaultClause(s)
	if len(def.Body) != 0 || operandsCall(info, s) {
		return analysis.TextEdit{}, false
	}
	// Delete from the default keyword to the next case or the closing
	// brace, taking the comments inside the empty default along, and
	// whole lines where the clause starts a line.
	end := s.Body.Rbrace
	for i, c := range s.Body.List {
		if c == def && i+1 < len(s.Body.List) {
			end = s.Body.List[i+1].Pos()
		}
	}
	tf := fset.File(def.Pos())
	start := def.Pos()
	if ls := tf.LineStart(tf.Line(start)); lineBlank(fset, s, ls, start) {
		start = ls
		if e := tf.LineStart(tf.Line(end)); e > start {
			end = e
		}
	}
	return analysis.TextEdit{Pos: start, End: end}, true
}

// operandsCall reports whether the channel or value operands of a case
// of s call a function other than a Done method (<-ctx.Done()). The
// operands are evaluated each time the select is entered, so removing
// the default changes how often such a call runs: case out <- next()
// would send other values, and case <-time.After(d) would fire where a
// new timer per spin never did.
func operandsCall(info *types.Info, s *ast.SelectStmt) bool {
	var operands []ast.Expr
	for _, c := range s.Body.List {
		switch comm := c.(*ast.CommClause).Comm.(type) {
		case *ast.SendStmt:
			operands = append(operands, comm.Chan, comm.Value)
		case *ast.ExprStmt:
			operands = append(operands, comm.X)
		case *ast.AssignStmt:
			operands = append(operands, comm.Rhs...)
		}
	}
	calls := false
	for _, e := range operands {
		ast.Inspect(e, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			switch {
			case calls:
				return false
			case !ok:
				return true
			case len(call.Args) == 0 && bounds.IsDone(call):
				return false
			case funcs.IsCall(info, call):
				calls = true
			}
			return !calls
		})
	}
	return calls
}

// lineBlank reports whether no clause of s ends in [from, to): the
// default clause starts its line.
func lineBlank(fset *token.FileSet, s *ast.SelectStmt, from, to token.Pos) bool {
	for _, c := range s.Body.List {
		if c.End() > from && c.End() <= to {
			return false
		}
	}
	return from > s.Body.Lbrace
}
