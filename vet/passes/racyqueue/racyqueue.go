// Package racyqueue defines an Analyzer that reports struct fields
// accessed with sync/atomic in one place and plainly in another.
//
// # Analyzer racyqueue
//
// racyqueue: report plain accesses to fields that are elsewhere accessed with sync/atomic
//
// The indices of a hand-written work-stealing run queue are shared
// between the owner, who pushes and pops at one end, and thieves, who
// take from the other. They are usually written with the functions of
// sync/atomic, and it is easy to leave one access plain:
//
//	func (q *Queue) Push(t Task) {
//		q.buf[q.tail%256] = t
//		q.tail++ // plain, while thieves call atomic.LoadUint32(&q.tail)
//	}
//
// A plain access that can run concurrently with an atomic one is a data
// race: the compiler may cache, tear or reorder it, and the queue then
// hands out a task twice or loses it. Use sync/atomic for every access
// to the field, or better give the field a type from sync/atomic
// (atomic.Uint32 and friends), which cannot be accessed plainly.
//
// A field counts as used atomically when its address is passed as the
// first argument of a function of sync/atomic (atomic.AddInt64(&s.f, 1),
// atomic.LoadUint32(&s.f), atomic.CompareAndSwapPointer(&s.p, ...)).
// The package that declares such a field exports an object fact on it,
// so that plain accesses in importing packages are reported too; a
// field declared in one package and used atomically only in another is
// checked within that other package alone.
//
// These plain accesses are not reported:
//
//   - keys of composite literals (Queue{head: 1}): the value is not
//     shared yet;
//   - accesses through a local pointer variable that the function itself
//     defined from &T{...} or new(T): constructors set fields before
//     publishing the value (an access made after the function published
//     it is missed);
//   - accesses to a copy: a struct (or array) value held in a parameter,
//     receiver or local variable, reached without following a pointer,
//     whose address the function never takes and that no function
//     literal captures. If making the copy raced, the race is at the
//     copy, which this analyzer does not look at;
//   - reads in a function that locks a sync.Mutex or sync.RWMutex before
//     them, or whose name ends in "Locked" or "locked": fields written
//     atomically under a lock and read atomically without it may be read
//     plainly by lock holders (the double-checked pattern of the old
//     sync.Once). Plain writes are reported even under a lock, because
//     lock-free atomic readers race with them;
//   - taking the field's address for anything else (&s.f passed to a
//     helper): what the helper does is not known;
//   - fields whose type comes from sync/atomic (atomic.Int64 and the
//     like): they have no plain accesses.
//
// The analyzer suggests no fix: turning a plain access into an atomic
// one needs the right operation and memory order, which is a decision
// for the author.
package racyqueue

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// OptIn reports whether the analyzer is left out of a suite unless the
// user enables it. racyqueue runs by default.
const OptIn = false

// Analyzer reports plain accesses to fields used with sync/atomic.
var Analyzer = &analysis.Analyzer{
	Name:      "racyqueue",
	Doc:       "report plain accesses to fields that are elsewhere accessed with sync/atomic\n\nThe head and tail of a hand-written run queue are shared by the owner and the thieves; one plain read or write among atomic ones is a data race that makes the queue run a task twice or lose it. Use sync/atomic for every access, or an atomic.Uint32-style field. Composite-literal keys, accesses through a value the function itself just built, reads under a lock and fields of sync/atomic types are not reported.",
	URL:       "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/racyqueue",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(usedAtomically)},
	Run:       run,
}

// usedAtomically is the fact that a struct field is passed by address to
// sync/atomic somewhere in the package that declares it. It is an object
// fact on the field's *types.Var; the facts machinery of go/analysis
// (internal/facts, which encodes objects with objectpath) carries facts
// on fields to every importer, as it does for methods.
type usedAtomically struct{}

func (*usedAtomically) AFact() {}

func (*usedAtomically) String() string { return "usedAtomically" }

