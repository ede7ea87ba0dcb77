// Package yieldless defines an Analyzer that reports hand-written
// scheduler loops that poll for work but never block or yield.
//
// # Analyzer yieldless
//
// yieldless: report polling loops with an iteration that neither blocks nor yields
//
// A worker loop of a home-made scheduler typically pops a task from its
// own queue, tries to steal one when that fails, and starts again:
//
//	func (w *Worker) run() {
//		for {
//			if t, ok := w.pop(); ok {
//				t()
//			} else if t, ok := w.steal(); ok {
//				t()
//			}
//		}
//	}
//
// When every queue is empty, an iteration calls pop and steal, finds
// nothing, and goes round again without ever parking. The goroutine
// keeps its P (and its thread) busy doing nothing: the runtime cannot
// hand the P to runnable goroutines, idle Ps are not woken to steal
// them, and the loop only lets others run when asynchronous preemption
// interrupts it (never, if the goroutine called runtime.LockOSThread
// and the runnable work is on its thread). Block on a channel, a
// sync.Cond or a semaphore when no work is found, or at least call
// runtime.Gosched there.
//
// A loop is reported when all of these hold:
//
//   - it is a for statement without a condition (or whose condition
//     only reads local variables that the loop cannot change) and nothing
//     in its body leaves it: no return, no break or goto out of it, no
//     panic, no call of a function that never returns (as computed by the
//     ctrlflow pass), and no select{};
//   - its body calls at least one function (it polls for work; a loop
//     without calls is a different problem);
//   - its control-flow graph has a path from the loop head back to the
//     loop head on which nothing may block or yield, and which an idle
//     iteration, one that finds no work, may take.
//
// The analyzer reports loops that spin while idle, not loops that run
// work without yielding (preemption deals with long work). An iteration
// that takes the side of a poll test on which the poll found something
// (x, ok := f() and ok; x != nil or err == nil for a result of a call
// in the loop; also negated, or in && and ||) is not idle. For other
// branches (q.Empty(), q.Len() > 0) the analyzer cannot tell which side
// means idle: when one side waits or yields on every path back to the
// loop head, it is taken for the idle side. So the recommended shape,
//
//	for {
//		if t, ok := q.TryPop(); ok {
//			run(t)
//			continue
//		}
//		runtime.Gosched() // or park
//	}
//
// is not reported whatever run does, while a loop that yields or blocks
// only after finding work (to hand a result over, say) still spins when
// idle and is reported. A call through a func value or an interface,
// or a release (Mutex.Unlock, Cond.Signal, WaitGroup.Done), ends a
// spinning path like any call that may block, but is not taken for the
// place where the loop waits: that is how a loop runs the task it found
// or lets go of a lock.
//
// An operation may block or yield if it is a channel send or receive
// (outside a select with a default case), a select without a default
// case, a range over a channel or over an iterator function, or a call
// of a function that may block. A function may block if its body
// contains such an operation or calls such a function, if it has no Go
// body (assembly or linkname, like syscall.Syscall or the runtime hooks
// of sync and time) apart from a short list of known leaf functions
// (sync/atomic, timers' clocks), or if it is reached through an
// interface method or a func value, whose target is unknown. This is
// deliberately generous: each such guess can only hide a report. The
// property is exported as a mayBlock fact on functions, so callees in
// other packages are judged by their bodies too.
//
// Not reported: loops with any exit, including compare-and-swap retry
// loops and loops that check for shutdown (the analyzer cannot tell a
// retry loop from a scheduler loop that checks a stop flag); loops whose
// only operations are calls through interfaces or func values; loops
// with no calls at all (a tight loop is a separate problem).
//
// The analyzer suggests no fix: where to park is a design decision.
package yieldless

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"
)

// OptIn reports whether the analyzer is left out of a suite unless the
// user enables it. yieldless runs by default.
const OptIn = false

