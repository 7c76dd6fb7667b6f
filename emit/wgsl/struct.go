package wgsl

import (
	"math"
	"strconv"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file writes structs, field access, struct and array literals and
// constant arrays (docs/lowering-12.md, "Structs", "Constant arrays").
//
// A kc struct is a WGSL struct with the same fields in the same order; its
// storage layout (ir.FieldOffsets, ir.SizeOf) is WGSL's by definition, so
// a buffer of structs needs no padding members. A constant array is a
// module-scope const, which WGSL lets a run-time index read.

// declareTypes names, before any other module-scope name is given out
// except the entry points, the structs and constant arrays that the
// emitted kernels and the functions they call use, so that they keep
// their .kc names where they can.
func (e *emitter) declareTypes() {
	structs, consts := e.usedTypes()
	// Declaration order, except that a struct comes after the structs its
	// fields hold (WGSL allows either; readers and older naga prefer this).
	var visit func(s *ir.Struct)
	visit = func(s *ir.Struct) {
		if !structs[s] {
			return
		}
		structs[s] = false
		for _, fd := range s.Fields {
			if inner := innerStruct(fd.Type); inner != nil {
				visit(inner)
			}
		}
		e.structs = append(e.structs, s)
		e.structNames[s] = e.global.Name(s.Name)
		fields := emit.NewNamer(words)
		names := make([]string, len(s.Fields))
		for i, fd := range s.Fields {
			names[i] = fields.Name(fd.Name)
		}
		e.fieldNames[s] = names
	}
	for _, s := range e.m.Structs {
		visit(s)
	}
	for _, c := range e.m.Consts {
		if consts[c] {
			e.consts = append(e.consts, c)
			e.constNames[c] = e.global.Name(c.Name)
		}
	}
}

// usedTypes finds the structs (with the structs inside them) and constant
// arrays that the emitted kernels, or the functions they call, use.
func (e *emitter) usedTypes() (map[*ir.Struct]bool, map[*ir.Const]bool) {
	structs, consts := map[*ir.Struct]bool{}, map[*ir.Const]bool{}
	var addType func(t ir.Type)
	addType = func(t ir.Type) {
		switch t := t.(type) {
		case *ir.Struct:
			if t != nil && !structs[t] {
				structs[t] = true
				for _, fd := range t.Fields {
					addType(fd.Type)
				}
			}
		case *ir.Array:
			if t != nil {
				addType(t.Elem)
			}
		}
	}
	seen := map[*ir.Func]bool{}
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		ir.Inspect(b, func(n ir.Node) bool {
			switch n := n.(type) {
			case *ir.Decl:
				addType(n.Ty)
			case *ir.Ident:
				if c, ok := n.Obj.(*ir.Const); ok && c.Elems != nil {
					consts[c] = true
				}
			case *ir.FnCall:
				if fd := n.Fn; fd != nil && !seen[fd] {
					seen[fd] = true
					for _, p := range fd.Params {
						addType(p.Type)
					}
					addType(fd.Result)
					walk(fd.Body)
				}
			}
			if x, ok := n.(ir.Expr); ok {
				addType(x.Type())
			}
			return true
		})
	}
	for _, k := range e.kernels {
		for _, p := range k.Params {
			addType(p.Type)
		}
		for _, s := range k.Shared {
			addType(s.Type)
		}
		walk(k.Body)
	}
	for c := range consts {
		addType(c.Ty)
	}
	return structs, consts
}

// structDecls writes the struct declarations, each with its layout.
func (e *emitter) structDecls() {
	for _, s := range e.structs {
		e.w.blank()
		for _, d := range s.Doc {
			e.w.line(s.Pos, "//", d)
		}
		e.w.line(s.Pos, "// ", layoutNote(s))
		e.w.line(s.Pos, "struct ", e.structNames[s], " {")
		e.w.indent++
		for i, fd := range s.Fields {
			e.w.line(fd.Pos, e.fieldNames[s][i], ": ", e.typeName(fd.Type), ",")
		}
		e.w.indent--
		e.w.line(ir.Pos{}, "}")
	}
}

// layoutNote is "size 32, align 16: pos@0 vel@16 mass@28" (WGSL's own
// layout, written down for readers of buffers).
func layoutNote(s *ir.Struct) string {
	var b strings.Builder
	b.WriteString("size " + strconv.Itoa(ir.SizeOf(s)) + ", align " + strconv.Itoa(ir.AlignOf(s)) + ":")
	for i, off := range ir.FieldOffsets(s) {
		b.WriteString(" " + s.Fields[i].Name + "@" + strconv.Itoa(off))
	}
	return b.String()
}

// constDecls writes the constant arrays as module-scope variables
// initialised with their values: WGSL's own form, a const, takes a
// run-time index in Tint and the spec, but naga v0.19 (wgpu-native)
// rejects that; var<private> works everywhere, and nothing assigns it.
func (e *emitter) constDecls() {
	if len(e.consts) > 0 {
		e.w.blank()
	}
	f := &fn{e: e} // spells the element literals
	for _, c := range e.consts {
		for _, d := range c.Doc {
			e.w.line(c.Pos, "//", d)
		}
		elems := c.Elems
		text := f.arrayValue(c, c.Ty, &elems)
		e.w.line(c.Pos, "var<private> ", e.constNames[c], ": ", e.typeName(c.Ty), " = ", text, ";")
	}
}

