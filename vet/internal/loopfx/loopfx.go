// Package loopfx answers one question about a for loop, for the
// callfreeloop and selectspin analyzers: can the loop's own work bring
// it to an end? It computes, syntactically and conservatively, the
// memory the loop's exit conditions read and the memory the loop body
// writes. When the two are disjoint, the loop leaves only through
// something outside it (another goroutine's write, a channel becoming
// ready): it is a wait, not a computation.
//
// Every approximation errs towards "the loop progresses", so that the
// analyzers stay quiet when unsure:
//   - a write through a pointer (*p = v) may write anything, and so may
//     a sync/atomic write through one (atomic.AddInt32(p, 1), p.Add(1));
//     atomic.AddInt32(&x, 1) and x.Add(1) write x;
//   - an element or field read may alias any variable whose address is
//     taken anywhere in the package, and any package-level variable;
//   - a goto, or an exit that no if/switch guards, counts as progress;
//   - the bodies of function literals are ignored: a call-free loop
//     cannot run them, and a loop that calls is not a spin here.
package loopfx

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

type kind uint8

const (
	varLoc   kind = iota // a variable, local or package-level
	fieldLoc             // a struct field, reached through any base
	heapLoc              // a slice, map or pointed-to element
)

type loc struct {
	kind kind
	obj  types.Object // nil for heapLoc
}

// Effects is a set of memory locations.
type Effects struct {
	locs map[loc]bool
	any  bool // a location the analysis cannot name: matches all reads
}

func (e *Effects) add(l loc) {
	if e.locs == nil {
		e.locs = make(map[loc]bool)
	}
	e.locs[l] = true
}

// Empty reports whether e names no location.
func (e Effects) Empty() bool { return !e.any && len(e.locs) == 0 }

// Analysis holds the package-wide facts the queries need.
type Analysis struct {
	info    *types.Info
	aliased map[*types.Var]bool // address taken somewhere in the package
}

// New prepares queries over the package whose syntax is files.
func New(info *types.Info, files []*ast.File) *Analysis {
	a := &Analysis{info: info, aliased: make(map[*types.Var]bool)}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					a.markAliased(n.X)
				}
			case *ast.SliceExpr:
				// Slicing an array value yields a pointer into it.
				if _, ok := a.under(n.X).(*types.Array); ok {
					a.markAliased(n.X)
				}
			case *ast.SelectorExpr:
				// x.M with a pointer receiver takes &x implicitly.
				if sel, ok := info.Selections[n]; ok && sel.Kind() != types.FieldVal {
					if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptr := sig.Recv().Type().Underlying().(*types.Pointer); ptr {
							if _, xptr := a.under(n.X).(*types.Pointer); !xptr {
								a.markAliased(n.X)
							}
						}
					}
				}
			}
			return true
		})
	}
	return a
}

func (a *Analysis) under(e ast.Expr) types.Type {
	if t := a.info.TypeOf(e); t != nil {
		return t.Underlying()
	}
	return nil
}

func (a *Analysis) markAliased(e ast.Expr) {
	if v := a.root(e); v != nil {
		a.aliased[v] = true
	}
}

// root returns the variable whose storage holds e, if e is a variable
// or a field or array element stored inline in one.
func (a *Analysis) root(e ast.Expr) *types.Var {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := a.info.ObjectOf(e).(*types.Var)
		if v != nil && !v.IsField() {
			return v
		}
	case *ast.SelectorExpr:
		if sel, ok := a.info.Selections[e]; ok {
			if sel.Kind() == types.FieldVal && !sel.Indirect() {
				if _, ptr := a.under(e.X).(*types.Pointer); !ptr {
					return a.root(e.X)
				}
			}
			return nil
		}
		v, _ := a.info.Uses[e.Sel].(*types.Var) // pkg.V
		return v
	case *ast.IndexExpr:
		if _, ok := a.under(e.X).(*types.Array); ok {
			return a.root(e.X)
		}
	}
	return nil
}

// mayAlias reports whether a write or read through a pointer could
// reach variable v.
func (a *Analysis) mayAlias(v *types.Var) bool {
	if a.aliased[v] {
		return true
	}
	// Package-level variables may be reached through pointers held
	// anywhere, including other packages.
	return v.Parent() != nil && v.Parent() == v.Pkg().Scope()
}

// Reads returns the locations that evaluating e reads.
func (a *Analysis) Reads(exprs ...ast.Expr) Effects {
	var fx Effects
	for _, e := range exprs {
		if e != nil {
			a.reads(e, &fx)
		}
	}
	return fx
}