// Analyzer reports polling loops that never block or yield.
var Analyzer = &analysis.Analyzer{
	Name:      "yieldless",
	Doc:       "report polling loops with an iteration that neither blocks nor yields\n\nA scheduler loop that pops or steals work and, finding none, goes round again without parking keeps its P spinning: runnable goroutines wait, idle Ps are not woken to steal them, and only preemption (none under LockOSThread) lets them run. Block on a channel or a condition when no work is found, or call runtime.Gosched; iterations that found work need not yield. Loops with an exit (retry loops, shutdown checks) and loops whose calls go through interfaces or func values are not reported.",
	URL:       "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/yieldless",
	Requires:  []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer},
	FactTypes: []analysis.Fact{new(mayBlock)},
	Run:       run,
}

// mayBlock is the fact that a function may block or yield when called.
// Like the isWrapper fact of the printf pass, it is an object fact on a
// *types.Func, so that callers in other packages can import it.
type mayBlock struct{}

func (*mayBlock) AFact() {}

func (*mayBlock) String() string { return "mayBlock" }

func run(pass *analysis.Pass) (any, error) {
	inspect := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)

	c := &checker{pass: pass, local: make(map[*types.Func]*funcInfo)}
	c.computeFacts(inspect)

	for cur := range inspect.Root().Preorder((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		var (
			body *ast.BlockStmt
			g    *cfg.CFG
		)
		switch fn := cur.Node().(type) {
		case *ast.FuncDecl:
			if fn.Body == nil {
				continue
			}
			body, g = fn.Body, cfgs.FuncDecl(fn)
		case *ast.FuncLit:
			body, g = fn.Body, cfgs.FuncLit(fn)
		}
		if g == nil {
			continue
		}
		c.checkFunc(body, g, cfgs)
	}
	return nil, nil
}

type checker struct {
	pass  *analysis.Pass
	local map[*types.Func]*funcInfo
}

// funcInfo records what the body of a function declared in this
// package says about blocking, before callees are taken into account.
type funcInfo struct {
	direct  bool          // contains a blocking operation itself
	callees []*types.Func // static callees, by origin
	blocks  bool          // result of the fixed point
}

// computeFacts decides mayBlock for every function declared in the
// package and exports the fact for those that may block. Calls between
// functions of the package may be recursive, so the property is the
// least fixed point of "direct, or calls one that may block".
func (c *checker) computeFacts(in *inspector.Inspector) {
	var order []*types.Func
	for cur := range in.Root().Preorder((*ast.FuncDecl)(nil)) {
		decl := cur.Node().(*ast.FuncDecl)
		fn, ok := c.pass.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok {
			continue
		}
		info := new(funcInfo)
		if decl.Body == nil {
			info.direct = !leafWithoutBody(fn)
		} else {
			info.direct, info.callees = c.scan(decl.Body)
		}
		c.local[fn] = info
		order = append(order, fn)
	}
	for _, fn := range order {
		c.local[fn].blocks = c.local[fn].direct
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range order {
			info := c.local[fn]
			if info.blocks {
				continue
			}
			for _, callee := range info.callees {
				if c.calleeBlocks(callee) {
					info.blocks, changed = true, true
					break
				}
			}
		}
	}
	for _, fn := range order {
		if c.local[fn].blocks {
			c.pass.ExportObjectFact(fn, new(mayBlock))
		}
	}
}

// calleeBlocks reports whether a call of the static callee fn may
// block, from this package's fixed point or from an imported fact.
func (c *checker) calleeBlocks(fn *types.Func) bool {
	fn = fn.Origin()
	if knownBlocking(fn) {
		return true
	}
	if info, ok := c.local[fn]; ok {
		return info.blocks
	}
	if fn.Pkg() == c.pass.Pkg {
		// A method of a type declared inside a function has no
		// FuncDecl of its own here; its body is unknown: assume it blocks.
		return true
	}
	return c.pass.ImportObjectFact(fn, new(mayBlock))
}

