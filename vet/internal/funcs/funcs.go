// Package funcs holds the small syntax and type queries that several
// stealvet analyzers share: which function a call reaches, whether a
// file is a test file, and which function declaration encloses a node.
package funcs

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// Is reports whether fn is the package-level function or method named
// name in the package with import path pkgPath. For a method, name is
// the bare method name.
func Is(fn *types.Func, pkgPath, name string) bool {
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == pkgPath && fn.Name() == name
}

// Callee returns the function or method that call statically reaches,
// or nil (a call of a func value, a conversion, a builtin).
// typeutil.StaticCallee already answers nil for conversions and
// builtins and resolves method selections such as w.Run.
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	return typeutil.StaticCallee(info, call)
}

// IsCallTo reports whether n is a call of the function pkgPath.name.
func IsCallTo(info *types.Info, n ast.Node, pkgPath, name string) bool {
	call, ok := ast.Unparen(asExpr(n)).(*ast.CallExpr)
	return ok && Is(Callee(info, call), pkgPath, name)
}

func asExpr(n ast.Node) ast.Expr {
	if e, ok := n.(ast.Expr); ok {
		return e
	}
	return nil
}

// IsTestFile reports whether the file holding pos is a _test.go file.
func IsTestFile(fset *token.FileSet, pos token.Pos) bool {
	return strings.HasSuffix(fset.Position(pos).Filename, "_test.go")
}

// Imports reports whether pkg imports the package path directly.
// Like the fast path of the lostcancel analyzer in x/tools, it lets an
// analyzer skip packages that cannot contain what it looks for.
func Imports(pkg *types.Package, path string) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == path {
			return true
		}
	}
	return false
}

// IsMainOrInit reports whether decl is an init function, or the main
// function of package main: the places where a program configures the
// runtime once, before its goroutines start.
func IsMainOrInit(pkg *types.Package, decl *ast.FuncDecl) bool {
	if decl == nil || decl.Recv != nil {
		return false
	}
	switch decl.Name.Name {
	case "init":
		return true
	case "main":
		return pkg.Name() == "main"
	}
	return false
}

// IsCall reports whether call runs code: it is neither a conversion
// T(x) nor one of the builtins that compile to a few instructions
// (len, cap, min, max, complex, real, imag and the unsafe functions).
// Other builtins (append, copy, make, new, panic, print, clear, delete,
// close, recover) count as calls: they reach the runtime.
func IsCall(info *types.Info, call *ast.CallExpr) bool {
	fun := ast.Unparen(call.Fun)
	if tv, ok := info.Types[fun]; ok && tv.IsType() {
		return false
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id != nil {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max", "complex", "real", "imag",
				"Sizeof", "Alignof", "Offsetof", "Add", "Slice", "SliceData", "String", "StringData":
				return false
			}
		}
	}
	return true
}

// EnclosingFile returns the file that holds the node at cur.
func EnclosingFile(cur inspector.Cursor) *ast.File {
	for c := range cur.Enclosing((*ast.File)(nil)) {
		return c.Node().(*ast.File)
	}
	return nil
}
