// Package unboundedgo defines an Analyzer that reports goroutines
// started once per received event with no bound on how many run at once.
//
// # Analyzer unboundedgo
//
// unboundedgo: report a go statement per received event with no bound on concurrency
//
// A loop that receives events and starts a goroutine for each:
//
//	for {
//		ev := <-events
//		go process(ev)
//	}
//
// runs as many goroutines as events arrived faster than they were
// handled. When the producer is hot and the consumers are slow the
// goroutines pile up by the hundred thousand: the local run queues
// overflow into the global one, every P has a backlog, memory grows
// with the stacks, and work stealing cannot help because there is
// simply more work than Ps. Bound the concurrency instead: acquire a
// slot of a buffered channel (or a semaphore.Weighted) before the go
// statement and release it when the goroutine ends, or send the events
// to a fixed pool of workers, so that the producer feels the back
// pressure.
//
// A loop counts as receiving events when it ranges over a channel, or
// when it is a for loop without a post statement that receives from a
// channel before the go statement (directly or in a select). Channels
// of time.Time (tickers, timers, time.After) and receives from a Done()
// method (cancellation) are not events: they are rate-limited or final.
//
// The go statement is considered bounded, and is not reported, when
// the loop (outside function literals) also
//
//   - sends on a channel: a semaphore acquire (sem <- struct{}{}), or a
//     hand-off that blocks when the consumer is slow;
//   - receives after the go statement (waiting for the goroutine), or
//     receives a token with a plain <-ch statement on top of its event
//     receive;
//   - calls a function or method named Wait, Acquire or TryAcquire, or
//     whose name contains "acquire" (sync.WaitGroup.Wait per batch,
//     semaphore.Weighted.Acquire, rate.Limiter.Wait, acquireSlot);
//
// or when the go statement is under an if statement whose condition
// reads a variable that the if body assigns (start once, or count up to
// a limit), calls a compare-and-swap or add of sync/atomic, or compares
// a len or cap (a full semaphore channel), or when a statement next to
// the go statement counts a variable up or down that a condition in
// the loop reads (a goroutine budget). A for loop without a post
// statement whose body counts a variable of its condition
// (for i := 0; i < n; { ...; i++ }) is a counting loop, not an event
// loop.
//
// Deliberately not reported: accept loops (for { c, _ := l.Accept();
// go serve(c) }), which are the standard net/http idiom: the kernel's
// listen backlog bounds arrivals and each connection's goroutine spends
// its life parked in the network poller, not in a run queue; and loops
// that read messages through calls (Read, Scan, Recv), which cannot be
// told from any other call. errgroup.Group.Go is not a go statement and
// is not looked at.
//
// The analyzer runs by default: on the corpus recorded in the vet
// documentation of this module it reported no false positive.
//
// The analyzer suggests no fix: the right bound is a design decision.
package unboundedgo

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
// user enables it.
const OptIn = false

// Analyzer reports unbounded go statements in event loops.
var Analyzer = &analysis.Analyzer{
	Name:     "unboundedgo",
	Doc:      "report a go statement per received event with no bound on concurrency\n\nA loop that receives from a channel and starts a goroutine per event lets a hot producer pile up goroutines faster than slow consumers finish them: the run queues overflow and stealing cannot help. Acquire a semaphore slot before the go statement or hand events to a fixed pool of workers. Accept loops, time-driven loops and loops with a send, a wait or an acquire are not reported.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/unboundedgo",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

func run(pass *analysis.Pass) (any, error) {
	inspect := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for cur := range inspect.Root().Preorder((*ast.GoStmt)(nil)) {
		g := cur.Node().(*ast.GoStmt)
		loop, guards := eventLoop(pass.TypesInfo, cur)
		if loop == nil {
			continue
		}
		if bounded(pass.TypesInfo, loop, g, guards) || budgeted(pass.TypesInfo, loop, cur) {
			continue
		}
		pass.Report(analysis.Diagnostic{
			Pos: g.Go,
			End: g.Call.Lparen,
			Message: "go statement per received event with no bound on concurrency: " +
				"a hot producer piles up goroutines faster than they finish, the run queues overflow and stealing cannot catch up; " +
				"acquire a semaphore slot before the go statement or send the events to a fixed pool of workers",
		})
	}
	return nil, nil
}

// eventLoop returns the innermost loop around the go statement at cur,
// in the same function, that receives events, with the if statements
// between the two.
func eventLoop(info *types.Info, cur inspector.Cursor) (ast.Stmt, []*ast.IfStmt) {
	g := cur.Node().(*ast.GoStmt)
	var guards []*ast.IfStmt
	for c := range cur.Parent().Enclosing() {
		switch n := c.Node().(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return nil, nil
		case *ast.IfStmt:
			guards = append(guards, n)
		case *ast.RangeStmt:
			if isEventChan(info, n.X) {
				return n, guards
			}
		case *ast.ForStmt:
			if n.Post == nil && !countsInBody(info, n) && receivesBefore(info, n, g.Pos()) {
				return n, guards
			}
		}
	}
	return nil, nil
}

// isEventChan reports whether ranging over or receiving from x takes
// events: x is a channel, not of time.Time and not a Done() method's.
func isEventChan(info *types.Info, x ast.Expr) bool {
	t := info.TypeOf(x)
	if t == nil {
		return false
	}
	ch, ok := t.Underlying().(*types.Chan)
	if !ok {
		return false
	}
	if named, ok := types.Unalias(ch.Elem()).(*types.Named); ok {
		if obj := named.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			return false // a ticker or timer: the loop is rate-limited
		}
	}
	return !isDone(x) // cancellation is not an event stream
}

