package callfreeloop

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/worksteal/steal/vet/internal/funcs"
	"github.com/worksteal/steal/vet/internal/loopfx"
)

// Analyzer reports call-free spin loops and busy-waits.
var Analyzer = &analysis.Analyzer{
	Name:     "callfreeloop",
	Doc:      "report call-free spin loops and busy-waits on plain variables\n\nA loop with no call or channel operation that nothing it writes can end holds its P until async preemption slices it, and a busy-wait on a variable another goroutine sets is a data race; park on a channel or sync primitive instead.",
	URL:      "https://pkg.go.dev/github.com/worksteal/steal/vet/passes/callfreeloop",
	Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer},
	Run:      run,
}

const (
	msgForever = "call-free infinite loop: it never ends and makes no call or channel operation, " +
		"so it holds its P and a CPU that work stealing could give to runnable goroutines, " +
		"yielding only when async preemption slices it; block instead (select {}, a channel receive, sync.WaitGroup.Wait)"
	msgBusyWait = "call-free busy-wait: nothing this loop writes can end it, " +
		"so it spins holding a P that work stealing could give to runnable goroutines, " +
		"and polling a plain variable another goroutine sets is a data race the compiler may hoist out of the loop; " +
		"wait on a channel, sync.Cond or sync.WaitGroup instead"
)

// tests is the -callfreeloop.tests flag. Off by default: a test that builds this
// pattern usually does so on purpose (the runtime's own tests make CPU
// hogs and locked spinners to exercise the scheduler), and test code
// does not run where work stealing matters.
var tests bool

func init() {
	Analyzer.Flags.BoolVar(&tests, "tests", false, "also report in _test.go files")
}

func run(pass *analysis.Pass) (any, error) {
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	var fx *loopfx.Analysis // built on the first candidate: most packages have none
	for cur := range insp.Root().Preorder((*ast.ForStmt)(nil)) {
		loop := cur.Node().(*ast.ForStmt)
		if !tests && funcs.IsTestFile(pass.Fset, loop.Pos()) {
			continue
		}
		if !callFree(pass.TypesInfo, loop) || faults(pass.TypesInfo, loop.Body) {
			continue
		}
		var label *ast.Ident
		if ls, ok := cur.Parent().Node().(*ast.LabeledStmt); ok {
			label = ls.Label
		}
		if fx == nil {
			fx = loopfx.New(pass.TypesInfo, pass.Files)
		}
		if fx.Progresses(loop, label, nil) || !reachable(pass, cur) {
			continue
		}
		msg := msgBusyWait
		if alwaysTrue(pass.TypesInfo, loop.Cond) && !fx.HasExits(loop, label, nil) {
			msg = msgForever
		}
		pass.Report(analysis.Diagnostic{Pos: loop.For, End: loop.Body.Lbrace, Message: msg})
	}
	return nil, nil
}

// reachable reports whether control can reach the loop at cur. A
// spin written after a call that never returns (panic, os.Exit, a
// function that always panics) only satisfies the compiler's rule
// that a function with results must end in a terminating statement.
// It relies on the ctrlflow analyzer of x/tools, whose CFGs cut the
// edge after calls it knows (through its noReturn facts) not to
// return, leaving the blocks behind them with Live unset.
func reachable(pass *analysis.Pass, cur inspector.Cursor) bool {
	cfgs := pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs)
	var g *cfg.CFG
	for fn := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		switch fn := fn.Node().(type) {
		case *ast.FuncDecl:
			g = cfgs.FuncDecl(fn)
		case *ast.FuncLit:
			g = cfgs.FuncLit(fn)
		}
		break
	}
	if g == nil {
		return true
	}
	loop := cur.Node().(*ast.ForStmt)
	for _, b := range g.Blocks {
		if b.Kind == cfg.KindForBody && b.Stmt == loop {
			return b.Live
		}
	}
	return true
}

func alwaysTrue(info *types.Info, cond ast.Expr) bool {
	if cond == nil {
		return true
	}
	tv, ok := info.Types[cond]
	return ok && tv.Value != nil && tv.Value.String() == "true"
}

// callFree reports whether running loop (condition, post statement
// and body, but not its init statement, which runs once) can reach no
// call, channel operation, select, go or defer statement.
func callFree(info *types.Info, loop *ast.ForStmt) bool {
	free := true
	check := func(n ast.Node) bool {
		if !free {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // not run unless called, and a call disqualifies
		case *ast.CallExpr:
			if funcs.IsCall(info, n) {
				free = false
			}
		case *ast.SendStmt, *ast.SelectStmt, *ast.GoStmt, *ast.DeferStmt:
			free = false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				free = false
			}
		case *ast.RangeStmt:
			// Ranging over a channel receives; over a function, calls;
			// over a type parameter, may do either.
			switch info.TypeOf(n.X).Underlying().(type) {
			case *types.Chan, *types.Signature, *types.Interface:
				free = false
			}
		}
		return free
	}
	for _, n := range []ast.Node{loop.Cond, loop.Post, loop.Body} {
		if n != nil && free {
			ast.Inspect(n, check)
		}
	}
	return free
}

// faults reports whether body stores through a pointer that is nil
// by construction, *(*T)(nil) = v, or var p *T; *p = v: the runtime's
// way (see the end of main in the runtime's proc.go) to make code that
// must not go on crash on the spot.
func faults(info *types.Info, body *ast.BlockStmt) bool {
	// Pointer variables declared in the body without a value, and
	// never assigned there, are nil.
	nilVars := make(map[types.Object]bool)
	ast.Inspect(body, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == 0 {
			for _, id := range vs.Names {
				if _, ptr := info.TypeOf(id).Underlying().(*types.Pointer); ptr {
					nilVars[info.Defs[id]] = true
				}
			}
		}
		return true
	})
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return !found
		}
		for _, lhs := range as.Lhs {
			switch lhs := ast.Unparen(lhs).(type) {
			case *ast.Ident:
				delete(nilVars, info.ObjectOf(lhs)) // assigned: no longer known nil
			case *ast.StarExpr:
				switch x := ast.Unparen(lhs.X).(type) {
				case *ast.CallExpr:
					if nilConversion(info, x) {
						found = true
					}
				case *ast.Ident:
					if nilVars[info.Uses[x]] {
						found = true
					}
				}
			}
		}
		return true
	})
	return found
}

// nilConversion reports whether e converts nil to a pointer type,
// directly or through other conversions: (*T)(nil),
// (*T)(unsafe.Pointer(nil)).
func nilConversion(info *types.Info, e ast.Expr) bool {
	for {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !info.Types[call.Fun].IsType() {
			return false
		}
		if info.Types[call.Args[0]].IsNil() {
			return true
		}
		e = call.Args[0]
	}
}