// scan inspects a whole function body for blocking operations. Bodies
// of function literals count, as they may be called synchronously; the
// function started by a go statement does not, as the caller does not
// wait for it.
func (c *checker) scan(body ast.Node) (direct bool, callees []*types.Func) {
	nonBlocking := make(map[ast.Stmt]bool) // comm clauses of selects with a default
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if direct {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			visitGoArgs(n.Call, visit)
			return false
		case *ast.SelectStmt:
			if !markDefaultComms(n, nonBlocking) {
				direct = true
				return false
			}
		case *ast.CommClause:
			if n.Comm != nil && nonBlocking[n.Comm] {
				// Only the operands of the channel operation are evaluated
				// unconditionally; the operation itself does not block.
				visitCommOperands(n.Comm, visit)
				for _, s := range n.Body {
					ast.Inspect(s, visit)
				}
				return false
			}
		case *ast.SendStmt:
			direct = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				direct = true
			}
		case *ast.RangeStmt:
			if rangeBlocks(c.pass.TypesInfo, n) {
				direct = true
			}
		case *ast.CallExpr:
			switch k, fn := classifyCall(c.pass.TypesInfo, n); k {
			case callDynamic:
				direct = true
			case callStatic:
				callees = append(callees, fn.Origin())
			}
		}
		return !direct
	}
	ast.Inspect(body, visit)
	return direct, callees
}

// visitGoArgs visits what a go statement evaluates in the current
// goroutine: the receiver expression of a method call and the
// arguments, but not the function it starts.
func visitGoArgs(call *ast.CallExpr, visit func(ast.Node) bool) {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		ast.Inspect(sel.X, visit)
	}
	for _, arg := range call.Args {
		ast.Inspect(arg, visit)
	}
}

// visitCommOperands visits the channel and value operands of a send or
// receive in a select case without visiting the operation itself.
func visitCommOperands(comm ast.Stmt, visit func(ast.Node) bool) {
	var op ast.Expr
	switch s := comm.(type) {
	case *ast.SendStmt:
		ast.Inspect(s.Chan, visit)
		ast.Inspect(s.Value, visit)
		return
	case *ast.ExprStmt:
		op = s.X
	case *ast.AssignStmt:
		op = s.Rhs[0]
	}
	if u, ok := ast.Unparen(op).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		ast.Inspect(u.X, visit)
	}
}

// markDefaultComms records the comm statements of a select that has a
// default case, whose channel operations therefore never block, and
// reports whether the select has a default case.
func markDefaultComms(s *ast.SelectStmt, nonBlocking map[ast.Stmt]bool) bool {
	hasDefault := false
	for _, cc := range s.Body.List {
		if cc.(*ast.CommClause).Comm == nil {
			hasDefault = true
		}
	}
	if hasDefault {
		for _, cc := range s.Body.List {
			if comm := cc.(*ast.CommClause).Comm; comm != nil {
				nonBlocking[comm] = true
			}
		}
	}
	return hasDefault
}

// rangeBlocks reports whether a range statement may block: ranging
// over a channel receives, and ranging over an iterator function calls
// an unknown function.
func rangeBlocks(info *types.Info, r *ast.RangeStmt) bool {
	t := info.TypeOf(r.X)
	if t == nil {
		return true
	}
	switch t.Underlying().(type) {
	case *types.Chan, *types.Signature:
		return true
	case *types.Interface: // a type parameter constrained to channels or functions
		return true
	}
	return false
}

type callKind int

const (
	callNone    callKind = iota // conversion or builtin
	callStatic                  // static call of a known function
	callDynamic                 // interface method, func value or type-parameter method
)

func classifyCall(info *types.Info, call *ast.CallExpr) (callKind, *types.Func) {
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return callNone, nil
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := info.Uses[id].(*types.Builtin); ok {
			return callNone, nil
		}
	}
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		return callStatic, fn
	}
	return callDynamic, nil
}

// knownBlocking lists functions that block or yield whatever facts say,
// so that the analysis stays right if the facts of the standard library
// are unavailable to a driver. Their bodies reach the runtime through
// linknamed functions without Go bodies, so the facts agree.
func knownBlocking(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	path, name := fn.Pkg().Path(), fn.Name()
	recv := recvName(fn)
	switch path {
	case "runtime":
		return recv == "" && (name == "Gosched" || name == "GC")
	case "time":
		return recv == "" && name == "Sleep"
	case "sync":
		switch recv {
		case "Mutex", "RWMutex":
			return name == "Lock" || name == "RLock"
		case "WaitGroup", "Cond":
			return name == "Wait"
		case "Once":
			return name == "Do"
		}
	}
	return false
}

