package lockthread

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/worksteal/steal/vet/internal/funcs"
)

// Analyzer reports goroutines locked to their thread across a work loop.
var Analyzer = &analysis.Analyzer{
	Name:      "lockthread",
	Doc:       "report goroutines that keep their OS thread locked across a work loop\n\nA locked goroutine runs only on its own thread, so every wait for work costs a thread handoff and idle locked threads cannot help others; lock only around thread-bound calls.",
	URL:       "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/lockthread",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(setsUpThread)},
	Run:       run,
}

// setsUpThread is the fact that a function outside the standard
// library calls the OS or C (package syscall, golang.org/x/sys, cgo),
// directly or through functions of its own kind: a wrapper, such as a
// library's function that moves the thread to a network namespace.
// Calling it between the lock and the loop sets up the thread as
// calling the OS directly does.
type setsUpThread struct{}

func (*setsUpThread) AFact() {}

func (*setsUpThread) String() string { return "setsUpThread" }

const msg = "LockOSThread starvation: this goroutine stays locked to its OS thread across the work loop at line %d, " +
	"so its thread sleeps whenever it waits for work, and to resume it the scheduler must hand a P to that one thread " +
	"instead of running it wherever stealing finds a free one; unlock before the loop and lock only around thread-bound calls, " +
	"or let unlocked workers share one channel"

// tests is the -lockthread.tests flag. Off by default: a test that builds this
// pattern usually does so on purpose (the runtime's own tests make CPU
// hogs and locked spinners to exercise the scheduler), and test code
// does not run where work stealing matters.
var tests bool

func init() {
	Analyzer.Flags.BoolVar(&tests, "tests", false, "also report in _test.go files")
}

func run(pass *analysis.Pass) (any, error) {
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	c := &checker{pass: pass, local: make(map[*types.Func]bool)}
	c.computeFacts(insp)
	if !funcs.Imports(pass.Pkg, "runtime") {
		return nil, nil
	}
	goFuncs, goLits := goroutines(pass, insp)
	for cur := range insp.Root().Preorder((*ast.CallExpr)(nil)) {
		lock := cur.Node().(*ast.CallExpr)
		if !funcs.Is(funcs.Callee(pass.TypesInfo, lock), "runtime", "LockOSThread") {
			continue
		}
		if _, deferred := cur.Parent().Node().(*ast.DeferStmt); deferred {
			continue
		}
		if !tests && funcs.IsTestFile(pass.Fset, lock.Pos()) {
			continue
		}
		var body *ast.BlockStmt
		for fn := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
			switch fn := fn.Node().(type) {
			case *ast.FuncDecl:
				if !funcs.IsMainOrInit(pass.Pkg, fn) &&
					(goFuncs[pass.TypesInfo.Defs[fn.Name]] || fn.Recv != nil && runLoopName(fn.Name.Name)) {
					body = fn.Body
				}
			case *ast.FuncLit:
				if goLits[fn] {
					body = fn.Body
				}
			}
			break // the innermost function only
		}
		if body == nil {
			continue
		}
		if loop := c.pinnedLoop(body, lock); loop != nil {
			line := pass.Fset.Position(loop.Pos()).Line
			pass.Report(analysis.Diagnostic{Pos: lock.Pos(), End: lock.End(), Message: fmt.Sprintf(msg, line)})
		}
	}
	return nil, nil
}

