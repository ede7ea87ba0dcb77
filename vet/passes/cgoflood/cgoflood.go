// Package cgoflood defines an Analyzer that reports goroutines that
// call C, started in a loop or per request with no bound on how many
// run at once.
//
// # Analyzer cgoflood
//
// cgoflood: report unbounded goroutines that call C
//
// A goroutine in a cgo call holds an OS thread for the whole call, and
// its P stays attached to that thread until sysmon notices the call
// (about 20µs) and hands the P off; meanwhile the P's local run queue
// cannot be reached by the other Ms except by stealing. Starting one
// such goroutine per event:
//
//	func process(data []byte) {
//		C.long_running_c_function(unsafe.Pointer(&data[0]), C.int(len(data)))
//	}
//
//	for ev := range events {
//		go process(ev)
//	}
//
// makes the runtime create a thread per concurrent call (clone(2) each
// time), then keep them all; the thread count and the hand-offs grow
// with the load while the Ps do less. Bound the number of concurrent C
// calls with a semaphore (a buffered channel send before the go
// statement) or a fixed pool of workers that make the calls.
//
// A function calls C when its body calls a C function (C.f, which the
// cgo tool rewrites to _Cfunc_f in the files the analyzer sees) or a
// function that calls C, or starts a goroutine that does (a dispatcher
// started per event multiplies the C calls just the same); the property
// is exported as a callsCgo fact so that goroutines started on
// functions of other packages are judged too. The cgo helpers C.CString, C.CBytes, C.GoString, C.GoStringN and
// C.GoBytes only copy memory and do not count.
//
// A go statement whose function calls C is reported when it is in a
// loop that may run without limit (a range over a channel, slice, map,
// string or iterator, or a for loop without a post statement), or in an
// HTTP handler (a function with an http.ResponseWriter and an
// *http.Request parameter) outside any loop, unless the loop or the
// handler bounds it. The bounds are those of the unboundedgo analyzer:
// a channel send (semaphore acquire), a receive after the go statement
// (other than in another case of its select) or a token receive, a call named Wait, Acquire, TryAcquire or
// containing "acquire", or an if statement around the go statement
// that starts once or counts up to a limit.
//
// A statement next to the go statement that counts a variable up or
// down that a condition of the loop reads is a goroutine budget, which
// bounds it too.
//
// Not reported: counting loops (for i := 0; i < n; i++, for range n,
// or a loop without a post statement whose body counts a variable of
// its condition), which start a fixed pool; a range over a slice, array,
// map or string that starts a worker per element, a function literal or
// function of the package that takes its work from a channel in a loop
// (for _, w := range workers { go w.loop() }), which is a fixed pool
// too; goroutines started through func values or interface methods,
// whose target is unknown.
//
// The analyzer suggests no fix: the right bound is a design decision.
package cgoflood

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/worksteal/steal/vet/internal/bounds"
	"github.com/worksteal/steal/vet/internal/funcs"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// OptIn reports whether the analyzer is left out of a suite unless the
// user enables it. cgoflood runs by default.
const OptIn = false

// Analyzer reports unbounded goroutines that call C.
var Analyzer = &analysis.Analyzer{
	Name:      "cgoflood",
	Doc:       "report unbounded goroutines that call C\n\nEach goroutine in a cgo call holds a thread, and its P is only handed off after sysmon notices; one goroutine per event or request makes the runtime create threads with the load while the P's run queue waits. Bound the concurrent C calls with a semaphore or a fixed pool of workers. Counting loops and goroutines started through func values are not reported.",
	URL:       "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/cgoflood",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(callsCgo)},
	Run:       run,
}

// callsCgo is the fact that a function calls C, directly or through
// its callees. Like the isWrapper fact of the printf pass it is an
// object fact on a *types.Func.
type callsCgo struct{}

func (*callsCgo) AFact() {}

func (*callsCgo) String() string { return "callsCgo" }

// cgoHelpers are the pseudo-functions of cgo that only copy memory
// between Go and C; calling them is not a long C call.
var cgoHelpers = map[string]bool{
	"CString": true, "CBytes": true, "GoString": true, "GoStringN": true, "GoBytes": true,
}

// cgoCallee returns the name of the C function called by call, if it
// is a call of one: in the files produced by the cgo tool, which are
// the ones type-checked and analyzed (see the passes/cgocall package of
// x/tools on "cooked" files), C.f(x) reads (_Cfunc_f)(x).
func cgoCallee(call *ast.CallExpr) (string, bool) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return "", false
	}
	name, ok := strings.CutPrefix(id.Name, "_Cfunc_")
	if !ok || cgoHelpers[name] {
		return "", false
	}
	return name, true
}

