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
// A go statement in a function literal that the loop calls in place
// runs once per event too. A loop counts as receiving events when it
// ranges over a channel, or
// when it is a for loop without a post statement that receives from a
// channel before the go statement (directly or in a select). Channels
// of time.Time (tickers, timers, time.After), receives from a Done()
// method (cancellation) and select cases that end the loop (case <-quit:
// return, a shutdown signal) are not events: they are rate-limited or
// final, and so is a go statement in a select case that receives from a
// time or Done channel. So an accept loop that checks a quit channel
// (on an Accept error, or before each Accept) is not an event loop.
//
// The go statement is considered bounded, and is not reported, when
// the loop (outside function literals other than those called in place,
// func() { ... }(), and outside deferred calls, which run after the
// loop) also
//
//   - sends on a channel: a semaphore acquire (sem <- struct{}{}), or a
//     hand-off that blocks when the consumer is slow (a send in a select
//     with a default never blocks, and bounds only a go statement in its
//     own case, a try-acquire);
//   - receives after the go statement (waiting for the goroutine; the
//     receive of another case of the go statement's select is another
//     event or a quit signal, not a wait), or receives a token with a
//     plain <-ch statement on top of its event receive;
//   - calls a function or method named Wait, Acquire or TryAcquire, or
//     whose name contains "acquire" (sync.WaitGroup.Wait per batch,
//     semaphore.Weighted.Acquire, rate.Limiter.Wait, acquireSlot);
//
// or when the go statement is under an if or for statement whose
// condition takes a token from a pool that only the goroutines refill
// (a list of worker ids, or a count of free slots: the condition reads
// a local variable that the statement's body takes from, and that the
// loop gives back only in a select case receiving from a channel the
// started function literal sends to when it ends, as a backend queue
// of the Go compiler does), or under an if statement whose condition
// reads a variable that the if body assigns (start once, or count up to
// a limit), calls a compare-and-swap or add of sync/atomic, or compares
// a len or cap (a full semaphore channel), or when a statement next to
// the go statement counts a variable up or down that a condition in
// the loop reads (a goroutine budget: budget--, or atomic.AddInt32(&n,
// 1) and n.Add(1) for a count that the goroutines take back
// themselves). A for loop without a post statement whose body counts a
// variable of its condition (for i := 0; i < n; { ...; i++ }) is a
// counting loop, not an event loop.
//
// Deliberately not reported: accept loops (for { c, _ := l.Accept();
// go serve(c) }), which are the standard net/http idiom: the kernel's
// listen backlog bounds arrivals and each connection's goroutine spends
// its life parked in the network poller, not in a run queue; and loops
// that read messages through calls (Read, Scan, Recv), which cannot be
// told from any other call. errgroup.Group.Go is not a go statement and
// is not looked at (its SetLimit may bound it); sync.WaitGroup.Go, which
// has no limit, is judged as the go statement it amounts to.
//
// The analyzer runs by default: on the corpus recorded in the vet
// documentation of this module it reported one false positive (a
// start-once guard read and cleared through method calls, in
// nats-server).
//
// The analyzer suggests no fix: the right bound is a design decision.
package unboundedgo

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/worksteal/steal/vet/internal/bounds"
	"github.com/worksteal/steal/vet/internal/funcs"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
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
	for cur := range inspect.Root().Preorder((*ast.GoStmt)(nil), (*ast.ExprStmt)(nil)) {
		what := "go statement"
		g, ok := cur.Node().(*ast.GoStmt)
		if !ok {
			// wg.Go(f) starts f as go f() does; judge it as that go
			// statement, written where the call is.
			if g = waitGroupGo(pass.TypesInfo, cur.Node().(*ast.ExprStmt)); g == nil {
				continue
			}
			what = "WaitGroup.Go"
		}
		loop, guards := eventLoop(pass.TypesInfo, cur, g)
		if loop == nil {
			continue
		}
		if bounded(pass.TypesInfo, loop, g, guards) || bounds.Budgeted(pass.TypesInfo, loop, cur) {
			continue
		}
		pass.Report(analysis.Diagnostic{
			Pos: g.Go,
			End: g.Call.Lparen,
			Message: what + " per received event with no bound on concurrency: " +
				"a hot producer piles up goroutines faster than they finish, the run queues overflow and stealing cannot catch up; " +
				"acquire a semaphore slot before the go statement or send the events to a fixed pool of workers",
		})
	}
	return nil, nil
}

