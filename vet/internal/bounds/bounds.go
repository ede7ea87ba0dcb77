// Package bounds holds what the analyzers that look for unbounded
// goroutines share: how to tell that a go statement in a loop is held to
// a bound (a token taken, a counter compared, a call that waits), and the
// small AST questions those checks ask.
package bounds

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// CondObjects returns the variables and fields that an expression reads.
func CondObjects(info *types.Info, e ast.Expr) map[types.Object]bool {
	read := make(map[types.Object]bool)
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if obj, ok := info.Uses[id].(*types.Var); ok {
				read[obj] = true
			}
		}
		return true
	})
	return read
}

// Counter returns the variable or field that n counts up or down
// (x++, x--, x += k, x -= k, and with sync/atomic atomic.AddInt32(&x, k)
// or x.Add(k) of an atomic.Int32 and the like), or nil.
func Counter(info *types.Info, n ast.Node) types.Object {
	var x ast.Expr
	switch n := n.(type) {
	case *ast.IncDecStmt:
		x = n.X
	case *ast.AssignStmt:
		if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Lhs) == 1 {
			x = n.Lhs[0]
		}
	case *ast.ExprStmt:
		x = atomicAdded(info, n.X)
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return info.Uses[x]
	case *ast.SelectorExpr:
		return info.Uses[x.Sel]
	}
	return nil
}

// atomicAdded returns the operand that e, a call of a sync/atomic add,
// counts: x in atomic.AddInt32(&x, k) or in x.Add(k); else nil.
func atomicAdded(info *types.Info, e ast.Expr) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || !strings.HasPrefix(fn.Name(), "Add") {
		return nil
	}
	if fn.Type().(*types.Signature).Recv() != nil {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X // x.Add(k)
		}
		return nil
	}
	if len(call.Args) == 2 {
		if addr, ok := ast.Unparen(call.Args[0]).(*ast.UnaryExpr); ok && addr.Op == token.AND {
			return addr.X // atomic.AddInt32(&x, k)
		}
	}
	return nil
}

// CountsInBody reports whether a for loop without a post statement is
// a counting loop in disguise (for i := 0; i < n; { ...; i++ }): its
// body increments or decrements a variable that its condition reads.
func CountsInBody(info *types.Info, loop *ast.ForStmt) bool {
	if loop.Cond == nil {
		return false
	}
	read := CondObjects(info, loop.Cond)
	counted := false
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if obj := Counter(info, n); obj != nil && read[obj] {
			counted = true
		}
		return !counted
	})
	return counted
}

// InSelect reports whether the statement s is the comm of a select case.
func InSelect(body *ast.BlockStmt, s ast.Stmt) bool {
	in := false
	ast.Inspect(body, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CommClause); ok && cc.Comm == s {
			in = true
		}
		return !in
	})
	return in
}

// IsDone reports whether x is a call of a method named Done, as in
// <-ctx.Done().
func IsDone(x ast.Expr) bool {
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Done" {
			return true
		}
	}
	return false
}

// BoundingCall reports whether call waits for a slot or for earlier
// goroutines, judged by the name of the function or method.
func BoundingCall(info *types.Info, call *ast.CallExpr) bool {
	var name string
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = fun.Name
	case *ast.SelectorExpr:
		name = fun.Sel.Name
	case *ast.IndexExpr: // generic instantiation
		if id, ok := fun.X.(*ast.Ident); ok {
			name = id.Name
		}
	}
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return false
	}
	switch name {
	case "Wait", "Acquire", "TryAcquire":
		return true
	}
	return strings.Contains(strings.ToLower(name), "acquire")
}