func recvName(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// leafWithoutBody reports whether a function declared without a Go
// body is known to return promptly. Such functions are written in
// assembly or provided by the runtime through linkname; most of the
// latter (sync's semaphores, time.Sleep, syscalls) block, so only
// atomic operations, clocks and memory helpers are exempt.
func leafWithoutBody(fn *types.Func) bool {
	path := fn.Pkg().Path()
	switch path {
	case "sync/atomic", "internal/runtime/atomic", "internal/runtime/sys",
		"internal/bytealg", "math", "math/bits", "internal/abi", "unsafe":
		return true
	}
	if strings.HasPrefix(path, "crypto/") {
		return true // assembly block functions of ciphers and hashes
	}
	switch path + "." + fn.Name() {
	case "time.now", "time.runtimeNano", "time.runtimeNow",
		"runtime.nanotime", "runtime.nanotime1", "runtime.walltime",
		"runtime.cputicks", "runtime.memmove", "runtime.memclrNoHeapPointers",
		"runtime.procyield", "runtime.getcallerpc", "runtime.getcallersp",
		"runtime.publicationBarrier", "runtime.rand", "runtime.cheaprand":
		return true
	}
	return false
}

// checkFunc reports the polling loops of one function body, using its
// control-flow graph from the ctrlflow pass. Loops inside function
// literals are checked with the literal's own graph.
func (c *checker) checkFunc(body *ast.BlockStmt, g *cfg.CFG, cfgs *ctrlflow.CFGs) {
	var loops []*ast.ForStmt
	labels := make(map[*ast.ForStmt]*ast.Ident)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			if f, ok := n.Stmt.(*ast.ForStmt); ok {
				labels[f] = n.Label
			}
		case *ast.ForStmt:
			loops = append(loops, n)
		}
		return true
	})
	if len(loops) == 0 {
		return
	}
	nonBlocking := make(map[ast.Stmt]bool)
	ast.Inspect(body, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectStmt); ok {
			markDefaultComms(s, nonBlocking)
		}
		return true
	})
	for _, loop := range loops {
		if loop.Cond != nil && !c.invariant(loop.Cond, loop, body) {
			continue
		}
		if c.hasExit(loop, labels[loop], cfgs) || !c.hasCall(loop) {
			continue
		}
		if c.spinningPath(loop, g, nonBlocking) {
			c.pass.Report(analysis.Diagnostic{
				Pos: loop.For,
				End: loop.Body.Lbrace,
				Message: "polling loop has an iteration that neither blocks nor yields: " +
					"finding no work it spins on its P, so runnable goroutines wait and idle Ps are not woken to steal them; " +
					"park on a channel or condition when no work is found, or call runtime.Gosched",
			})
		}
	}
}

// hasExit reports whether anything in the loop body may leave the loop
// other than a panic out of a callee.
func (c *checker) hasExit(loop *ast.ForStmt, label *ast.Ident, cfgs *ctrlflow.CFGs) bool {
	exit := false
	// depth counts the enclosing statements, inside the loop, that an
	// unlabeled break or continue would target instead of loop.
	var walk func(n ast.Node, breakDepth, contDepth int)
	walk = func(n ast.Node, breakDepth, contDepth int) {
		ast.Inspect(n, func(n ast.Node) bool {
			if exit {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				exit = true
			case *ast.SelectStmt:
				if len(n.Body.List) == 0 {
					exit = true // blocks forever: not a polling loop
					return false
				}
				walk(n.Body, breakDepth+1, contDepth)
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt:
				for _, child := range childStmts(n) {
					walk(child, breakDepth+1, contDepth)
				}
				return false
			case *ast.ForStmt, *ast.RangeStmt:
				for _, child := range childStmts(n) {
					walk(child, breakDepth+1, contDepth+1)
				}
				return false
			case *ast.BranchStmt:
				switch n.Tok {
				case token.GOTO:
					exit = true
				case token.BREAK:
					if n.Label != nil {
						exit = !declaredIn(n.Label, loop.Body, c.pass.TypesInfo)
					} else {
						exit = breakDepth == 0
					}
				case token.CONTINUE:
					if n.Label != nil {
						exit = !declaredIn(n.Label, loop.Body, c.pass.TypesInfo) &&
							(label == nil || c.pass.TypesInfo.Uses[n.Label] != c.pass.TypesInfo.Defs[label])
					}
				}
			case *ast.CallExpr:
				if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
					if b, ok := c.pass.TypesInfo.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
						exit = true
					}
				}
				if fn := typeutil.StaticCallee(c.pass.TypesInfo, n); fn != nil && cfgs.NoReturn(fn) {
					exit = true
				}
			}
			return !exit
		})
	}
	walk(loop.Body, 0, 0)
	return exit
}

