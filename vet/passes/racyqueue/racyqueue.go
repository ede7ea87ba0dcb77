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
// The fact also records the types whose memory held the field in the
// atomic accesses: for a.b.c.f with a a pointer and b and c struct
// values, a's element type. A struct embedded in (or held by value by)
// several types is different memory in each: its counters may be
// atomic in one and guarded by a lock in another. A plain access is
// reported when its holder is one an atomic access had, or when either
// is the struct that declares the field, a pointer to which may point
// into any type that contains it.
//
// These plain accesses are not reported:
//
//   - accesses in _test.go files: tests read internals after they have
//     joined their goroutines;
//   - keys of composite literals (Queue{head: 1}): the value is not
//     shared yet;
//   - accesses in init and Init functions and methods and in new and
//     New functions, which set a value up before it is shared;
//   - accesses through a local pointer variable that the function itself
//     defined from &T{...}, new(T) or the address of a private variable
//     (below), and that stays in the function: constructors set fields
//     before publishing the value (an access made after the function
//     published it, by passing it to a call, is missed);
//   - accesses to a private copy: a struct (or array) value held in a
//     parameter, receiver or local variable, reached without following a
//     pointer, whose address goes only to sync/atomic, and which function
//     literals capture only if they run on the same goroutine (called in
//     place, deferred or kept in a local variable, in a function without
//     go statements). If making the copy raced, the race is at the copy,
//     which this analyzer does not look at;
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
// Plain reads that are only hints for a compare-and-swap, and accesses
// made while the world is stopped or under exclusive ownership that
// the code establishes by other means, are reported: the analyzer
// cannot see those arguments.
//
// The analyzer is opt-in. On the standard library it reports, besides
// deliberate races (the compare-and-swap hints of internal/sync.Mutex,
// the load-consume reads of sync.Pool), five accesses that are safe for
// reasons it cannot see: sync.Pool's cleanup runs with the world
// stopped, and internal/poll.FD.Close owns the descriptor exclusively.
// Code that owns a hand-written queue should enable it.
//
// The analyzer suggests no fix: turning a plain access into an atomic
// one needs the right operation and memory order, which is a decision
// for the author.
package racyqueue

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// OptIn reports whether the analyzer is left out of a suite unless the
// user enables it. racyqueue is opt-in: see the package documentation.
const OptIn = true

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
//
// Via lists the types (see typeKey) whose memory held the field when it
// was passed to sync/atomic: a field of a struct embedded in several
// types may be atomic in one of them and guarded by a lock in another.
type usedAtomically struct {
	Via []string
}

func (*usedAtomically) AFact() {}

func (f *usedAtomically) String() string { return "usedAtomically(" + strings.Join(f.Via, ",") + ")" }

// enabled is the analyzer's -racyqueue.enable flag. The analyzer is opt-in
// (see OptIn): without the flag it reports nothing and exports no facts,
// so that it can sit in every suite, go vet's included, switched off.
var enabled bool

func init() {
	Analyzer.Flags.BoolVar(&enabled, "enable", false, "turn the analyzer on (it is opt-in: it has false positives on real code)")
}

