package lockthread

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/worksteal/steal/vet/internal/funcs"
)

// Analyzer reports goroutines locked to their thread across a work loop.
var Analyzer = &analysis.Analyzer{
	Name:     "lockthread",
	Doc:      "report goroutines that keep their OS thread locked across a work loop\n\nA locked goroutine runs only on its own thread, so every wait for work costs a thread handoff and idle locked threads cannot help others; lock only around thread-bound calls.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/lockthread",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

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
	if !funcs.Imports(pass.Pkg, "runtime") {
		return nil, nil
	}
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
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
		if loop := pinnedLoop(pass.TypesInfo, body, lock); loop != nil {
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

// pinnedLoop returns the first work loop in body that starts after lock
// with the thread still locked, or nil.
func pinnedLoop(info *types.Info, body *ast.BlockStmt, lock *ast.CallExpr) ast.Stmt {
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
				} else if threadCall(info, n) {
					setsUpThread = true
				}
			}
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Pos() > lock.End() && workLoop(info, n.(ast.Stmt)) {
				loop = n.(ast.Stmt)
			}
		}
		return true
	})
	return loop
}

// threadCall reports whether call goes to the OS or to C: the calls
// that set up the thread state a lock exists for.
func threadCall(info *types.Info, call *ast.CallExpr) bool {
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