// childStmts returns the parts of a compound statement, so that they
// can be walked with adjusted break and continue depths.
func childStmts(n ast.Node) []ast.Node {
	var out []ast.Node
	add := func(ok bool, x ast.Node) {
		if ok {
			out = append(out, x)
		}
	}
	switch n := n.(type) {
	case *ast.SwitchStmt:
		add(n.Init != nil, n.Init)
		add(n.Tag != nil, n.Tag)
		add(true, n.Body)
	case *ast.TypeSwitchStmt:
		add(n.Init != nil, n.Init)
		add(true, n.Assign)
		add(true, n.Body)
	case *ast.ForStmt:
		add(n.Init != nil, n.Init)
		add(n.Cond != nil, n.Cond)
		add(n.Post != nil, n.Post)
		add(true, n.Body)
	case *ast.RangeStmt:
		add(n.Key != nil, n.Key)
		add(n.Value != nil, n.Value)
		add(true, n.X)
		add(true, n.Body)
	}
	return out
}

// declaredIn reports whether the label used by id is declared inside n.
func declaredIn(id *ast.Ident, n ast.Node, info *types.Info) bool {
	obj := info.Uses[id]
	if obj == nil {
		return false
	}
	return n.Pos() <= obj.Pos() && obj.Pos() < n.End()
}

// hasCall reports whether the loop calls a function (other than a
// builtin or a conversion), that is, whether it polls something.
func (c *checker) hasCall(loop *ast.ForStmt) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if k, _ := classifyCall(c.pass.TypesInfo, n); k != callNone {
				found = true
			}
		}
		return !found
	})
	return found
}

// invariant reports whether a loop condition cannot change while the
// loop runs: it only reads constants and local variables of a basic
// type that the loop body does not assign, whose address is not taken
// and that no function literal captures.
func (c *checker) invariant(cond ast.Expr, loop *ast.ForStmt, fnBody *ast.BlockStmt) bool {
	info := c.pass.TypesInfo
	vars := make(map[*types.Var]bool)
	ok := true
	ast.Inspect(cond, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case nil:
		case *ast.Ident:
			switch obj := info.Uses[n].(type) {
			case *types.Const, *types.Nil:
			case *types.Var:
				_, basic := obj.Type().Underlying().(*types.Basic)
				local := fnBody.Pos() <= obj.Pos() && obj.Pos() < fnBody.End()
				if !basic || !local {
					ok = false
				}
				vars[obj] = true
			default:
				ok = false
			}
		case *ast.BinaryExpr, *ast.ParenExpr, *ast.BasicLit:
		case *ast.UnaryExpr:
			ok = n.Op == token.NOT || n.Op == token.SUB || n.Op == token.XOR || n.Op == token.ADD
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return false
	}
	// Writes in the loop body or post statement change the condition; so may any write
	// through a captured variable or a pointer, wherever it is.
	ast.Inspect(fnBody, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool {
				if id, isID := m.(*ast.Ident); isID && vars[asVar(info.Uses[id])] {
					ok = false
				}
				return ok
			})
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if id, isID := ast.Unparen(n.X).(*ast.Ident); isID && vars[asVar(info.Uses[id])] {
					ok = false
				}
			}
		case *ast.AssignStmt:
			if inIteration(n, loop) {
				for _, lhs := range n.Lhs {
					if id, isID := ast.Unparen(lhs).(*ast.Ident); isID && (vars[asVar(info.Uses[id])] || vars[asVar(info.Defs[id])]) {
						ok = false
					}
				}
			}
		case *ast.IncDecStmt:
			if inIteration(n, loop) {
				if id, isID := ast.Unparen(n.X).(*ast.Ident); isID && vars[asVar(info.Uses[id])] {
					ok = false
				}
			}
		case *ast.RangeStmt:
			if inIteration(n, loop) && n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, isID := e.(*ast.Ident); isID && vars[asVar(info.Uses[id])] {
						ok = false
					}
				}
			}
		}
		return ok
	})
	return ok
}