// goroutines returns the functions and function literals that the
// package starts as goroutines: with a go statement, or through
// sync.WaitGroup.Go or errgroup's Group.Go.
func goroutines(pass *analysis.Pass, insp *inspector.Inspector) (map[types.Object]bool, map[*ast.FuncLit]bool) {
	fns := make(map[types.Object]bool)
	lits := make(map[*ast.FuncLit]bool)
	startedVars := make(map[*types.Var]bool) // go f() with f a variable
	started := func(e ast.Expr) {
		// go f[T](x) names the generic function through an index
		// expression.
		switch ix := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			e = ix.X
		case *ast.IndexListExpr:
			e = ix.X
		}
		switch e := ast.Unparen(e).(type) {
		case *ast.FuncLit:
			lits[e] = true
		case *ast.Ident:
			switch obj := pass.TypesInfo.Uses[e].(type) {
			case *types.Func:
				fns[obj.Origin()] = true
			case *types.Var:
				startedVars[obj] = true
			}
		case *ast.SelectorExpr: // a method value or pkg.F
			if fn, ok := pass.TypesInfo.Uses[e.Sel].(*types.Func); ok {
				fns[fn.Origin()] = true
			}
		}
	}
	for cur := range insp.Root().Preorder((*ast.GoStmt)(nil), (*ast.CallExpr)(nil)) {
		switch n := cur.Node().(type) {
		case *ast.GoStmt:
			started(n.Call.Fun)
		case *ast.CallExpr:
			fn := funcs.Callee(pass.TypesInfo, n)
			if len(n.Args) == 1 && (funcs.Is(fn, "sync", "Go") || funcs.Is(fn, "golang.org/x/sync/errgroup", "Go")) {
				started(n.Args[0])
			}
		}
	}
	if len(startedVars) > 0 {
		// worker := func() {...}; go worker(): the literals assigned to
		// a started variable run as goroutines.
		lit := func(id *ast.Ident, e ast.Expr) {
			fl, ok := ast.Unparen(e).(*ast.FuncLit)
			if v, isVar := pass.TypesInfo.ObjectOf(id).(*types.Var); ok && isVar && startedVars[v] {
				lits[fl] = true
			}
		}
		for cur := range insp.Root().Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)) {
			switch n := cur.Node().(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i, l := range n.Lhs {
						if id, ok := ast.Unparen(l).(*ast.Ident); ok {
							lit(id, n.Rhs[i])
						}
					}
				}
			case *ast.ValueSpec:
				if len(n.Names) == len(n.Values) {
					for i, id := range n.Names {
						lit(id, n.Values[i])
					}
				}
			}
		}
	}
	// go func() { defer wg.Done(); worker(ch) }(): a function called as
	// a statement of a started literal's body is that goroutine's body.
	for lit := range lits {
		for _, stmt := range lit.Body.List {
			if es, ok := stmt.(*ast.ExprStmt); ok {
				if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok {
					if fn := funcs.Callee(pass.TypesInfo, call); fn != nil && fn.Pkg() == pass.Pkg {
						fns[fn.Origin()] = true
					}
				}
			}
		}
	}
	return fns, lits
}

// runLoopName reports whether a method name says the method is a
// goroutine's main loop.
func runLoopName(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "run", "loop", "runloop", "serve", "work", "worker", "poll", "consume", "dispatch":
		return true
	}
	return strings.HasSuffix(n, "loop")
}

type checker struct {
	pass  *analysis.Pass
	local map[*types.Func]bool // the package's functions: whether they set up the thread
}

// computeFacts decides setsUpThread for the functions of the package (a
// least fixed point over the static calls inside the package) and
// exports the fact for those that have it. Functions of the standard
// library get no fact: os.Getenv and the like call package syscall
// directly, and are no thread setup.
func (c *checker) computeFacts(insp *inspector.Inspector) {
	if inStd(c.pass) {
		return
	}
	callees := make(map[*types.Func][]*types.Func)
	var order []*types.Func
	for cur := range insp.Root().Preorder((*ast.FuncDecl)(nil)) {
		decl := cur.Node().(*ast.FuncDecl)
		fn, ok := c.pass.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok || decl.Body == nil {
			continue
		}
		order = append(order, fn)
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.GoStmt:
				return false // runs later, or on another thread
			case *ast.CallExpr:
				if osCall(c.pass.TypesInfo, n) {
					c.local[fn] = true
				} else if callee := funcs.Callee(c.pass.TypesInfo, n); callee != nil {
					callees[fn] = append(callees[fn], callee.Origin())
				}
			}
			return !c.local[fn]
		})
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range order {
			if c.local[fn] {
				continue
			}
			for _, callee := range callees[fn] {
				if c.setsUp(callee) {
					c.local[fn], changed = true, true
					break
				}
			}
		}
	}
	for _, fn := range order {
		if c.local[fn] {
			c.pass.ExportObjectFact(fn, new(setsUpThread))
		}
	}
}

// setsUp reports whether a function has the setsUpThread fact.
func (c *checker) setsUp(fn *types.Func) bool {
	fn = fn.Origin()
	if fn.Pkg() == c.pass.Pkg {
		return c.local[fn]
	}
	return fn.Pkg() != nil && c.pass.ImportObjectFact(fn, new(setsUpThread))
}

// inStd reports whether the package is one of the standard library's
// (or the Go distribution's commands): its path has no dot in its first
// element and its files are under GOROOT.
func inStd(pass *analysis.Pass) bool {
	first, _, _ := strings.Cut(pass.Pkg.Path(), "/")
	if strings.Contains(first, ".") || len(pass.Files) == 0 {
		return false
	}
	goroot := build.Default.GOROOT
	name := pass.Fset.File(pass.Files[0].Pos()).Name()
	return goroot != "" && strings.HasPrefix(filepath.ToSlash(name), filepath.ToSlash(filepath.Join(goroot, "src"))+"/")
}