func (a *Analysis) reads(e ast.Expr, fx *Effects) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if v, ok := a.info.Uses[n].(*types.Var); ok && !v.IsField() {
				fx.add(loc{varLoc, v})
			}
		case *ast.SelectorExpr:
			if sel, ok := a.info.Selections[n]; ok {
				if sel.Kind() == types.FieldVal {
					fx.add(loc{fieldLoc, sel.Obj()})
				}
				a.reads(n.X, fx)
				return false
			}
			// A qualified identifier: the Ident case sees n.Sel.
		case *ast.IndexExpr:
			switch a.under(n.X).(type) {
			case *types.Slice, *types.Map, *types.Pointer:
				fx.add(loc{heapLoc, nil})
			}
		case *ast.StarExpr:
			if tv, ok := a.info.Types[n]; !ok || !tv.IsType() {
				fx.add(loc{heapLoc, nil})
			}
		case *ast.KeyValueExpr:
			// In a struct literal the key names a field, not a read.
			if _, ok := n.Key.(*ast.Ident); ok {
				a.reads(n.Value, fx)
				return false
			}
		}
		return true
	})
}

// Writes returns the locations the statements under n may write,
// ignoring the subtrees for which skip reports true (skip may be nil)
// and the bodies of function literals.
func (a *Analysis) Writes(n ast.Node, skip func(ast.Node) bool) Effects {
	var fx Effects
	if n == nil {
		return fx
	}
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if skip != nil && skip(n) {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				a.lhs(lhs, &fx)
			}
		case *ast.IncDecStmt:
			a.lhs(n.X, &fx)
		case *ast.CallExpr:
			a.atomicWrite(n, &fx)
		case *ast.RangeStmt:
			if n.Key != nil {
				a.lhs(n.Key, &fx)
			}
			if n.Value != nil {
				a.lhs(n.Value, &fx)
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				a.lhs(id, &fx)
			}
		}
		return true
	})
	return fx
}

// atomicWrite records what a call of sync/atomic writes, for the loops
// that selectspin lets poll with atomics: atomic.AddInt64(&x, 1) writes
// x, n.Add(1) on an atomic.Int64 writes n; through any other pointer,
// anything.
func (a *Analysis) atomicWrite(call *ast.CallExpr, fx *Effects) {
	fn := typeutil.StaticCallee(a.info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" {
		return
	}
	if strings.HasPrefix(fn.Name(), "Load") {
		return // reads only
	}
	if fn.Type().(*types.Signature).Recv() != nil {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			fx.any = true
			return
		}
		a.atomicTarget(sel.X, fx)
		return
	}
	if len(call.Args) == 0 {
		return
	}
	if addr, ok := ast.Unparen(call.Args[0]).(*ast.UnaryExpr); ok && addr.Op == token.AND {
		a.lhs(addr.X, fx)
		return
	}
	fx.any = true // atomic.AddInt32(p, 1) through a pointer
}

// atomicTarget records the write of a method of a sync/atomic type to
// its receiver x: the variable or field x names, or anything when x
// goes through a pointer the analysis cannot name.
func (a *Analysis) atomicTarget(x ast.Expr, fx *Effects) {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		if v, ok := a.info.ObjectOf(x).(*types.Var); ok {
			if _, ptr := a.under(x).(*types.Pointer); !ptr {
				fx.add(loc{varLoc, v})
				return
			}
		}
	case *ast.SelectorExpr:
		if sel, ok := a.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			if _, ptr := a.under(x).(*types.Pointer); !ptr {
				fx.add(loc{fieldLoc, sel.Obj()})
				if v := a.root(x); v != nil {
					fx.add(loc{varLoc, v})
				}
				return
			}
		}
	}
	fx.any = true
}

func (a *Analysis) lhs(e ast.Expr, fx *Effects) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if e.Name == "_" {
			return
		}
		if v, ok := a.info.ObjectOf(e).(*types.Var); ok {
			fx.add(loc{varLoc, v})
			return
		}
	case *ast.SelectorExpr:
		if sel, ok := a.info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			switch sel.Obj().Type().Underlying().(type) {
			case *types.Struct, *types.Array:
				// Storing a whole struct or array writes fields
				// that reads may reach by other names.
				fx.any = true
				return
			}
			fx.add(loc{fieldLoc, sel.Obj()})
			if v := a.root(e); v != nil {
				fx.add(loc{varLoc, v})
			}
			return
		}
		if v, ok := a.info.Uses[e.Sel].(*types.Var); ok {
			fx.add(loc{varLoc, v})
			return
		}
	case *ast.IndexExpr:
		if _, ok := a.under(e.X).(*types.Array); ok {
			a.lhs(e.X, fx)
			return
		}
		fx.add(loc{heapLoc, nil})
		return
	}
	// *p = v, and anything not recognised above.
	fx.any = true
}

// Conflict reports whether a location in writes may be one in reads.
func (a *Analysis) Conflict(reads, writes Effects) bool {
	if reads.Empty() {
		return false
	}
	if writes.any || reads.any {
		return true
	}
	for r := range reads.locs {
		for w := range writes.locs {
			if a.conflict(r, w) {
				return true
			}
		}
	}
	return false
}

func (a *Analysis) conflict(r, w loc) bool {
	if r == w {
		return true
	}
	switch {
	case r.kind == varLoc && w.kind == varLoc:
		return false // distinct variables never overlap
	case r.kind == varLoc:
		return a.mayAlias(r.obj.(*types.Var))
	case w.kind == varLoc:
		return a.mayAlias(w.obj.(*types.Var))
	case r.kind == fieldLoc && w.kind == fieldLoc:
		return false // distinct fields never overlap
	}
	return true // heap against heap or field
}