// GuardBounds reports whether an if statement around the go statement
// limits it: its condition reads a variable its body assigns (start
// once; count up to a limit), calls a compare-and-swap or add of
// sync/atomic, or compares a len or cap.
func GuardBounds(info *types.Info, ifs *ast.IfStmt) bool {
	read := make(map[types.Object]bool)
	limit := false
	ast.Inspect(ifs.Cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if obj := info.Uses[n]; obj != nil {
				read[obj] = true
			}
		case *ast.SelectorExpr:
			if obj := info.Uses[n.Sel]; obj != nil {
				read[obj] = true
			}
		case *ast.CallExpr:
			if fn := typeutil.Callee(info, n); fn != nil {
				name := fn.Name()
				if b, ok := fn.(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					limit = true
				}
				if fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" &&
					(strings.HasPrefix(name, "CompareAndSwap") || strings.HasPrefix(name, "Add")) {
					limit = true
				}
			}
		}
		return true
	})
	if limit {
		return true
	}
	assigned := false
	ast.Inspect(ifs.Body, func(n ast.Node) bool {
		if assigned {
			return false
		}
		var lhs []ast.Expr
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			lhs = n.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		}
		for _, e := range lhs {
			var id *ast.Ident
			switch e := ast.Unparen(e).(type) {
			case *ast.Ident:
				id = e
			case *ast.SelectorExpr:
				id = e.Sel
			}
			if id != nil && read[info.Uses[id]] {
				assigned = true
			}
		}
		return !assigned
	})
	return assigned
}

// Budgeted reports whether the go statement at cur is counted against a
// budget: a statement next to it counts a variable up or down that a
// condition in the loop compares (if budget <= 0 { wait }; go work();
// budget--).
func Budgeted(info *types.Info, loop ast.Node, cur inspector.Cursor) bool {
	var siblings []ast.Stmt
	switch p := cur.Parent().Node().(type) {
	case *ast.BlockStmt:
		siblings = p.List
	case *ast.CaseClause:
		siblings = p.Body
	case *ast.CommClause:
		siblings = p.Body
	}
	counted := make(map[types.Object]bool)
	for _, s := range siblings {
		if obj := Counter(info, s); obj != nil {
			counted[obj] = true
		}
	}
	if len(counted) == 0 {
		return false
	}
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		var cond ast.Expr
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IfStmt:
			cond = n.Cond
		case *ast.ForStmt:
			cond = n.Cond
		}
		if cond != nil {
			for obj := range CondObjects(info, cond) {
				if counted[obj] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// Scan walks scope, the code around the go statement g, for what bounds
// starting g: a send, a receive after g (or any receive when eventLoop
// says the loop itself brings the event), or a call that waits (found).
// Before g it counts the receives that bring an event (a value taken, or
// a case of a select) and the plain <-ch statements that take a token;
// a receive on a Done channel bounds nothing. Function literals, and what
// g itself runs, are not looked into.
func Scan(info *types.Info, scope *ast.BlockStmt, g *ast.GoStmt, eventLoop bool) (found bool, events, tokens int) {
	others := otherCases(scope, g)
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt, *ast.DeferStmt:
			// What a goroutine does is not a bound on starting it, and a
			// deferred call runs after the loop. Only the operands are
			// evaluated here.
			var call *ast.CallExpr
			if gs, ok := n.(*ast.GoStmt); ok {
				if gs == g {
					return false
				}
				call = gs.Call
			} else {
				call = n.(*ast.DeferStmt).Call
			}
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, visit)
			}
			for _, a := range call.Args {
				ast.Inspect(a, visit)
			}
			return false
		case *ast.CommClause:
			// The receive of another case of g's select is an
			// alternative to g's case (another event, or a quit
			// channel), not a wait for the goroutine g started.
			if recv := CommRecv(n.Comm); recv != nil && others[n] {
				if !IsDone(recv) {
					events++
				}
				ast.Inspect(recv, visit)
				for _, s := range n.Body {
					ast.Inspect(s, visit)
				}
				return false
			}
			// A send in a select with a default never waits: it bounds
			// what its own case starts (a try-acquire), nothing else.
			if send, ok := n.Comm.(*ast.SendStmt); ok && hasDefault(scope, n) {
				if n.Pos() <= g.Pos() && g.End() <= n.End() {
					found = true
					return false
				}
				ast.Inspect(send.Chan, visit)
				ast.Inspect(send.Value, visit)
				for _, s := range n.Body {
					ast.Inspect(s, visit)
				}
				return false
			}
		case *ast.SendStmt:
			found = true
		case *ast.ExprStmt:
			if u, ok := ast.Unparen(n.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				switch {
				case IsDone(u.X): // waiting for cancellation bounds nothing
				case n.Pos() > g.End() || eventLoop:
					found = true
				case InSelect(scope, n):
					events++
				default:
					tokens++
				}
				return false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && !IsDone(n.X) {
				if n.Pos() > g.End() || eventLoop {
					found = true
				} else {
					events++
				}
			}
		case *ast.CallExpr:
			if BoundingCall(info, n) {
				found = true
			}
			// A function literal called in place runs here.
			if lit, ok := ast.Unparen(n.Fun).(*ast.FuncLit); ok {
				for _, a := range n.Args {
					ast.Inspect(a, visit)
				}
				ast.Inspect(lit.Body, visit)
				return false
			}
		}
		return !found
	}
	ast.Inspect(scope, visit)
	return found, events, tokens
}