type checker struct {
	pass  *analysis.Pass
	local map[*types.Func]*funcInfo
}

type funcInfo struct {
	body    *ast.BlockStmt // for startsWorker
	direct  bool
	callees []*types.Func
	calls   bool
}

func run(pass *analysis.Pass) (any, error) {
	inspect := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	c := &checker{pass: pass, local: make(map[*types.Func]*funcInfo)}
	c.computeFacts(inspect)

	for cur := range inspect.Root().Preorder((*ast.GoStmt)(nil)) {
		g := cur.Node().(*ast.GoStmt)
		if !c.goCallsCgo(g) {
			continue
		}
		scope, loop, guards := unboundedContext(pass.TypesInfo, cur)
		if scope == nil {
			continue
		}
		var budgetScope ast.Node = scope
		if loop != nil {
			budgetScope = loop
		}
		if bounded(pass.TypesInfo, scope, loop, g, guards) || bounds.Budgeted(pass.TypesInfo, budgetScope, cur) {
			continue
		}
		if overCollection(pass.TypesInfo, loop) && c.startsWorker(g) {
			continue // one worker per element of a fixed collection: a pool
		}
		where := "per request"
		if loop != nil {
			where = "in a loop"
		}
		pass.Report(analysis.Diagnostic{
			Pos: g.Go,
			End: g.Call.Lparen,
			Message: "goroutine that calls C started " + where + " with no bound: " +
				"each concurrent C call holds a thread and delays the hand-off of its P, so the runtime makes threads with the load while that P's run queue waits; " +
				"bound the concurrent C calls with a semaphore or a fixed pool of workers",
		})
	}
	return nil, nil
}

// computeFacts decides callsCgo for the functions of the package (a
// least fixed point over the calls inside the package) and exports the
// fact for those that call C.
func (c *checker) computeFacts(in *inspector.Inspector) {
	var order []*types.Func
	for cur := range in.Root().Preorder((*ast.FuncDecl)(nil)) {
		decl := cur.Node().(*ast.FuncDecl)
		fn, ok := c.pass.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok || decl.Body == nil || strings.HasPrefix(decl.Name.Name, "_C") {
			// Bodiless functions do not call C through cgo; the
			// functions generated by cgo are the C calls themselves,
			// recognized by name at their call sites.
			continue
		}
		info := &funcInfo{body: decl.Body}
		info.direct, info.callees = c.scan(decl.Body)
		info.calls = info.direct
		c.local[fn] = info
		order = append(order, fn)
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range order {
			info := c.local[fn]
			if info.calls {
				continue
			}
			for _, callee := range info.callees {
				if c.calleeCallsCgo(callee) {
					info.calls, changed = true, true
					break
				}
			}
		}
	}
	for _, fn := range order {
		if c.local[fn].calls {
			c.pass.ExportObjectFact(fn, new(callsCgo))
		}
	}
}

// scan looks for C calls in a body, including function literals in it
// (a goroutine started there still makes the call on behalf of the
// function's caller).
func (c *checker) scan(body ast.Node) (direct bool, callees []*types.Func) {
	ast.Inspect(body, func(n ast.Node) bool {
		if direct {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if _, ok := cgoCallee(call); ok {
				direct = true
			} else if fn := typeutil.StaticCallee(c.pass.TypesInfo, call); fn != nil {
				callees = append(callees, fn.Origin())
			}
		}
		return !direct
	})
	return direct, callees
}

func (c *checker) calleeCallsCgo(fn *types.Func) bool {
	fn = fn.Origin()
	if info, ok := c.local[fn]; ok {
		return info.calls
	}
	if fn.Pkg() == nil || fn.Pkg() == c.pass.Pkg {
		return false
	}
	return c.pass.ImportObjectFact(fn, new(callsCgo))
}

// goCallsCgo reports whether the function started by g calls C.
func (c *checker) goCallsCgo(g *ast.GoStmt) bool {
	if _, ok := cgoCallee(g.Call); ok {
		return true
	}
	if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
		direct, callees := c.scan(lit.Body)
		if direct {
			return true
		}
		for _, fn := range callees {
			if c.calleeCallsCgo(fn) {
				return true
			}
		}
		return false
	}
	if fn := typeutil.StaticCallee(c.pass.TypesInfo, g.Call); fn != nil {
		return c.calleeCallsCgo(fn)
	}
	return false
}