// Exit is a statement that leaves a loop: a return, a break or
// continue aimed outside it, or a goto. Conds are the expressions that
// decide whether control reaches it from the loop body; none means the
// first iteration that gets there leaves the loop.
type Exit struct {
	Stmt  ast.Stmt
	Conds []ast.Expr
}

// Exits lists the statements that leave loop (a *ast.ForStmt or
// *ast.RangeStmt) from its body, skipping subtrees for which skip
// reports true. label is the loop's label, or nil.
func (a *Analysis) Exits(loop ast.Stmt, label *ast.Ident, skip func(ast.Node) bool) []Exit {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	default:
		return nil
	}
	var loopLabel types.Object
	if label != nil {
		loopLabel = a.info.Defs[label]
	}
	var exits []Exit
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok || (skip != nil && skip(n)) {
			return false
		}
		switch n := n.(type) {
		case *ast.ReturnStmt:
			exits = append(exits, Exit{n, conds(stack)})
		case *ast.BranchStmt:
			if a.leaves(n, stack, loopLabel) {
				var c []ast.Expr
				if n.Tok != token.GOTO { // a goto counts as progress
					c = conds(stack)
				}
				exits = append(exits, Exit{n, c})
			}
		}
		stack = append(stack, n)
		return true
	})
	return exits
}

// leaves reports whether b, found under the loop body by the path
// stack, transfers control out of the loop.
func (a *Analysis) leaves(b *ast.BranchStmt, stack []ast.Node, loopLabel types.Object) bool {
	switch b.Tok {
	case token.GOTO:
		return true
	case token.FALLTHROUGH:
		return false
	}
	if b.Label != nil {
		target := a.info.Uses[b.Label]
		if target == loopLabel {
			return b.Tok == token.BREAK
		}
		for _, n := range stack {
			if ls, ok := n.(*ast.LabeledStmt); ok && a.info.Defs[ls.Label] == target {
				return false // aimed at a statement inside the loop
			}
		}
		return true // aimed at an enclosing statement
	}
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return false // an inner loop takes it
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if b.Tok == token.BREAK {
				return false
			}
		}
	}
	return b.Tok == token.BREAK
}

// conds returns the expressions that guard the innermost node of the
// path stack.
func conds(stack []ast.Node) []ast.Expr {
	var out []ast.Expr
	for _, n := range stack {
		switch n := n.(type) {
		case *ast.IfStmt:
			out = append(out, n.Cond)
		case *ast.SwitchStmt:
			if n.Tag != nil {
				out = append(out, n.Tag)
			}
			// A default clause depends on every other case.
			for _, s := range n.Body.List {
				out = append(out, s.(*ast.CaseClause).List...)
			}
		case *ast.TypeSwitchStmt:
			switch s := n.Assign.(type) {
			case *ast.ExprStmt:
				out = append(out, s.X)
			case *ast.AssignStmt:
				out = append(out, s.Rhs...)
			}
		case *ast.CommClause:
			if n.Comm != nil {
				// The case fires on an event outside the loop;
				// what it reads still guards the exit.
				switch c := n.Comm.(type) {
				case *ast.ExprStmt:
					out = append(out, c.X)
				case *ast.SendStmt:
					out = append(out, c.Chan, c.Value)
				case *ast.AssignStmt:
					out = append(out, c.Rhs...)
				}
			}
		case *ast.ForStmt:
			if n.Cond != nil {
				out = append(out, n.Cond)
			}
		case *ast.RangeStmt:
			out = append(out, n.X)
		}
	}
	return out
}

// Progresses reports whether the loop's own writes can end it: its
// condition, or the guard of one of its exits, reads a location that
// its body or post statement writes, or an exit is unguarded. Subtrees
// for which skip reports true do not count (skip may be nil).
func (a *Analysis) Progresses(loop *ast.ForStmt, label *ast.Ident, skip func(ast.Node) bool) bool {
	if loop.Cond != nil {
		if tv, ok := a.info.Types[loop.Cond]; ok && tv.Value != nil {
			// A constant condition: false never runs, true
			// is the same as none.
			if tv.Value.String() == "false" {
				return true
			}
		}
	}
	writes := a.Writes(loop.Body, skip)
	if loop.Post != nil {
		post := a.Writes(loop.Post, nil)
		writes = union(writes, post)
	}
	if loop.Cond != nil && a.Conflict(a.Reads(loop.Cond), writes) {
		return true
	}
	for _, e := range a.Exits(loop, label, skip) {
		if len(e.Conds) == 0 || a.Conflict(a.Reads(e.Conds...), writes) {
			return true
		}
	}
	return false
}

func union(x, y Effects) Effects {
	var u Effects
	u.any = x.any || y.any
	for l := range x.locs {
		u.add(l)
	}
	for l := range y.locs {
		u.add(l)
	}
	return u
}

// HasExits reports whether loop has any exit outside skipped subtrees.
func (a *Analysis) HasExits(loop ast.Stmt, label *ast.Ident, skip func(ast.Node) bool) bool {
	return len(a.Exits(loop, label, skip)) > 0
}