// isDone reports whether x is a call of a method named Done, as in
// <-ctx.Done().
func isDone(x ast.Expr) bool {
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Done" {
			return true
		}
	}
	return false
}

// receivesBefore reports whether the loop receives an event before pos,
// outside function literals.
func receivesBefore(info *types.Info, loop *ast.ForStmt, pos token.Pos) bool {
	found := false
	ast.Inspect(loop, func(n ast.Node) bool {
		if found || n == nil || n.Pos() >= pos {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && isEventChan(info, n.X) {
				found = true
			}
		}
		return !found
	})
	return found
}

// countsInBody reports whether a for loop without a post statement is
// a counting loop in disguise (for i := 0; i < n; { ...; i++ }): its
// body increments or decrements a variable that its condition reads.
func countsInBody(info *types.Info, loop *ast.ForStmt) bool {
	if loop.Cond == nil {
		return false
	}
	read := condObjects(info, loop.Cond)
	counted := false
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if obj := counter(info, n); obj != nil && read[obj] {
			counted = true
		}
		return !counted
	})
	return counted
}

// condObjects returns the variables and fields that an expression reads.
func condObjects(info *types.Info, e ast.Expr) map[types.Object]bool {
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

// counter returns the variable or field that n counts up or down
// (x++, x--, x += k, x -= k), or nil.
func counter(info *types.Info, n ast.Node) types.Object {
	var x ast.Expr
	switch n := n.(type) {
	case *ast.IncDecStmt:
		x = n.X
	case *ast.AssignStmt:
		if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Lhs) == 1 {
			x = n.Lhs[0]
		}
	}
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		return info.Uses[x]
	case *ast.SelectorExpr:
		return info.Uses[x.Sel]
	}
	return nil
}

// budgeted reports whether the go statement at cur is counted against a
// budget: a statement next to it counts a variable up or down that a
// condition in the loop compares (if budget <= 0 { wait }; go work();
// budget--).
func budgeted(info *types.Info, loop ast.Stmt, cur inspector.Cursor) bool {
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
		if obj := counter(info, s); obj != nil {
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
			for obj := range condObjects(info, cond) {
				if counted[obj] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// bounded reports whether something in the loop limits how many
// goroutines started by g run at once; see the package documentation.
func bounded(info *types.Info, loop ast.Stmt, g *ast.GoStmt, guards []*ast.IfStmt) bool {
	for _, ifs := range guards {
		if guardBounds(info, ifs) {
			return true
		}
	}
	_, rangeLoop := loop.(*ast.RangeStmt)
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.RangeStmt:
		body = l.Body
	case *ast.ForStmt:
		body = l.Body
	}
	events := 0 // receives before g that take a value or select an event
	tokens := 0 // plain <-ch statements before g
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GoStmt:
			if n == g {
				return false // what the goroutine does is not a bound on starting it
			}
		case *ast.SendStmt:
			found = true
		case *ast.ExprStmt:
			if u, ok := ast.Unparen(n.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
				if isDone(u.X) {
					return false // waiting for cancellation bounds nothing
				}
				if n.Pos() > g.End() || rangeLoop {
					found = true
				} else if !inSelect(body, n) {
					tokens++
				} else {
					events++
				}
				return false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && !isDone(n.X) {
				if n.Pos() > g.End() || rangeLoop {
					found = true
				} else {
					events++
				}
			}
		case *ast.CallExpr:
			if boundingCall(info, n) {
				found = true
			}
		}
		return !found
	})
	// A token receive only bounds when something else brings the event.
	return found || (tokens > 0 && events > 0)
}

// inSelect reports whether the statement s is the comm of a select case.
func inSelect(body *ast.BlockStmt, s ast.Stmt) bool {
	in := false
	ast.Inspect(body, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CommClause); ok && cc.Comm == s {
			in = true
		}
		return !in
	})
	return in
}

// boundingCall reports whether call waits for a slot or for earlier
// goroutines, judged by the name of the function or method.
func boundingCall(info *types.Info, call *ast.CallExpr) bool {
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

// guardBounds reports whether an if statement around the go statement
// limits it: its condition reads a variable its body assigns (start
// once; count up to a limit), calls a compare-and-swap or add of
// sync/atomic, or compares a len or cap.
func guardBounds(info *types.Info, ifs *ast.IfStmt) bool {
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