func run(pass *analysis.Pass) (any, error) {
	inspect := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo

	// Pass 1: the fields of this package passed to sync/atomic, and the
	// selector expressions that are those atomic operands.
	atomicFields := make(map[*types.Var]token.Pos) // field -> first atomic use
	atomicOperand := make(map[*ast.SelectorExpr]bool)
	atomicAddr := make(map[*ast.UnaryExpr]bool) // &x.f passed to sync/atomic
	for cur := range inspect.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || len(call.Args) == 0 {
			continue
		}
		if sig := fn.Type().(*types.Signature); sig.Recv() != nil {
			continue // methods of atomic.Int64 and friends
		}
		addr, ok := ast.Unparen(call.Args[0]).(*ast.UnaryExpr)
		if !ok || addr.Op != token.AND {
			continue
		}
		sel, ok := ast.Unparen(addr.X).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		field := fieldOf(info, sel)
		if field == nil {
			continue
		}
		atomicOperand[sel] = true
		atomicAddr[addr] = true
		if _, seen := atomicFields[field]; !seen {
			atomicFields[field] = call.Pos()
		}
	}
	for field := range atomicFields {
		if field.Pkg() == pass.Pkg {
			pass.ExportObjectFact(field, new(usedAtomically))
		}
	}

	// Pass 2: every other use of such a field, in this package.
	for cur := range inspect.Root().Preorder((*ast.SelectorExpr)(nil)) {
		sel := cur.Node().(*ast.SelectorExpr)
		if atomicOperand[sel] {
			continue
		}
		field := fieldOf(info, sel)
		if field == nil {
			continue
		}
		if _, ok := atomicFields[field]; !ok && !(field.Pkg() != pass.Pkg && pass.ImportObjectFact(field, new(usedAtomically))) {
			continue
		}

		write, addrTaken := accessKind(info, cur)
		if addrTaken {
			continue
		}
		fnNode, fnBody, fnName := enclosingFunc(cur)
		if fnBody == nil {
			continue // package-level initializer: runs before any goroutine shares the value
		}
		if constructor(fnNode) ||
			builtLocally(info, sel.X, fnNode, fnBody, atomicAddr) ||
			pointsToLocal(info, sel.X, fnNode, atomicAddr) ||
			privateCopy(info, sel, fnNode, atomicAddr) {
			continue
		}
		if !write && (strings.HasSuffix(fnName, "Locked") || strings.HasSuffix(fnName, "locked") ||
			lockedBefore(info, fnBody, sel.Pos())) {
			continue
		}

		what := "read"
		if write {
			what = "write"
		}
		pass.Report(analysis.Diagnostic{
			Pos: sel.Pos(),
			End: sel.End(),
			Message: "plain " + what + " of " + fieldName(field) + ", which is accessed with sync/atomic elsewhere: " +
				"it races with the atomic accesses of the owner or the thieves, so the queue may run a task twice or lose it; " +
				"use sync/atomic for every access or make the field an atomic type",
		})
	}
	return nil, nil
}

// fieldOf returns the struct field, by origin, selected by sel, or nil.
func fieldOf(info *types.Info, sel *ast.SelectorExpr) *types.Var {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil
	}
	v, ok := s.Obj().(*types.Var)
	if !ok {
		return nil
	}
	return v.Origin()
}

// fieldName names a field after the package-level struct type that
// declares it, when there is one. A field has no link to its struct in
// go/types, so the declaring package's scope is searched.
func fieldName(field *types.Var) string {
	if pkg := field.Pkg(); pkg != nil {
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for f := range st.Fields() {
					if f == field {
						return tn.Name() + "." + field.Name()
					}
				}
			}
		}
	}
	return "field " + field.Name()
}

// accessKind tells whether the selector at cur is written (assigned,
// incremented, or ranged into) and whether its address is taken, in
// which case the access happens elsewhere.
func accessKind(info *types.Info, cur inspector.Cursor) (write, addrTaken bool) {
	parent := cur.Parent()
	sel := cur.Node()
	// Walk up through parentheses.
	for {
		if p, ok := parent.Node().(*ast.ParenExpr); ok {
			sel = p
			parent = parent.Parent()
			continue
		}
		break
	}
	switch p := parent.Node().(type) {
	case *ast.UnaryExpr:
		return false, p.Op == token.AND
	case *ast.AssignStmt:
		for _, lhs := range p.Lhs {
			if lhs == sel {
				return true, false
			}
		}
	case *ast.IncDecStmt:
		return true, false
	case *ast.RangeStmt:
		return p.Key == sel || p.Value == sel, false
	case *ast.SelectorExpr:
		// s.f.g selects inside the field: an access to part of it, or a
		// method call with the field as receiver, which may take its
		// address; only an explicit read or write of the field counts.
		if p.X == sel {
			return false, methodWithPointerRecv(info, p)
		}
	}
	return false, false
}

// methodWithPointerRecv reports whether p, whose operand is a field
// value, calls a method with a pointer receiver, which takes the
// field's address implicitly.
func methodWithPointerRecv(info *types.Info, p *ast.SelectorExpr) bool {
	s, ok := info.Selections[p]
	if !ok || s.Kind() == types.FieldVal {
		return false
	}
	if _, isPtr := s.Recv().Underlying().(*types.Pointer); isPtr {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return false
	}
	_, ptrRecv := fn.Type().(*types.Signature).Recv().Type().(*types.Pointer)
	return ptrRecv
}

