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

// Every reports whether every underlying type that a value of type t
// may have satisfies pred: t's own underlying type, or for a type
// parameter those of the terms of its constraint (C ~chan E, N ~int |
// ~int64). A type parameter whose constraint lists no types (any,
// comparable, an interface of methods) satisfies nothing.
func Every(t types.Type, pred func(types.Type) bool) bool {
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		iface, ok := tp.Constraint().Underlying().(*types.Interface)
		return ok && restricts(iface, pred)
	}
	return pred(t.Underlying())
}

// restricts reports whether an element embedded in iface limits its
// type set to types that satisfy pred (one such element is enough: the
// type set is the intersection of the elements').
func restricts(iface *types.Interface, pred func(types.Type) bool) bool {
	for i := range iface.NumEmbeddeds() {
		var terms []types.Type
		if u, ok := types.Unalias(iface.EmbeddedType(i)).(*types.Union); ok {
			for j := range u.Len() {
				terms = append(terms, u.Term(j).Type())
			}
		} else {
			terms = []types.Type{iface.EmbeddedType(i)}
		}
		all := len(terms) > 0
		for _, t := range terms {
			if in, ok := t.Underlying().(*types.Interface); ok {
				all = all && restricts(in, pred)
			} else {
				all = all && pred(t.Underlying())
			}
		}
		if all {
			return true
		}
	}
	return false
}

// CoreChan returns the channel type of t: t's underlying type, or for
// a type parameter constrained to channel types the first of them; nil
// if t is not a channel.
func CoreChan(t types.Type) *types.Chan {
	var first *types.Chan
	ok := Every(t, func(u types.Type) bool {
		ch, ok := u.(*types.Chan)
		if ok && first == nil {
			first = ch
		}
		return ok
	})
	if !ok {
		return nil
	}
	return first
}