// CalledInPlace reports whether the function literal at cur is called
// where it is written, func() { ... }(), as a statement or an operand:
// not started with go nor deferred.
func CalledInPlace(cur inspector.Cursor) bool {
	lit := cur.Node().(*ast.FuncLit)
	p := cur.Parent()
	for {
		if _, ok := p.Node().(*ast.ParenExpr); !ok {
			break
		}
		p = p.Parent()
	}
	call, ok := p.Node().(*ast.CallExpr)
	if !ok || ast.Unparen(call.Fun) != lit {
		return false
	}
	switch p.Parent().Node().(type) {
	case *ast.GoStmt, *ast.DeferStmt:
		return false
	}
	return true
}

// otherCases returns the cases of the selects in scope that hold g in
// one of their other cases.
func otherCases(scope ast.Node, g *ast.GoStmt) map[*ast.CommClause]bool {
	out := make(map[*ast.CommClause]bool)
	ast.Inspect(scope, func(n ast.Node) bool {
		s, ok := n.(*ast.SelectStmt)
		if !ok || n.Pos() > g.Pos() || g.End() > n.End() {
			return n == nil || n.Pos() <= g.Pos() && g.End() <= n.End()
		}
		for _, c := range s.Body.List {
			if cc := c.(*ast.CommClause); cc.Pos() > g.Pos() || g.End() > cc.End() {
				out[cc] = true
			}
		}
		return true
	})
	return out
}

// CommRecv returns the channel that a select case's comm receives
// from, or nil for a send or the default case.
func CommRecv(comm ast.Stmt) ast.Expr {
	var x ast.Expr
	switch comm := comm.(type) {
	case *ast.ExprStmt:
		x = comm.X
	case *ast.AssignStmt:
		x = comm.Rhs[0]
	}
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// hasDefault reports whether the select in scope that holds the case cc
// has a default case.
func hasDefault(scope ast.Node, cc *ast.CommClause) bool {
	found := false
	ast.Inspect(scope, func(n ast.Node) bool {
		s, ok := n.(*ast.SelectStmt)
		if !ok || found {
			return !found
		}
		if slices.Contains(s.Body.List, ast.Stmt(cc)) {
			for _, c := range s.Body.List {
				if c.(*ast.CommClause).Comm == nil {
					found = true
				}
			}
			return false
		}
		return true
	})
	return found
}

// TokenPool reports whether guard, an if or for statement between the
// event loop and the go statement g, starts g only with a token from a
// pool that g's goroutines refill when they end (a list of worker ids,
// a count of free slots): a conjunct of its condition reads a local
// variable that its body assigns (takes a token), and that the loop
// assigns elsewhere only in select cases receiving from a channel that
// the function literal g starts sends to (gives one back), never
// through its address.
func TokenPool(info *types.Info, loop ast.Stmt, guard ast.Stmt, g *ast.GoStmt) bool {
	var cond ast.Expr
	var body *ast.BlockStmt
	switch guard := guard.(type) {
	case *ast.IfStmt:
		cond, body = guard.Cond, guard.Body
	case *ast.ForStmt:
		cond, body = guard.Cond, guard.Body
	}
	lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit)
	if cond == nil || !ok {
		return false
	}
	// The channels g's goroutine sends to: its completions.
	completions := make(map[string]bool)
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt:
			completions[types.ExprString(ast.Unparen(n.Chan))] = true
		}
		return true
	})
	if len(completions) == 0 {
		return false
	}
	for _, e := range conjuncts(cond) {
		if !comparison(e) {
			continue // len(ids) > 0 || n > 0 holds without a token
		}
		for obj := range CondObjects(info, e) {
			v := obj.(*types.Var)
			if v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
				continue // others may change it
			}
			if takes(info, body, v) && onlyTakes(info, body, v) && refilledOnlyBy(info, loop, body, v, completions) {
				return true
			}
		}
	}
	return false
}

