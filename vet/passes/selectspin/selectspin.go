package selectspin

import (
	"go/ast"
	"go/constant"
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
		if fx.Progresses(loop, label, skip) || lenGuarded(pass.TypesInfo, loop, label) {
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

// lenGuarded reports whether the loop runs only while a case of a
// select that every iteration reaches is ready: the loop's condition
// (or an exit in front of the select, if len(ch) == 0 { return }) says
// that a channel the select receives from holds a value, or that one
// it sends to has room. The default then runs only when another
// goroutine took the value (or the room) first, and the next check
// ends the loop: a drain, not a spin.
func lenGuarded(info *types.Info, loop *ast.ForStmt, label *ast.Ident) bool {
	for i, st := range loop.Body.List {
		sel, ok := st.(*ast.SelectStmt)
		if !ok || defaultClause(sel) == nil {
			continue
		}
		recv, send := make(map[string]bool), make(map[string]bool)
		for _, c := range sel.Body.List {
			switch comm := c.(*ast.CommClause).Comm.(type) {
			case *ast.SendStmt:
				if k, ok := chanKey(info, comm.Chan); ok {
					send[k] = true
				}
			default:
				if ch := bounds.CommRecv(comm); ch != nil {
					if k, ok := chanKey(info, ch); ok {
						recv[k] = true
					}
				}
			}
		}
		ready := func(k string, room bool) bool { return room && send[k] || !room && recv[k] }
		if loop.Cond != nil {
			for _, e := range split(loop.Cond, token.LAND) {
				if k, room, ok := lenTest(info, e, false); ok && ready(k, room) {
					return true
				}
			}
		}
		before := loop.Body.List[:i]
		if skips(before) {
			return false // an iteration may not reach the select
		}
		for _, st := range before {
			ifs, ok := st.(*ast.IfStmt)
			if !ok || ifs.Init != nil || ifs.Else != nil || !leavesLoop(info, ifs.Body, label) {
				continue
			}
			for _, e := range split(ifs.Cond, token.LOR) {
				if k, room, ok := lenTest(info, e, true); ok && ready(k, room) {
					return true
				}
			}
		}
		return false // only the first select every iteration reaches
	}
	return false
}

// split returns the operands of a chain of op (&& or ||) in e.
func split(e ast.Expr, op token.Token) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == op {
		return append(split(b.X, op), split(b.Y, op)...)
	}
	return []ast.Expr{e}
}

// lenTest recognizes a test of a channel's length in e. With negated
// false, it is a test that holds when ch holds a value (len(ch) > 0,
// != 0, >= 1) or has room (len(ch) < cap(ch)); with negated true, one
// that holds when it does not (len(ch) == 0, < 1, <= 0; len(ch) ==
// cap(ch), >= cap(ch)). It returns the channel's key and whether the
// test is about room.
func lenTest(info *types.Info, e ast.Expr, negated bool) (key string, room, ok bool) {
	b, isBin := ast.Unparen(e).(*ast.BinaryExpr)
	if !isBin {
		return "", false, false
	}
	x, op, y := b.X, b.Op, b.Y
	if _, isLen := builtinArg(info, x, "len"); !isLen {
		// 0 < len(ch): read it as len(ch) > 0.
		x, y = y, x
		switch op {
		case token.LSS:
			op = token.GTR
		case token.GTR:
			op = token.LSS
		case token.LEQ:
			op = token.GEQ
		case token.GEQ:
			op = token.LEQ
		}
	}
	ch, isLen := builtinArg(info, x, "len")
	if !isLen {
		return "", false, false
	}
	key, ok = chanKey(info, ch)
	if !ok {
		return "", false, false
	}
	if c, isCap := builtinArg(info, y, "cap"); isCap {
		if k, ok := chanKey(info, c); !ok || k != key {
			return "", false, false
		}
		if negated {
			return key, true, op == token.EQL || op == token.GEQ
		}
		return key, true, op == token.LSS || op == token.NEQ
	}
	tv, isConst := info.Types[y]
	if !isConst || tv.Value == nil {
		return "", false, false
	}
	n, exact := constant.Int64Val(constant.ToInt(tv.Value))
	if !exact {
		return "", false, false
	}
	if negated {
		switch op {
		case token.EQL, token.LEQ:
			return key, false, n == 0
		case token.LSS:
			return key, false, n == 1
		}
		return "", false, false
	}
	switch op {
	case token.GTR:
		return key, false, n >= 0
	case token.NEQ:
		return key, false, n == 0
	case token.GEQ:
		return key, false, n >= 1
	}
	return "", false, false
}

// builtinArg returns the argument of e if e calls the builtin name.
func builtinArg(info *types.Info, e ast.Expr, name string) (ast.Expr, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil, false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return call.Args[0], ok && b.Name() == name
}

// chanKey names a channel expression that evaluates to the same channel
// wherever it is written in the loop: variables and fields, no calls or
// indexing. ok is false for anything else, or for a non-channel.
func chanKey(info *types.Info, e ast.Expr) (string, bool) {
	if funcs.CoreChan(info.TypeOf(e)) == nil {
		return "", false
	}
	for x := ast.Unparen(e); ; {
		switch v := x.(type) {
		case *ast.Ident:
			return types.ExprString(ast.Unparen(e)), true
		case *ast.SelectorExpr:
			x = ast.Unparen(v.X)
		case *ast.StarExpr:
			x = ast.Unparen(v.X)
		default:
			return "", false
		}
	}
}

// skips reports whether the statements may send an iteration back to
// the loop's head, or elsewhere, past what follows them: a continue or
// a goto.
func skips(stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if n.Tok == token.CONTINUE || n.Tok == token.GOTO {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// leavesLoop reports whether body, the body of an if statement at the
// top of a loop's body, ends by leaving the loop: a return, a break, or
// a break of the loop's label.
func leavesLoop(info *types.Info, body *ast.BlockStmt, label *ast.Ident) bool {
	if len(body.List) == 0 {
		return false
	}
	switch last := body.List[len(body.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		if last.Tok != token.BREAK {
			return false
		}
		return last.Label == nil || label != nil && info.Uses[last.Label] == info.Defs[label]
	}
	return false
}