// arrayValue spells the next elements of a constant of type t, taking
// them from the flattened values in *elems.
func (f *fn) arrayValue(c *ir.Const, t ir.Type, elems *[]ir.Value) string {
	if a, ok := t.(*ir.Array); ok {
		parts := make([]string, a.Len)
		for i := range parts {
			parts[i] = f.arrayValue(c, a.Elem, elems)
		}
		return f.e.typeName(a) + "(" + strings.Join(parts, ", ") + ")"
	}
	if len(*elems) == 0 {
		f.e.fail(ir.Errorf(c.Pos, "wgsl: constant array %s has too few elements", c.Name))
		return "0"
	}
	v := (*elems)[0]
	*elems = (*elems)[1:]
	if v.Kind == ir.FloatValue && (math.IsInf(v.Float, 0) || math.IsNaN(v.Float)) {
		// WGSL has no literal for them, and a const cannot call the
		// run-time bitcast helper that spells them elsewhere.
		f.e.fail(&ir.UnsupportedError{Pos: c.Pos, Target: Target, Feature: "an infinity or NaN in a constant array"})
		return "0"
	}
	return f.lit(v, t).s
}

// constArray spells a use of a constant array: its module-scope name.
func (f *fn) constArray(x *ir.Ident, c *ir.Const) wx {
	if name, ok := f.e.constNames[c]; ok {
		return prim(name)
	}
	f.e.fail(ir.Errorf(x.Pos, "wgsl: constant array %s not declared", x.Name))
	return prim(words.Legal(x.Name))
}

// field spells x.name.
func (f *fn) field(x *ir.Field) wx {
	if _, isResult := x.X.Type().(ir.CompareExchangeResult); isResult {
		// WGSL's __atomic_compare_exchange_result has the same field names
		return prim(f.expr(x.X).at() + "." + x.Name)
	}
	s, ok := x.X.Type().(*ir.Struct)
	names := f.e.fieldNames[s]
	if !ok || x.Index < 0 || x.Index >= len(names) {
		f.e.fail(ir.Errorf(x.Pos, "wgsl: field %s of a non-struct or unknown struct", x.Name))
		return prim("0")
	}
	return prim(f.expr(x.X).at() + "." + names[x.Index])
}

// structLit spells S(a, b, c) with every field; a field the literal
// leaves out is its type's zero value T(). All fields zero is S().
func (f *fn) structLit(x *ir.StructLit) wx {
	vals := x.Values()
	zero := true
	for _, v := range vals {
		zero = zero && v == nil
	}
	name := f.e.typeName(x.Struct)
	if zero {
		return prim(name + "()")
	}
	args := make([]wx, len(vals))
	for i, v := range vals {
		if v == nil {
			args[i] = prim(f.e.typeName(x.Struct.Fields[i].Type) + "()")
			continue
		}
		args[i] = f.expr(v)
	}
	return prim(name + "(" + joinArgs(args) + ")")
}

// arrayLit spells array<T, N>(a, b, ...).
func (f *fn) arrayLit(x *ir.ArrayLit) wx {
	return prim(f.e.typeName(x.Array) + "(" + joinArgs(f.args(x.Elems)) + ")")
}

// innerStruct is the struct t is or holds as array elements, or nil.
func innerStruct(t ir.Type) *ir.Struct {
	switch t := t.(type) {
	case *ir.Struct:
		return t
	case *ir.Array:
		return innerStruct(t.Elem)
	}
	return nil
}

// declType is the type of a declared local.
func declType(d *ir.Decl) ir.Type {
	if d.Ty != nil {
		return d.Ty
	}
	return d.Type
}

// holdsArray reports whether t is an array or a struct holding one, at
// any depth.
func holdsArray(t ir.Type) bool {
	switch t := t.(type) {
	case *ir.Array:
		return true
	case *ir.Struct:
		for _, fd := range t.Fields {
			if holdsArray(fd.Type) {
				return true
			}
		}
	}
	return false
}

// valueIndex reports whether x indexes an array value that is not in
// memory (a call result, an array literal) with a run-time index, which
// naga v0.19 rejects ("may only be indexed by a constant").
func (f *fn) valueIndex(x *ir.Index) bool {
	if _, ok := x.X.Type().(*ir.Array); !ok || inMemory(x.X) {
		return false
	}
	_, constant := ir.ConstValue(x.Index)
	return !constant
}

// inMemory reports whether x names memory: a variable, parameter, buffer,
// shared or constant array (each declared as a WGSL variable), or an
// element or field of one.
func inMemory(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.Ident:
		return true
	case *ir.Index:
		return inMemory(x.X)
	case *ir.Field:
		return inMemory(x.X)
	}
	return false
}

// indexHelper spells a[i] for an array value a as kc_index_*(a, i), a
// helper that copies a into a var and indexes that; the arguments are
// evaluated in kc's order, a before i.
func (f *fn) indexHelper(x *ir.Index) wx {
	at, it := x.X.Type(), x.Index.Type()
	name := helperPrefix + "index_" + f.e.typeTag(at) + "_" + tag(it)
	f.e.need(name, func() string {
		an, in, en := f.e.typeName(at), f.e.typeName(it), f.e.typeName(x.Ty)
		return "// " + name + " is a[i] for an array value (naga v0.19 indexes only variables at run time).\n" +
			"fn " + name + "(a: " + an + ", i: " + in + ") -> " + en + " {\n  var v = a;\n  return v[i];\n}"
	})
	return prim(name + "(" + joinArgs([]wx{f.expr(x.X), f.expr(x.Index)}) + ")")
}

// typeTag is an identifier-safe spelling of any type for helper names:
// i32, vec3_f32, arr4_vec3_f32, st_Particle.
func (e *emitter) typeTag(t ir.Type) string {
	switch t := t.(type) {
	case *ir.Array:
		return "arr" + strconv.Itoa(t.Len) + "_" + e.typeTag(t.Elem)
	case *ir.Struct:
		return "st_" + e.typeName(t)
	}
	return tag(t)
}