func run(pass *analysis.Pass) (any, error) {
	if !enabled {
		return nil, nil
	}
	inspect := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo

	// Pass 1: the fields passed to sync/atomic in this package, with the
	// types they were reached through, and the expressions that are
	// those atomic operands.
	via := make(map[*types.Var]map[string]bool)
	atomicOperand := make(map[*ast.SelectorExpr]bool)
	atomicAddr := make(map[*ast.UnaryExpr]bool) // &x.f passed to sync/atomic
	for cur := range inspect.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		fn := typeutil.StaticCallee(info, call)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" || len(call.Args) == 0 {
			continue
		}
		if fn.Type().(*types.Signature).Recv() != nil {
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
		field, holder, _ := selectedField(info, sel)
		if field == nil {
			continue
		}
		atomicOperand[sel] = true
		atomicAddr[addr] = true
		if via[field] == nil {
			via[field] = make(map[string]bool)
		}
		via[field][holder] = true
	}
	for field, seen := range via {
		if field.Pkg() == pass.Pkg {
			pass.ExportObjectFact(field, &usedAtomically{Via: slices.Sorted(maps.Keys(seen))})
		}
	}

	// Pass 2: the plain uses of those fields.
	for cur := range inspect.Root().Preorder((*ast.SelectorExpr)(nil)) {
		sel := cur.Node().(*ast.SelectorExpr)
		if atomicOperand[sel] || strings.HasSuffix(pass.Fset.File(sel.Pos()).Name(), "_test.go") {
			continue
		}
		field, holder, decl := selectedField(info, sel)
		if field == nil {
			continue
		}
		atomicVia := via[field]
		if field.Pkg() != pass.Pkg {
			var fact usedAtomically
			if pass.ImportObjectFact(field, &fact) {
				atomicVia = maps.Clone(atomicVia)
				if atomicVia == nil {
					atomicVia = make(map[string]bool)
				}
				for _, t := range fact.Via {
					atomicVia[t] = true
				}
			}
		}
		// The memory may be the same when the plain access is held by a
		// type an atomic one was held by, or either is held by the struct
		// that declares the field (a pointer to which may point into any
		// type that contains it).
		if len(atomicVia) == 0 || !(atomicVia[holder] || atomicVia[decl] || holder == decl) {
			continue
		}

		write, addrTaken := accessKind(info, cur)
		if addrTaken {
			continue
		}
		var funcs []ast.Node // enclosing functions, innermost first
		for c := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
			funcs = append(funcs, c.Node())
		}
		if len(funcs) == 0 {
			continue // package-level initializer: runs before any goroutine shares the value
		}
		if constructor(funcs[0]) ||
			builtLocally(info, sel.X, funcs, atomicAddr) ||
			pointsToLocal(info, sel.X, funcs, atomicAddr) ||
			privateCopy(info, sel, funcs, atomicAddr) {
			continue
		}
		if !write && (lockedByName(funcs) || lockedBefore(info, funcBody(funcs[0]), sel.Pos())) {
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

// selectedField returns the struct field (by origin) selected by sel,
// the key of the type whose memory holds it, and the key of the struct
// type that declares it. The holder is the type found after the last
// pointer on the way to the field: for a.b.c.f where a is a pointer
// and b and c are struct values (embedded or not), it is a's element
// type, because that is the allocation a.b.c.f lives in.
func selectedField(info *types.Info, sel *ast.SelectorExpr) (field *types.Var, holder, decl string) {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.FieldVal {
		return nil, "", ""
	}
	v, ok := s.Obj().(*types.Var)
	if !ok {
		return nil, "", ""
	}
	holder = holderKey(info, sel.X)
	t := s.Recv()
	path := s.Index()
	for _, i := range path[:len(path)-1] {
		st, ok := deref(t).Underlying().(*types.Struct)
		if !ok {
			return nil, "", ""
		}
		t = st.Field(i).Type()
		if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
			holder = typeKey(t) // an embedded pointer: memory of its own
		}
	}
	return v.Origin(), holder, typeKey(t)
}

// holderKey returns the key of the type whose memory holds the value
// of x: x's own type if it is a pointer (its element) or anything but a
// field selection, and otherwise, for a field x = y.g of a struct value
// y, the holder of y.
func holderKey(info *types.Info, x ast.Expr) string {
	for {
		t := info.TypeOf(x)
		if t == nil {
			return ""
		}
		if _, isPtr := t.Underlying().(*types.Pointer); isPtr {
			return typeKey(t)
		}
		sel, ok := ast.Unparen(x).(*ast.SelectorExpr)
		if !ok {
			return typeKey(t)
		}
		s, ok := info.Selections[sel]
		if !ok || s.Kind() != types.FieldVal {
			return typeKey(t)
		}
		// The holder of sel.X, unless an embedded pointer on the way
		// from sel.X to the field starts new memory.
		inner := ""
		rt := s.Recv()
		path := s.Index()
		for _, i := range path[:len(path)-1] {
			st, ok := deref(rt).Underlying().(*types.Struct)
			if !ok {
				return typeKey(t)
			}
			rt = st.Field(i).Type()
			if _, isPtr := rt.Underlying().(*types.Pointer); isPtr {
				inner = typeKey(rt)
			}
		}
		if inner != "" {
			return inner
		}
		x = sel.X
	}
}

func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// typeKey names a struct type independently of the package that
// mentions it: the package path and name of a named type (of its
// generic origin for an instance), or the type's own spelling.
func typeKey(t types.Type) string {
	t = types.Unalias(deref(t))
	if n, ok := t.(*types.Named); ok {
		obj := n.Origin().Obj()
		if obj.Pkg() != nil {
			return obj.Pkg().Path() + "." + obj.Name()
		}
		return obj.Name()
	}
	return types.TypeString(t, (*types.Package).Path)
}

func funcBody(fn ast.Node) *ast.BlockStmt {
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		return fn.Body
	case *ast.FuncLit:
		return fn.Body
	}
	return nil
}

// lockedByName reports whether the declaration around the access says
// by its name that its caller holds the lock: fooLocked, or its
// literals.
func lockedByName(funcs []ast.Node) bool {
	if decl, ok := funcs[len(funcs)-1].(*ast.FuncDecl); ok {
		return strings.HasSuffix(decl.Name.Name, "Locked") || strings.HasSuffix(decl.Name.Name, "locked")
	}
	return false
}

