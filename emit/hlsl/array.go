package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file lowers constant arrays and array literals. A constant array is
// a `static const` global with an initializer list, which every compiler
// indexes at run time. An array literal is a temporary: initialized with a
// list when its elements are scalars or vectors, assigned element by
// element otherwise (an initializer list flattens aggregates, which reads
// differently from kc).

// constArray returns the global name of the constant array c, declaring it
// on first use.
func (f *fn) constArray(c *ir.Const) string {
	e := f.e
	name, ok := e.constNames[c]
	if !ok {
		f.fail(fmt.Errorf("%s: hlsl: constant array %s was not named", c.Pos, c.Name))
		return words.Legal(c.Name)
	}
	e.statics["0 const "+name] = constArrayDecl(c, name)
	return name
}

// constArrayDecl spells `static const float W[5] = { ... };`.
func constArrayDecl(c *ir.Const, name string) string {
	t := c.Ty
	if t == nil {
		t = c.Type
	}
	dims, elem := arrayShape(t)
	per := 1
	if v, ok := elem.(ir.Vector); ok {
		per = v.N
	}
	vals := c.Elems
	var list func(d int) string
	list = func(d int) string {
		if d == len(dims) {
			s := ir.ElemScalar(elem)
			if per == 1 {
				v := vals[0]
				vals = vals[1:]
				return scalarLit(v, s)
			}
			parts := make([]string, per)
			for i := range parts {
				parts[i] = scalarLit(vals[0], s)
				vals = vals[1:]
			}
			return typeName(elem) + "(" + strings.Join(parts, ", ") + ")"
		}
		parts := make([]string, dims[d])
		for i := range parts {
			parts[i] = list(d + 1)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	want := per
	for _, d := range dims {
		want *= d
	}
	if len(vals) != want {
		return fmt.Sprintf("#error \"kc: constant array %s has %d values, want %d\"", c.Name, len(vals), want)
	}
	doc := ""
	for _, d := range c.Doc {
		doc += comment(d) + "\n"
	}
	return doc + "static const " + decl(t, name) + " = " + list(0) + ";"
}

// listable reports whether an array literal can be an initializer list:
// its elements are scalars or vectors.
func listable(x *ir.ArrayLit) bool {
	switch x.Array.Elem.(type) {
	case ir.Scalar, ir.Vector:
		return true
	}
	return false
}

// list evaluates the elements of a listable array literal into "{ a, b }".
func (f *fn) list(x *ir.ArrayLit) string {
	hs := f.seq(x.Elems, false)
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.s
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// arrayDecl declares the local d of type t initialized by a listable
// array literal: `float a[3] = { ... };`.
func (f *fn) arrayDecl(d *ir.Decl, t ir.Type, x *ir.ArrayLit) {
	v := f.list(x)
	f.flush()
	name := f.local.Name(d.Name)
	f.names[d] = name
	f.out(d.Pos, f.declPrefix(t)+decl(t, name)+" = "+v+";")
}

// arrayLit builds an array literal in a temporary.
func (f *fn) arrayLit(x *ir.ArrayLit) hx {
	if listable(x) {
		v := f.list(x)
		name := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
		f.tmp++
		f.pre = append(f.pre, f.declPrefix(x.Array)+decl(x.Array, name)+" = "+v+";")
		return primary(name)
	}
	hs := f.seq(x.Elems, false)
	name := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	prefix := f.declPrefix(x.Array)
	switch x.Array.Elem.(type) {
	default:
		f.pre = append(f.pre, prefix+decl(x.Array, name)+";")
		for i, h := range hs {
			f.pre = append(f.pre, fmt.Sprintf("%s[%d] = %s;", name, i, h.s))
		}
	}
	return primary(name)
}