// comparison reports whether e is a comparison of operands without
// logical operators.
func comparison(e ast.Expr) bool {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return false
	}
	logical := false
	ast.Inspect(b, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				logical = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				logical = true
			}
		}
		return !logical
	})
	return !logical
}

// takes reports whether a statement of body itself, not one nested in
// a branch, takes a token from v: every run of the body does. A token
// is taken by slicing (ids = ids[:len(ids)-1]) or counting (free--,
// running++, n -= k).
func takes(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	for _, st := range body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if len(st.Lhs) != 1 || len(st.Rhs) != 1 || !isVar(info, st.Lhs[0], v) {
				continue
			}
			if st.Tok == token.ADD_ASSIGN || st.Tok == token.SUB_ASSIGN {
				return true
			}
			if sl, ok := ast.Unparen(st.Rhs[0]).(*ast.SliceExpr); ok && st.Tok == token.ASSIGN && isVar(info, sl.X, v) {
				return true
			}
		case *ast.IncDecStmt:
			if isVar(info, st.X, v) {
				return true
			}
		}
	}
	return false
}

// onlyTakes reports whether every assignment to v in body takes a token
// (see takes) and none gives one back (ids = append(ids, id)), counting
// those in function literals as givers, and whether &v stays out of it.
func onlyTakes(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			if assignsAnywhere(info, n.Body, v) {
				ok = false
			}
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && isVar(info, n.X, v) {
				ok = false
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if isVar(info, l, v) && !takes(info, &ast.BlockStmt{List: []ast.Stmt{n}}, v) {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// conjuncts returns the operands of a chain of && in e.
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{e}
}

func isVar(info *types.Info, e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && info.ObjectOf(id) == v
}

// refilledOnlyBy reports whether loop, outside the statement body,
// assigns v only in the bodies of select cases that receive from one
// of the channels in completions, never in a function literal or
// through &v.
func refilledOnlyBy(info *types.Info, loop ast.Node, body *ast.BlockStmt, v *types.Var, completions map[string]bool) bool {
	ok := true
	visit := func(n ast.Node) bool {
		if !ok || n == nil || n == body {
			return false
		}
		switch n := n.(type) {
		case *ast.CommClause:
			if ch := CommRecv(n.Comm); ch != nil && completions[types.ExprString(ast.Unparen(ch))] {
				for _, s := range n.Body {
					ast.Inspect(s, func(m ast.Node) bool {
						if u, isU := m.(*ast.UnaryExpr); isU && u.Op == token.AND && isVar(info, u.X, v) {
							ok = false
						}
						if lit, isLit := m.(*ast.FuncLit); isLit && assignsAnywhere(info, lit.Body, v) {
							ok = false
						}
						return ok
					})
				}
				return false
			}
		case *ast.FuncLit:
			if assignsAnywhere(info, n.Body, v) {
				ok = false
			}
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && isVar(info, n.X, v) {
				ok = false
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if isVar(info, l, v) {
					ok = false
				}
			}
		case *ast.IncDecStmt:
			if isVar(info, n.X, v) {
				ok = false
			}
		}
		return ok
	}
	ast.Inspect(loop, visit)
	return ok
}

// assignsAnywhere is assigns, function literals included.
func assignsAnywhere(info *types.Info, n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if isVar(info, l, v) {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if isVar(info, n.X, v) {
				found = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && isVar(info, n.X, v) {
				found = true
			}
		}
		return !found
	})
	return found
}