// waitGroupGo returns, for a statement calling sync.WaitGroup.Go, the
// go statement it amounts to (go f() for wg.Go(f)), spanning the call;
// else nil.
func waitGroupGo(info *types.Info, s *ast.ExprStmt) *ast.GoStmt {
	call, ok := ast.Unparen(s.X).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	fn := funcs.Callee(info, call)
	if !funcs.Is(fn, "sync", "Go") || fn.Type().(*types.Signature).Recv() == nil {
		return nil
	}
	return &ast.GoStmt{
		Go:   call.Pos(),
		Call: &ast.CallExpr{Fun: call.Args[0], Lparen: call.Lparen, Rparen: call.Rparen},
	}
}

// eventLoop returns the innermost loop around the go statement g at cur,
// in the same function, that receives events, with the if and for
// statements between the two.
func eventLoop(info *types.Info, cur inspector.Cursor, g *ast.GoStmt) (ast.Stmt, []ast.Stmt) {
	var guards []ast.Stmt
	for c := range cur.Parent().Enclosing() {
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			if !bounds.CalledInPlace(c) {
				return nil, nil
			}
		case *ast.FuncDecl:
			return nil, nil
		case *ast.IfStmt:
			guards = append(guards, n)
		case *ast.CommClause:
			// In a select case the go statement runs once per firing
			// of that case: per tick or on cancellation when it
			// receives from a time or Done channel, whatever the
			// other cases receive.
			if recv := bounds.CommRecv(n.Comm); recv != nil && !isEventChan(info, recv) {
				return nil, nil
			}
		case *ast.RangeStmt:
			if isEventChan(info, n.X) {
				return n, guards
			}
		case *ast.ForStmt:
			if n.Post == nil && !bounds.CountsInBody(info, n) && receivesBefore(info, n, g.Pos()) {
				return n, guards
			}
			guards = append(guards, n)
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
	ch := funcs.CoreChan(t) // C ~chan E is a channel too
	if ch == nil {
		return false
	}
	if named, ok := types.Unalias(ch.Elem()).(*types.Named); ok {
		if obj := named.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == "time" && obj.Name() == "Time" {
			return false // a ticker or timer: the loop is rate-limited
		}
	}
	return !bounds.IsDone(x) // cancellation is not an event stream
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
		case *ast.CommClause:
			if shutdown(n) {
				return false // case <-quit: return
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && isEventChan(info, n.X) {
				found = true
			}
		}
		return !found
	})
	return found
}

// shutdown reports whether a select case receives a shutdown signal:
// its body ends the loop (its last statement is a return, a goto or a
// labeled break), as in case <-quit: return. Like a Done() channel, the
// channel is final, not a stream of events.
func shutdown(cc *ast.CommClause) bool {
	if bounds.CommRecv(cc.Comm) == nil || len(cc.Body) == 0 {
		return false
	}
	switch last := cc.Body[len(cc.Body)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok == token.GOTO || last.Tok == token.BREAK && last.Label != nil
	}
	return false
}

// bounded reports whether something in the loop limits how many
// goroutines started by g run at once; see the package documentation.
func bounded(info *types.Info, loop ast.Stmt, g *ast.GoStmt, guards []ast.Stmt) bool {
	for _, guard := range guards {
		if ifs, ok := guard.(*ast.IfStmt); ok && bounds.GuardBounds(info, ifs) {
			return true
		}
		if bounds.TokenPool(info, loop, guard, g) {
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
	// events: receives before g that take a value or select an event;
	// tokens: plain <-ch statements before g.
	found, events, tokens := bounds.Scan(info, body, g, rangeLoop)
	// A token receive only bounds when something else brings the event.
	return found || (tokens > 0 && events > 0)
}