// enclosingFunc returns the innermost function (declaration or literal)
// around cur, with its body and, for declarations, its name.
func enclosingFunc(cur inspector.Cursor) (ast.Node, *ast.BlockStmt, string) {
	for c := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		switch fn := c.Node().(type) {
		case *ast.FuncDecl:
			return fn, fn.Body, fn.Name.Name
		case *ast.FuncLit:
			// Literals inherit the name of the declaration around them,
			// for the "Locked" naming convention.
			name := ""
			for d := range c.Enclosing((*ast.FuncDecl)(nil)) {
				name = d.Node().(*ast.FuncDecl).Name.Name
				break
			}
			return fn, fn.Body, name
		}
	}
	return nil, nil, ""
}

// builtLocally reports whether x is a local pointer variable of the
// function with body fnBody that the function defined from &T{...} or
// new(T): constructors set fields before publishing the value. (Local
// struct values are judged by privateCopy.)
func builtLocally(info *types.Info, x ast.Expr, fn ast.Node, fnBody *ast.BlockStmt, atomicAddr map[*ast.UnaryExpr]bool) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Pos() < fnBody.Pos() || v.Pos() >= fnBody.End() {
		return false // a parameter, a receiver, a captured or package variable
	}
	if _, isPtr := v.Type().Underlying().(*types.Pointer); !isPtr {
		return false
	}
	built := false
	ast.Inspect(fnBody, func(n ast.Node) bool {
		if built {
			return false
		}
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if info.Defs[name] == v && i < len(n.Values) {
					built = fresh(info, n.Values[i]) || pointsToLocal(info, n.Values[i], fn, atomicAddr)
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, lhs := range n.Lhs {
					if lid, ok := lhs.(*ast.Ident); ok && info.Defs[lid] == v {
						built = fresh(info, n.Rhs[i]) || pointsToLocal(info, n.Rhs[i], fn, atomicAddr)
					}
				}
			}
		}
		return !built
	})
	return built
}

// privateCopy reports whether sel reads or writes a field of a struct
// value that only this function can see: a parameter, receiver or local
// variable of struct (or array) type, reached without following a
// pointer, whose address the function never takes and that no function
// literal captures. Such a value is a copy; if making the copy raced,
// the race is at the copy, not here.
func privateCopy(info *types.Info, sel *ast.SelectorExpr, fn ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	root := valueRoot(info, sel)
	if root == nil {
		return false
	}
	return privateVar(info, root, fn, atomicAddr)
}

// privateVar reports whether the variable used by id is a non-pointer
// parameter, receiver or local variable of fn whose address fn takes
// only to pass it to sync/atomic (which keeps no pointer) and that no
// function literal in fn captures.
func privateVar(info *types.Info, id *ast.Ident, fn ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pos() < fn.Pos() || v.Pos() >= fn.End() {
		return false
	}
	if _, isPtr := v.Type().Underlying().(*types.Pointer); isPtr {
		return false
	}
	private := true
	ast.Inspect(fn, func(n ast.Node) bool {
		if !private {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if n == fn {
				return true
			}
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && info.Uses[id] == v {
					private = false
				}
				return private
			})
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && !atomicAddr[n] && valueRoot(info, n.X) != nil && info.Uses[valueRoot(info, n.X)] == v {
				// Converted to a pointer to the same memory, the address
				// stays in the function only if it is defined right here
				// as a local pointer: pointsToLocal covers that use.
				if !localPointerDef(info, n, fn) {
					private = false
				}
			}
		case *ast.SelectorExpr:
			// A method with a pointer receiver called on the value, or
			// on a field of it, takes its address implicitly.
			if s, ok := info.Selections[n]; ok && s.Kind() == types.MethodVal && !s.Indirect() {
				if _, isPtr := s.Recv().Underlying().(*types.Pointer); !isPtr {
					if f, ok := s.Obj().(*types.Func); ok {
						if _, ptrRecv := f.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptrRecv {
							if r := valueRoot(info, n.X); r != nil && info.Uses[r] == v {
								private = false
							}
						}
					}
				}
			}
		}
		return private
	})
	return private
}

// valueRoot returns the variable at the root of e when e reaches it
// through field selections and array indexing only, without following
// a pointer (x, x.f, x.a[i].g), or nil.
func valueRoot(info *types.Info, e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			if _, ok := info.Uses[x].(*types.Var); !ok {
				return nil
			}
			if _, isPtr := info.TypeOf(x).Underlying().(*types.Pointer); isPtr {
				return nil
			}
			return x
		case *ast.SelectorExpr:
			s, ok := info.Selections[x]
			if !ok || s.Kind() != types.FieldVal || s.Indirect() {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			t := info.TypeOf(x.X)
			if t == nil {
				return nil
			}
			if _, isArray := t.Underlying().(*types.Array); !isArray {
				return nil
			}
			e = x.X
		default:
			return nil
		}
	}
}