func asVar(obj types.Object) *types.Var {
	v, _ := obj.(*types.Var)
	return v
}

func within(n, outer ast.Node) bool {
	return outer.Pos() <= n.Pos() && n.End() <= outer.End()
}

// inIteration reports whether n runs in every iteration of loop: in its
// body or its post statement.
func inIteration(n ast.Node, loop *ast.ForStmt) bool {
	return within(n, loop.Body) || (loop.Post != nil && within(n, loop.Post))
}

// spinningPath reports whether the control-flow graph has a cycle
// through the head of loop on which no block may block or yield and
// which is an idle iteration (see idleEdges).
// Blocks after the loop are never entered: hasExit has ruled out edges
// leaving the loop other than the false branch of its condition.
func (c *checker) spinningPath(loop *ast.ForStmt, g *cfg.CFG, nonBlocking map[ast.Stmt]bool) bool {
	var head, done *cfg.Block
	for _, b := range g.Blocks {
		if b.Stmt != loop {
			continue
		}
		switch b.Kind {
		case cfg.KindForDone:
			done = b
		case cfg.KindForLoop:
			head = b
		case cfg.KindForBody:
			if loop.Cond == nil {
				head = b
			}
		}
	}
	if head == nil || !head.Live {
		return false
	}
	kinds := make(map[*cfg.Block]blockKind)
	kind := func(b *cfg.Block) blockKind {
		k, ok := kinds[b]
		if !ok {
			k = c.blockKind(b, nonBlocking)
			kinds[b] = k
		}
		return k
	}
	skip := c.idleEdges(loop, head, done, kind)
	seen := make(map[*cfg.Block]bool)
	var dfs func(b *cfg.Block) bool
	dfs = func(b *cfg.Block) bool {
		if seen[b] {
			return false
		}
		seen[b] = true
		if kind(b) != blockRuns {
			return false
		}
		for i, s := range b.Succs {
			if skip[edge{b, i}] {
				continue
			}
			if s == head {
				return true
			}
			if s != done && dfs(s) {
				return true
			}
		}
		return false
	}
	return dfs(head)
}

// An edge is the i'th successor edge of a block.
type edge struct {
	from *cfg.Block
	i    int
}

// idleEdges returns the edges of the loop that an idle iteration, one
// that finds no work, does not take, so that spinningPath does not
// follow them. The loop is to be reported when it spins while idle; an
// iteration that runs what it found is not idle, and a loop that yields
// only when it finds nothing is the recommended shape. Two kinds of
// branch are recognized:
//
//   - a poll test, whose condition tests a call's result made in the
//     loop the usual way (x, ok := f(); ok; x := f(); x != nil;
//     err == nil, possibly negated or in && and ||): the side on which
//     the poll succeeded is not idle;
//   - any other two-way branch, whose sense is unknown (q.Empty(),
//     q.Len() > 0): when one side yields on every path back to the loop
//     head, that side is taken for the idle one and the other side is
//     not idle. This is generous, like the rest of the analyzer.
//
// Calls through func values or interfaces, and releases (see notWait),
// do not count as yields for the second kind: such a call may block, so
// it ends a spinning path, but it is how a loop runs the task it found
// or lets go of a lock, not how it waits for work.
func (c *checker) idleEdges(loop *ast.ForStmt, head, done *cfg.Block, kind func(*cfg.Block) blockKind) map[edge]bool {
	polls := c.pollResults(loop)
	skip := make(map[edge]bool)
	var unknown []*cfg.Block
	values := caseValues(loop)
	for _, b := range c.loopBlocks(head, done) {
		cond := branchCond(b, loop)
		if cond == nil {
			continue
		}
		if values[cond] {
			unknown = append(unknown, b)
			continue
		}
		onTrue, onFalse := c.pollSucceeds(cond, true, polls), c.pollSucceeds(cond, false, polls)
		switch {
		case onTrue || onFalse:
			skip[edge{b, 0}] = onTrue
			skip[edge{b, 1}] = onFalse
		default:
			unknown = append(unknown, b)
		}
	}
	// Decide the unknown branches on the graph without the work edges of
	// poll tests, so that a side that yields unless it found work counts
	// as yielding.
	yields := make(map[edge]bool)
	for _, b := range unknown {
		for i, s := range b.Succs {
			yields[edge{b, i}] = alwaysYields(s, head, done, skip, kind)
		}
	}
	for _, b := range unknown {
		skip[edge{b, 0}] = yields[edge{b, 1}] && !yields[edge{b, 0}]
		skip[edge{b, 1}] = yields[edge{b, 0}] && !yields[edge{b, 1}]
	}
	return skip
}