// declaringFunc returns the innermost of funcs that declares v (as a
// parameter, receiver, result or local), or nil.
func declaringFunc(v *types.Var, funcs []ast.Node) ast.Node {
	for _, fn := range funcs {
		if fn.Pos() <= v.Pos() && v.Pos() < fn.End() {
			return fn
		}
	}
	return nil
}

// confined reports whether no other goroutine can reach the variable v
// declared in fn: fn takes its address only to pass it to sync/atomic
// (which keeps no pointer) or to look at it through a local pointer
// (localPointerDef); no method with a pointer receiver is called on it;
// and the function literals that capture it are called in place,
// deferred, or kept in local variables, in a function without go
// statements.
func confined(info *types.Info, v *types.Var, fn ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	uses := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && info.Uses[id] == v {
				found = true
			}
			return !found
		})
		return found
	}
	ok, hasGo, captured := true, false, false
	ast.PreorderStack(fn, nil, func(n ast.Node, stack []ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			hasGo = true
		case *ast.FuncLit:
			if n == fn || !uses(n.Body) {
				return true
			}
			captured = true
			switch parent := stack[len(stack)-1].(type) {
			case *ast.AssignStmt, *ast.ValueSpec:
			case *ast.CallExpr:
				// Called in place (or deferred): runs on this goroutine,
				// unless the call is a go statement's.
				_, isGo := stack[len(stack)-2].(*ast.GoStmt)
				ok = parent.Fun == n && !isGo
			default:
				ok = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && !atomicAddr[n] {
				if r := valueRoot(info, n.X); r != nil && info.Uses[r] == v && !localPointerDef(info, n, fn) {
					ok = false
				}
			}
		case *ast.SelectorExpr:
			if methodWithPointerRecv(info, n) {
				if r := valueRoot(info, n.X); r != nil && info.Uses[r] == v {
					ok = false
				}
			}
		}
		return ok
	})
	return ok && !(captured && hasGo)
}

// privateCopy reports whether sel reads or writes a field of a struct
// (or array) value that only this goroutine can see: a parameter,
// receiver or local variable, reached without following a pointer,
// that is confined to its function. Such a value is a copy; if making
// the copy raced, the race is at the copy, not here.
func privateCopy(info *types.Info, sel *ast.SelectorExpr, funcs []ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	root := valueRoot(info, sel)
	return root != nil && privateVar(info, root, funcs, atomicAddr)
}

// privateVar reports whether id uses a non-pointer local variable (or
// parameter) that is confined to its function.
func privateVar(info *types.Info, id *ast.Ident, funcs []ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return false
	}
	if _, isPtr := v.Type().Underlying().(*types.Pointer); isPtr {
		return false
	}
	fn := declaringFunc(v, funcs)
	return fn != nil && confined(info, v, fn, atomicAddr)
}

// pointsToLocal reports whether e is the address of a private variable
// (see privateVar), possibly converted through unsafe.Pointer, as in
// (*eface)(unsafe.Pointer(&v)), the way sync/atomic.Value looks into an
// interface value it holds in a local variable.
func pointsToLocal(info *types.Info, e ast.Expr, funcs []ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	addr := localAddr(info, e)
	if addr == nil {
		return false
	}
	root := valueRoot(info, addr.X)
	return root != nil && privateVar(info, root, funcs, atomicAddr)
}

// builtLocally reports whether x is a local pointer variable, confined
// to its function, that the function defined from &T{...}, new(T) or a
// pointer to a private variable: constructors set fields before they
// publish the value. (Struct values are judged by privateCopy.)
func builtLocally(info *types.Info, x ast.Expr, funcs []ast.Node, atomicAddr map[*ast.UnaryExpr]bool) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return false
	}
	if _, isPtr := v.Type().Underlying().(*types.Pointer); !isPtr {
		return false
	}
	fn := declaringFunc(v, funcs)
	if fn == nil || !confined(info, v, fn, atomicAddr) {
		return false
	}
	built := false
	ast.Inspect(funcBody(fn), func(n ast.Node) bool {
		if built {
			return false
		}
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if info.Defs[name] == v && i < len(n.Values) {
					built = fresh(info, n.Values[i]) || pointsToLocal(info, n.Values[i], funcs, atomicAddr)
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, lhs := range n.Lhs {
					if lid, ok := lhs.(*ast.Ident); ok && info.Defs[lid] == v {
						built = fresh(info, n.Rhs[i]) || pointsToLocal(info, n.Rhs[i], funcs, atomicAddr)
					}
				}
			}
		}
		return !built
	})
	return built
}

// fieldName names a field after the package-level struct type that
// declares it, when there is one. A field has no link to its struct in
// go/types, so the declaring package's scope is searched.
func fieldName(field *types.Var) string {
	if pkg := field.Pkg(); pkg != nil {
		scope := pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue // an alias would name the field after itself
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
