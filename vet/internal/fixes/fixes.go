// Package fixes builds the text edits of the stealvet suggested fixes.
package fixes

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
)

// DeleteStmt returns the edit that removes stmt from its block. When
// stmt has its line to itself (a trailing // comment included, since
// it speaks of the statement), the whole line goes, so that neither a
// blank line nor an orphaned comment is left; otherwise only the
// statement's own text goes. The block's braces and other statements
// show whether the line is shared.
//
// An import that the deletion leaves unused is not removed here: the
// x/tools drivers (checker and unitchecker, through driverutil's
// FormatSourceRemoveImports) drop unused imports when they apply
// fixes, and analysistest.RunWithSuggestedFixes does the same before
// comparing with the golden file.
func DeleteStmt(fset *token.FileSet, file *ast.File, block *ast.BlockStmt, stmt ast.Stmt) analysis.TextEdit {
	tf := fset.File(stmt.Pos())
	first, last := tf.Line(stmt.Pos()), tf.Line(stmt.End())
	alone := tf.Line(block.Lbrace) < first && tf.Line(block.Rbrace) > last
	for _, s := range block.List {
		if s != stmt && tf.Line(s.End()) >= first && tf.Line(s.Pos()) <= last {
			alone = false
		}
	}
	for _, cg := range file.Comments {
		for _, c := range cg.List {
			if tf.Line(c.Pos()) == first && c.End() <= stmt.Pos() {
				alone = false // /* comment */ before the statement
			}
		}
	}
	if !alone {
		return analysis.TextEdit{Pos: stmt.Pos(), End: stmt.End()}
	}
	return analysis.TextEdit{Pos: tf.LineStart(first), End: tf.LineStart(last + 1)}
}

// LeavesDotImportUnused reports whether deleting stmt would leave a dot
// import of file unused: stmt refers to a member of a dot-imported
// package, and nothing else in the file does. The drivers remove
// unused named imports after a fix, but not dot imports, so such a
// deletion would not compile.
func LeavesDotImportUnused(info *types.Info, file *ast.File, stmt ast.Stmt) bool {
	dots := make(map[string]bool)
	for _, imp := range file.Imports {
		if imp.Name != nil && imp.Name.Name == "." {
			if path, err := strconv.Unquote(imp.Path.Value); err == nil {
				dots[path] = true
			}
		}
	}
	if len(dots) == 0 {
		return false
	}
	// The selected names of x.f and pkg.F are not dot-import uses.
	selected := make(map[*ast.Ident]bool)
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			selected[sel.Sel] = true
		}
		return true
	})
	inside, outside := make(map[string]bool), make(map[string]bool)
	ast.Inspect(file, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || selected[id] {
			return true
		}
		obj := info.Uses[id]
		if obj == nil || obj.Pkg() == nil || !dots[obj.Pkg().Path()] || obj.Parent() != obj.Pkg().Scope() {
			return true // not a package-level member of a dot import
		}
		if stmt.Pos() <= id.Pos() && id.Pos() < stmt.End() {
			inside[obj.Pkg().Path()] = true
		} else {
			outside[obj.Pkg().Path()] = true
		}
		return true
	})
	for path := range inside {
		if !outside[path] {
			return true
		}
	}
	return false
}
