// Package fixes builds the text edits of the stealvet suggested fixes.
package fixes

import (
	"go/ast"
	"go/token"

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