// loopBlocks returns the blocks reachable from the loop head without
// leaving the loop.
func (c *checker) loopBlocks(head, done *cfg.Block) []*cfg.Block {
	seen := map[*cfg.Block]bool{head: true}
	out := []*cfg.Block{head}
	for i := 0; i < len(out); i++ {
		for _, s := range out[i].Succs {
			if s != done && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// branchCond returns the expression that a two-way block ends with: the
// condition of an if, of a for inside the loop or of a case of a switch
// without a tag, or a case value of a switch with a tag; else nil. The
// condition of loop itself is left out: its false side leaves the loop.
func branchCond(b *cfg.Block, loop *ast.ForStmt) ast.Expr {
	if len(b.Succs) != 2 || len(b.Nodes) == 0 || b.Kind == cfg.KindRangeLoop {
		return nil
	}
	if b.Kind == cfg.KindForLoop && b.Stmt == loop {
		return nil
	}
	e, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
	if !ok {
		return nil
	}
	return e
}

// caseValues returns the case expressions of the switches with a tag in
// the loop: values compared with the tag, not conditions.
func caseValues(loop *ast.ForStmt) map[ast.Expr]bool {
	out := make(map[ast.Expr]bool)
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if s, ok := n.(*ast.SwitchStmt); ok && s.Tag != nil {
			for _, cc := range s.Body.List {
				for _, e := range cc.(*ast.CaseClause).List {
					out[e] = true
				}
			}
		}
		return true
	})
	return out
}

// notWait reports whether a function that may block according to the
// facts only releases or signals: it does not wait for anything, so it
// is not taken for the place where a loop waits for work.
func notWait(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "sync" {
		return false
	}
	switch recvName(fn) {
	case "Mutex", "RWMutex":
		return fn.Name() == "Unlock" || fn.Name() == "RUnlock"
	case "Cond":
		return fn.Name() == "Signal" || fn.Name() == "Broadcast"
	case "WaitGroup":
		return fn.Name() == "Done" || fn.Name() == "Add"
	}
	return false
}

// alwaysYields reports whether every path from s back to the loop head
// passes a block that yields (blockYields), following no edge in skip. A path that leaves the
// loop does not yield.
func alwaysYields(s, head, done *cfg.Block, skip map[edge]bool, kind func(*cfg.Block) blockKind) bool {
	seen := make(map[*cfg.Block]bool)
	var reach func(b *cfg.Block) bool // reaches head or done without a yield
	reach = func(b *cfg.Block) bool {
		if b == head || b == done {
			return true
		}
		if seen[b] {
			return false
		}
		seen[b] = true
		if kind(b) == blockYields {
			return false
		}
		for i, t := range b.Succs {
			if !skip[edge{b, i}] && reach(t) {
				return true
			}
		}
		return false
	}
	return !reach(s)
}

// pollResults returns the variables that the loop assigns from a call:
// for each, whether it is the bool that ends the results (x, ok := f()).
func (c *checker) pollResults(loop *ast.ForStmt) map[*types.Var]bool {
	info := c.pass.TypesInfo
	out := make(map[*types.Var]bool)
	record := func(lhs []ast.Expr, rhs []ast.Expr) {
		if len(rhs) != 1 {
			return
		}
		call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
		if !ok {
			return
		}
		if k, _ := classifyCall(info, call); k == callNone {
			return
		}
		for i, l := range lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok {
				continue
			}
			v := asVar(info.Defs[id])
			if v == nil {
				v = asVar(info.Uses[id])
			}
			if v == nil {
				continue
			}
			isOK := len(lhs) >= 2 && i == len(lhs)-1 && types.Identical(v.Type().Underlying(), types.Typ[types.Bool])
			out[v] = out[v] || isOK
		}
	}
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			record(n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			record(lhs, n.Values)
		}
		return true
	})
	return out
}