// pinnedLoop returns the first work loop in body that starts after lock
// with the thread still locked, or nil.
func (c *checker) pinnedLoop(body *ast.BlockStmt, lock *ast.CallExpr) ast.Stmt {
	info := c.pass.TypesInfo
	var loop ast.Stmt
	unlocked, setsUpThread := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		if loop != nil || unlocked || setsUpThread {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt:
			return false // runs later, or elsewhere
		case *ast.CallExpr:
			if n.Pos() > lock.End() {
				if funcs.IsCallTo(info, n, "runtime", "UnlockOSThread") {
					unlocked = true
				} else if c.threadCall(n) {
					setsUpThread = true
				}
			}
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Pos() > lock.End() && c.threadBound(n) {
				return false // an I/O or render loop: it calls the OS or C on this thread
			}
			if n.Pos() > lock.End() && workLoop(info, n.(ast.Stmt)) {
				loop = n.(ast.Stmt)
			}
		}
		return true
	})
	return loop
}

// threadBound reports whether the loop n calls the OS or C, directly or
// through a wrapper, outside function literals and go statements: its
// iterations use the locked thread itself.
func (c *checker) threadBound(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.GoStmt:
			return false
		case *ast.CallExpr:
			if c.threadCall(n) {
				found = true
			}
		}
		return !found
	})
	return found
}

// threadCall reports whether call goes to the OS or to C, directly or
// through a wrapper: the calls that set up the thread state a lock
// exists for.
func (c *checker) threadCall(call *ast.CallExpr) bool {
	if osCall(c.pass.TypesInfo, call) {
		return true
	}
	fn := funcs.Callee(c.pass.TypesInfo, call)
	return fn != nil && c.setsUp(fn)
}

// osCall reports whether call goes to the OS or to C itself.
func osCall(info *types.Info, call *ast.CallExpr) bool {
	fn := funcs.Callee(info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "syscall", "golang.org/x/sys/unix", "golang.org/x/sys/windows", "C":
		return true
	}
	return strings.HasPrefix(fn.Name(), "_Cfunc_") // cgo-generated
}

// workLoop reports whether loop waits for work on channels: it ranges
// over a channel, or its body receives or selects. A loop receiving
// functions to run is a thread-bound dispatcher, not a work loop.
func workLoop(info *types.Info, loop ast.Stmt) bool {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.RangeStmt:
		if ch := funcs.CoreChan(info.TypeOf(l.X)); ch != nil {
			return !isFunc(ch.Elem())
		}
		body = l.Body
	case *ast.ForStmt:
		body = l.Body
	}
	waits := false
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SelectStmt:
			// Any select is a wait, unless it is a dispatcher's: it
			// receives functions to call, and its other cases only end
			// the loop.
			calls, work := false, false
			for _, c := range n.Body.List {
				cc := c.(*ast.CommClause)
				if receivesFunc(info, cc) {
					calls = true
				} else if caseWaits(cc) {
					work = true
				}
				for _, s := range cc.Body {
					ast.Inspect(s, visit)
				}
			}
			if work || !calls {
				waits = true
			}
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				if ch := funcs.CoreChan(info.TypeOf(n.X)); ch == nil || !isFunc(ch.Elem()) {
					waits = true
				}
			}
		}
		return !waits
	}
	ast.Inspect(body, visit)
	return waits
}

// receivesFunc reports whether a select case receives a function.
func receivesFunc(info *types.Info, cc *ast.CommClause) bool {
	var recv ast.Expr
	switch comm := cc.Comm.(type) {
	case *ast.ExprStmt:
		recv = comm.X
	case *ast.AssignStmt:
		recv = comm.Rhs[0]
	}
	if u, ok := ast.Unparen(recv).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		ch := funcs.CoreChan(info.TypeOf(u.X))
		return ch != nil && isFunc(ch.Elem())
	}
	return false
}

// caseWaits reports whether a select case, other than one receiving
// functions, waits for work: it sends or receives, and its body does
// not end the loop. A case that only ends it (case <-done: return) is a
// shutdown signal.
func caseWaits(cc *ast.CommClause) bool {
	if cc.Comm == nil {
		return false // default
	}
	if n := len(cc.Body); n > 0 {
		switch last := cc.Body[n-1].(type) {
		case *ast.ReturnStmt:
			return false
		case *ast.BranchStmt:
			if last.Tok == token.GOTO || last.Tok == token.BREAK && last.Label != nil {
				return false
			}
		}
	}
	return true
}

func isFunc(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}