// unboundedContext returns the statement whose repetition starts the
// goroutine of the go statement at cur without limit: the innermost
// loop around it in the same function, unless that loop counts, or the
// body of the HTTP handler that contains it. It also returns the loop,
// if any, and the if statements in between.
func unboundedContext(info *types.Info, cur inspector.Cursor) (scope *ast.BlockStmt, loop ast.Stmt, guards []*ast.IfStmt) {
	for c := range cur.Parent().Enclosing() {
		switch n := c.Node().(type) {
		case *ast.IfStmt:
			guards = append(guards, n)
		case *ast.ForStmt:
			if n.Post != nil || bounds.CountsInBody(info, n) {
				return nil, nil, nil // a counting loop starts a fixed pool
			}
			return n.Body, n, guards
		case *ast.RangeStmt:
			if t := info.TypeOf(n.X); t != nil && funcs.Every(t, isInteger) {
				return nil, nil, nil // for range n: a fixed pool
			}
			return n.Body, n, guards
		case *ast.FuncLit:
			if isHandler(info, n.Type) {
				return n.Body, nil, guards
			}
			return nil, nil, nil
		case *ast.FuncDecl:
			if isHandler(info, n.Type) {
				return n.Body, nil, guards
			}
			return nil, nil, nil
		}
	}
	return nil, nil, nil
}

func isInteger(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// overCollection reports whether loop ranges over a slice, an array, a
// map or a string, whose length is fixed when the loop starts.
func overCollection(info *types.Info, loop ast.Stmt) bool {
	r, ok := loop.(*ast.RangeStmt)
	if !ok || r.X == nil {
		return false
	}
	t := info.TypeOf(r.X)
	if t == nil {
		return false
	}
	t = t.Underlying()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem().Underlying()
	}
	switch t := t.(type) {
	case *types.Slice, *types.Array, *types.Map:
		return true
	case *types.Basic:
		return t.Info()&types.IsString != 0
	}
	return false
}

// startsWorker reports whether the function started by g, a function
// literal or a function of this package, is a worker: it takes its work
// from a channel in a loop (a range over a channel, or a for loop that
// receives or selects). The C calls in flight are then bounded by the
// number of workers.
func (c *checker) startsWorker(g *ast.GoStmt) bool {
	var body *ast.BlockStmt
	if lit, ok := ast.Unparen(g.Call.Fun).(*ast.FuncLit); ok {
		body = lit.Body
	} else if fn := typeutil.StaticCallee(c.pass.TypesInfo, g.Call); fn != nil {
		if info := c.local[fn.Origin()]; info != nil {
			body = info.body
		}
	}
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if t := c.pass.TypesInfo.TypeOf(n.X); t != nil {
				if funcs.CoreChan(t) != nil {
					found = true
				}
			}
		case *ast.ForStmt:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.FuncLit:
					return false
				case *ast.SelectStmt:
					found = true
				case *ast.UnaryExpr:
					if m.Op == token.ARROW {
						found = true
					}
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// isHandler reports whether a function has the parameters of an
// http.Handler's ServeHTTP, and so runs once per request.
func isHandler(info *types.Info, ft *ast.FuncType) bool {
	var w, r bool
	for _, field := range ft.Params.List {
		t := info.TypeOf(field.Type)
		if t == nil {
			continue
		}
		if p, ok := t.(*types.Pointer); ok {
			if isNamed(p.Elem(), "net/http", "Request") {
				r = true
			}
		} else if isNamed(t, "net/http", "ResponseWriter") {
			w = true
		}
	}
	return w && r
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// bounded reports whether scope limits the goroutines started by g.
// It follows the bounded function of the unboundedgo analyzer; the two
// packages stay independent of each other, so it is kept in step by
// hand.
func bounded(info *types.Info, scope *ast.BlockStmt, loop ast.Stmt, g *ast.GoStmt, guards []*ast.IfStmt) bool {
	for _, ifs := range guards {
		if bounds.GuardBounds(info, ifs) {
			return true
		}
	}
	// In a range over a channel the range is the event; elsewhere, a
	// value receive before g is one.
	rangeChan := false
	if r, ok := loop.(*ast.RangeStmt); ok {
		if t := info.TypeOf(r.X); t != nil {
			rangeChan = funcs.CoreChan(t) != nil
		}
	}
	events, tokens := 0, 0
	if loop != nil && !rangeChan {
		if r, ok := loop.(*ast.RangeStmt); ok && r.X != nil {
			events++ // ranging over a collection brings the items
		}
	}
	found, ev, tok := bounds.Scan(info, scope, g, rangeChan)
	events += ev
	tokens += tok
	if loop == nil {
		// A handler has no event of its own: the request is.
		events++
	}
	return found || (tokens > 0 && events > 0)
}