// pointsToLocal reports whether e is the address of a private variable
// of fn (see privateVar), possibly converted through unsafe.Pointer, as
// in (*eface)(unsafe.Pointer(&v)), the way sync/atomic.Value looks into
// an interface value it holds in a local variable.
func pointsToLocal(info *types.Info, e ast.Expr, fn ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	addr := localAddr(info, e)
	if addr == nil {
		return false
	}
	root := valueRoot(info, addr.X)
	return root != nil && privateVar(info, root, fn, atomicAddr)
}

// localAddr returns the &x expression inside e when e is &x or a
// conversion of it, directly or through unsafe.Pointer.
func localAddr(info *types.Info, e ast.Expr) *ast.UnaryExpr {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				if _, lit := ast.Unparen(x.X).(*ast.CompositeLit); !lit {
					return x
				}
			}
			return nil
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
				e = x.Args[0]
				continue
			}
			return nil
		default:
			return nil
		}
	}
}

// localPointerDef reports whether the address expression addr is used
// only to access the variable through a pointer in the same expression
// ((*T)(unsafe.Pointer(&v)).f = x) or to define a local pointer that
// itself is only used to select fields, outside function literals
// (p := (*T)(unsafe.Pointer(&v)); p.f = x). Accesses through such
// pointers are judged where they happen, by pointsToLocal and
// builtLocally.
func localPointerDef(info *types.Info, addr *ast.UnaryExpr, fn ast.Node) bool {
	var defined types.Object
	direct := false
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if localAddr(info, n.X) == addr {
				direct = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, rhs := range n.Rhs {
					if id, ok := n.Lhs[i].(*ast.Ident); ok && localAddr(info, rhs) == addr {
						defined = info.Defs[id]
					}
				}
			}
		case *ast.ValueSpec:
			for i, val := range n.Values {
				if i < len(n.Names) && localAddr(info, val) == addr {
					defined = info.Defs[n.Names[i]]
				}
			}
		}
		return true
	})
	if direct {
		return true
	}
	if defined == nil {
		return false
	}
	// Every use of the pointer selects a field, outside literals.
	bases := make(map[*ast.Ident]bool)
	ok := true
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			if n != fn {
				ast.Inspect(n.Body, func(m ast.Node) bool {
					if id, isID := m.(*ast.Ident); isID && info.Uses[id] == defined {
						ok = false
					}
					return ok
				})
				return false
			}
		case *ast.SelectorExpr:
			if id, isID := ast.Unparen(n.X).(*ast.Ident); isID {
				if s, isSel := info.Selections[n]; isSel && s.Kind() == types.FieldVal {
					bases[id] = true
				}
			}
		case *ast.Ident:
			if info.Uses[n] == defined && !bases[n] {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// constructorName reports whether a function's name says that it sets
// a value up before it is shared: init and Init methods and functions,
// and new and New functions (a method named so makes something else,
// often from the shared receiver).
func constructorName(name string, method bool) bool {
	prefixes := []string{"init", "Init", "new", "New"}
	if method {
		prefixes = prefixes[:2]
	}
	for _, prefix := range prefixes {
		if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || !isLower(rest[0])) {
			return true
		}
	}
	return false
}

// constructor reports whether fn is a declared function or method with
// a constructor's name. Function literals do not inherit the name: one
// started by a constructor as a goroutine runs after the value is out.
func constructor(fn ast.Node) bool {
	decl, ok := fn.(*ast.FuncDecl)
	return ok && constructorName(decl.Name.Name, decl.Recv != nil)
}

func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

// fresh reports whether e makes a new pointer: &T{...} or new(T).
func fresh(info *types.Info, e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			_, ok := ast.Unparen(e.X).(*ast.CompositeLit)
			return ok
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			b, ok := info.Uses[id].(*types.Builtin)
			return ok && b.Name() == "new"
		}
	}
	return false
}

// lockedBefore reports whether the function locks a sync.Mutex or
// sync.RWMutex (Lock or RLock) before pos, in source order. Source order
// is an approximation of "while holding the lock" that ignores unlocks:
// enough for the guarded-read pattern and cheap.
func lockedBefore(info *types.Info, fnBody *ast.BlockStmt, pos token.Pos) bool {
	found := false
	ast.Inspect(fnBody, func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= pos {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if fn := typeutil.StaticCallee(info, call); fn != nil && isLock(fn) {
				found = true
			}
		}
		return !found
	})
	return found
}

func isLock(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
		return false
	}
	if fn.Name() != "Lock" && fn.Name() != "RLock" {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return false
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && (n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex")
}