// pollSucceeds reports whether cond evaluating to want implies that a
// poll of the loop found something: ok is true, a result is not nil, an
// error result is nil.
func (c *checker) pollSucceeds(cond ast.Expr, want bool, polls map[*types.Var]bool) bool {
	info := c.pass.TypesInfo
	switch e := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return c.pollSucceeds(e.X, !want, polls)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return want && (c.pollSucceeds(e.X, true, polls) || c.pollSucceeds(e.Y, true, polls))
		case token.LOR:
			return !want && (c.pollSucceeds(e.X, false, polls) || c.pollSucceeds(e.Y, false, polls))
		case token.EQL, token.NEQ:
			x := e.X
			if isNil(info, x) {
				x = e.Y
			} else if !isNil(info, e.Y) {
				return false
			}
			if !c.polled(x, polls) {
				return false
			}
			nonNil := (e.Op == token.NEQ) == want
			if isError(info.TypeOf(x)) {
				return !nonNil
			}
			return nonNil
		}
	case *ast.Ident:
		if isOK, found := polls[asVar(info.Uses[e])]; found && isOK {
			return want
		}
	}
	return false
}

// polled reports whether x is a call or a variable the loop assigns from one.
func (c *checker) polled(x ast.Expr, polls map[*types.Var]bool) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.CallExpr:
		k, _ := classifyCall(c.pass.TypesInfo, x)
		return k != callNone
	case *ast.Ident:
		_, found := polls[asVar(c.pass.TypesInfo.Uses[x])]
		return found
	}
	return false
}

func isNil(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	_, isNil := info.Uses[id].(*types.Nil)
	return isNil
}

func isError(t types.Type) bool {
	return t != nil && types.Identical(t, types.Universe.Lookup("error").Type())
}

// blockKind says what executing a basic block may do.
type blockKind int

const (
	blockRuns   blockKind = iota // neither blocks nor yields
	blockMay                     // may block, but only through calls that are not waits (see notWait)
	blockYields                  // may block or yield otherwise
)

// blockKind reports whether executing a basic block may block or
// yield. Function literals in it are values, not calls; a call of one
// is a call of a func value and counts as blocking.
func (c *checker) blockKind(b *cfg.Block, nonBlocking map[ast.Stmt]bool) blockKind {
	if b.Kind == cfg.KindRangeLoop {
		if r, ok := b.Stmt.(*ast.RangeStmt); ok && rangeBlocks(c.pass.TypesInfo, r) {
			return blockYields
		}
	}
	kind := blockRuns
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if kind == blockYields {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			visitGoArgs(n.Call, visit)
			return false
		case *ast.DeferStmt:
			// The deferred call runs when the function returns, not
			// in this iteration.
			visitGoArgs(n.Call, visit)
			return false
		case *ast.SendStmt:
			if nonBlocking[n] {
				visitCommOperands(n, visit)
				return false
			}
			kind = blockYields
		case *ast.ExprStmt, *ast.AssignStmt:
			if nonBlocking[n.(ast.Stmt)] {
				visitCommOperands(n.(ast.Stmt), visit)
				return false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				kind = blockYields
			}
		case *ast.CallExpr:
			switch k, fn := classifyCall(c.pass.TypesInfo, n); k {
			case callDynamic:
				kind = blockMay
			case callStatic:
				if c.calleeBlocks(fn) {
					kind = blockYields
					if notWait(fn) {
						kind = blockMay
					}
				}
			}
		}
		return kind != blockYields
	}
	for _, n := range b.Nodes {
		ast.Inspect(n, visit)
		if kind == blockYields {
			break
		}
	}
	return kind
}
