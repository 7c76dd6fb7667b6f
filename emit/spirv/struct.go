package spirv

import "github.com/kcgo/kc/ir"

// This file lowers structs and array values. A struct type exists in two
// forms: with explicit layout (Offset member decorations from
// ir.FieldOffsets, arrays inside with ArrayStride), used only inside
// storage buffers, and without, used for values and Function and Workgroup
// variables (Vulkan forbids explicit layout there in SPIR-V 1.4+).
// relayout converts between the two member by member.

// structKey identifies an interned struct type.
type structKey struct {
	s      *ir.Struct
	layout bool
}

// structType returns the id of struct s in the form layout asks for.
func (b *builder) structType(s *ir.Struct, layout bool) uint32 {
	key := structKey{s, layout}
	if id, ok := b.structs[key]; ok {
		return id
	}
	members := make([]uint32, len(s.Fields))
	for i, fd := range s.Fields {
		members[i] = b.typeID(fd.Type, layout)
	}
	id := b.id()
	b.globals.inst(opTypeStruct, append([]uint32{id}, members...)...)
	b.named.add(id)
	b.structs[key] = id
	if layout {
		for i, off := range ir.FieldOffsets(s) {
			b.annots.inst(opMemberDecorate, id, uint32(i), decOffset, uint32(off))
		}
	}
	if !b.opts.NoDebugInfo {
		name := s.Name
		if layout {
			name += "_layout"
		}
		b.names.instStr(opName, []uint32{id}, name)
		for i, fd := range s.Fields {
			b.names.instStr(opMemberName, []uint32{id, uint32(i)}, fd.Name)
		}
	}
	return id
}

// needsRelayout reports whether values of t have a different type inside
// a buffer than outside.
func needsRelayout(t ir.Type) bool {
	switch t.(type) {
	case *ir.Array, *ir.Struct:
		return true
	}
	return false
}

// relayout rebuilds an array or struct value between its laid-out form
// (inside a buffer) and its plain form, element by element.
func (f *fn) relayout(v uint32, t ir.Type, toPlain bool) uint32 {
	var elems []ir.Type
	switch t := t.(type) {
	case *ir.Array:
		for range t.Len {
			elems = append(elems, t.Elem)
		}
	case *ir.Struct:
		for _, fd := range t.Fields {
			elems = append(elems, fd.Type)
		}
	default:
		return v
	}
	parts := make([]uint32, len(elems))
	for i, et := range elems {
		// The source is laid out when converting to plain.
		parts[i] = f.relayout(f.extract(f.typeID(et, toPlain), v, uint32(i)), et, toPlain)
	}
	return f.compose(f.typeID(t, !toPlain), parts...)
}

// fieldValue is X.Name on a struct value that is not in memory.
func (f *fn) fieldValue(e *ir.Field) uint32 {
	return f.extract(f.tid(e.Ty), f.expr(e.X), uint32(e.Index))
}

// structLit is OpCompositeConstruct of the fields in order, zero
// (OpConstantNull) for a field the literal leaves out.
func (f *fn) structLit(e *ir.StructLit) uint32 {
	vals := e.Values()
	parts := make([]uint32, len(vals))
	for i, v := range vals {
		if v == nil {
			parts[i] = f.constNull(f.tid(e.Struct.Fields[i].Type))
			continue
		}
		parts[i] = f.expr(v)
	}
	return f.compose(f.tid(e.Struct), parts...)
}

// arrayLit is OpCompositeConstruct of the elements in order.
func (f *fn) arrayLit(e *ir.ArrayLit) uint32 {
	parts := make([]uint32, len(e.Elems))
	for i, el := range e.Elems {
		parts[i] = f.expr(el)
	}
	return f.compose(f.tid(e.Array), parts...)
}

// constArray returns the OpConstantComposite of a constant array (nested
// for nested arrays) from its flattened scalar values.
func (b *builder) constArray(t *ir.Array, vals []ir.Value) uint32 {
	per := len(vals) / max(t.Len, 1)
	parts := make([]uint32, t.Len)
	for i := range parts {
		chunk := vals[i*per : (i+1)*per]
		if inner, ok := t.Elem.(*ir.Array); ok {
			parts[i] = b.constArray(inner, chunk)
		} else {
			parts[i] = b.constOf(t.Elem, chunk[0])
		}
	}
	typ := b.typeID(t, false)
	var key []byte
	for _, p := range append([]uint32{typ}, parts...) {
		key = append(key, itoa(int(p))...)
		key = append(key, ',')
	}
	if id, ok := b.composites[string(key)]; ok {
		return id
	}
	id := b.id()
	b.globals.inst(opConstantComposite, append([]uint32{typ, id}, parts...)...)
	b.named.add(id)
	b.composites[string(key)] = id
	return id
}

// constVar returns the Function variable, initialised with the constant
// array c, through which this function indexes c at run time
// (OpAccessChain needs a pointer; the variable is never written).
func (f *fn) constVar(c *ir.Const) uint32 {
	if v, ok := f.constVars[c]; ok {
		return v
	}
	a := c.Ty.(*ir.Array)
	init := f.constArray(a, c.Elems)
	v := f.builder.id()
	f.vars.inst(opVariable, f.tPtr(scFunction, f.typeID(a, false)), v, scFunction, init)
	f.name(v, c.Name)
	f.constVars[c] = v
	return v
}

// constArrayOf returns the constant array an object is, or nil.
func constArrayOf(o ir.Object) *ir.Const {
	if c, ok := o.(*ir.Const); ok && c.Elems != nil {
		if _, ok := c.Ty.(*ir.Array); ok {
			return c
		}
	}
	return nil
}
