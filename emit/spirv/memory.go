package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers memory: locals (let as SSA values, var as Function
// variables hoisted to the entry block), places (a variable plus an access
// chain), loads, stores and compound assignment, identifiers, indexing and
// len.

// place is an addressable location: a variable and the access-chain
// indices into it.
type place struct {
	base    uint32
	indices []uint32
	sc      uint32
	ty      ir.Type // the type at the end of the chain
	layout  bool    // types inside use explicit layout (buffers, params)
}

func (f *fn) decl(d *ir.Decl) {
	if !d.Mut {
		v := f.expr(d.Init)
		f.nameValue(v, d.Name)
		f.locals[d] = local{id: v}
		return
	}
	t := f.typeID(d.Ty, false)
	v := f.builder.id()
	f.vars.inst(opVariable, f.tPtr(scFunction, t), v, scFunction)
	f.name(v, d.Name)
	f.locals[d] = local{id: v, ptr: true}
	var init uint32
	switch mt, isMat := d.Ty.(ir.CoopMat); {
	case d.Init != nil:
		init = f.expr(d.Init)
	case isMat:
		init = f.coopZero(mt)
	default:
		init = f.constNull(t)
	}
	f.storePtr(v, init)
}

// nameValue names an SSA value that this declaration introduced, but not a
// constant or a value that already has a name.
func (f *fn) nameValue(v uint32, name string) {
	if f.named.has(v) {
		return
	}
	f.name(v, name)
}

// placeOf returns the place e denotes, or ok false when e is not addressable.
func (f *fn) placeOf(e ir.Expr) (p place, ok bool) {
	switch e := e.(type) {
	case *ir.Ident:
		switch o := f.resource(e.Obj).(type) {
		case *ir.Decl:
			l := f.locals[o]
			if !l.ptr {
				return place{}, false
			}
			return place{base: l.id, sc: scFunction, ty: o.Ty}, true
		case *ir.Shared:
			return place{base: f.shared[o], sc: scWorkgroup, ty: o.Type}, true
		case *ir.Const:
			if c := constArrayOf(o); c != nil {
				return place{base: f.constVar(c), sc: scFunction, ty: c.Ty}, true
			}
		}
		return place{}, false
	case *ir.Field:
		base, ok := f.placeOf(e.X)
		if !ok {
			return place{}, false
		}
		base.indices = append(base.indices, f.constU32(uint32(e.Index)))
		base.ty = e.Ty
		return base, true
	case *ir.Index:
		if id, isBuf := e.X.(*ir.Ident); isBuf {
			if p, ok := f.resource(id.Obj).(*ir.Param); ok && p.Kind == ir.BufferParam {
				i := f.index(e.Index)
				return place{base: f.buffers[p], indices: []uint32{f.constU32(0), i}, sc: scStorageBuffer, ty: p.Type, layout: true}, true
			}
		}
		base, ok := f.placeOf(e.X)
		if !ok {
			return place{}, false
		}
		i := f.index(e.Index)
		base.indices = append(base.indices, i)
		base.ty = elemType(base.ty)
		return base, true
	case *ir.Swizzle:
		if len(e.Comps) != 1 {
			return place{}, false
		}
		base, ok := f.placeOf(e.X)
		if !ok {
			return place{}, false
		}
		base.indices = append(base.indices, f.constU32(uint32(compIndex(e.Comps[0]))))
		base.ty = elemType(base.ty)
		return base, true
	}
	return place{}, false
}

// elemType is the type of an element of an array or vector.
func elemType(t ir.Type) ir.Type {
	switch t := t.(type) {
	case *ir.Array:
		return t.Elem
	case ir.Vector:
		return t.Elem
	case ir.CoopMat:
		// an invocation's own elements (OpAccessChain into a matrix
		// variable; the index must be below coopLength)
		return t.Elem
	}
	return t
}

func compIndex(c byte) int {
	switch c {
	case 'x', 'r':
		return 0
	case 'y', 'g':
		return 1
	case 'z', 'b':
		return 2
	}
	return 3
}

// index evaluates an index expression (i32 or u32; OpAccessChain takes either).
func (f *fn) index(e ir.Expr) uint32 { return f.expr(e) }

// pointer returns a pointer to p: the variable itself or an OpAccessChain.
func (f *fn) pointer(p place) uint32 {
	if len(p.indices) == 0 {
		return p.base
	}
	return f.accessChain(f.tPtr(p.sc, f.typeID(p.ty, p.layout)), p.base, p.indices...)
}

func (f *fn) load(p place) uint32 {
	r := f.loadPtr(f.typeID(p.ty, p.layout), f.pointer(p))
	if p.layout && needsRelayout(p.ty) {
		return f.relayout(r, p.ty, true)
	}
	return r
}

func (f *fn) store(p place, v uint32) {
	if p.layout && needsRelayout(p.ty) {
		v = f.relayout(v, p.ty, false)
	}
	f.storePtr(f.pointer(p), v)
}

func (f *fn) assign(s *ir.Assign) {
	p, ok := f.placeOf(s.LHS)
	if !ok {
		fail(ir.Errorf(s.Pos, "spirv: cannot assign to %s", ir.ExprString(s.LHS)))
	}
	if s.Op == ir.OpNone {
		f.store(p, f.expr(s.RHS))
		return
	}
	if ir.IsCoopMat(p.ty) { // m op= x is m = m op x (the place is a local)
		f.store(p, f.coopBinary(&ir.Binary{Pos: s.Pos, Op: s.Op, X: s.LHS, Y: s.RHS, Ty: p.ty}))
		return
	}
	// kc loads the target after evaluating the value (docs/semantics.md
	// § 6), which only a value with effects (a call writing the target, an
	// atomic) can observe; without one the load stays first, as the
	// goldens have it.
	var old, rhs uint32
	if ir.HasEffects(s.RHS) {
		rhs = f.expr(s.RHS)
		old = f.load(p)
	} else {
		old = f.load(p)
		rhs = f.expr(s.RHS)
	}
	f.store(p, f.binop(s.Op, old, p.ty, rhs, s.RHS, p.ty))
}

// ident evaluates an identifier's value.
func (f *fn) ident(e *ir.Ident) uint32 {
	switch o := f.resource(e.Obj).(type) {
	case *ir.Const:
		if c := constArrayOf(o); c != nil {
			return f.constArray(c.Ty.(*ir.Array), c.Elems)
		}
		return f.constOf(e.Ty, o.Val)
	case *ir.Decl:
		l, ok := f.locals[o]
		if !ok {
			fail(ir.Errorf(e.Pos, "spirv: %s used before its declaration", e.Name))
		}
		if !l.ptr {
			return l.id
		}
		return f.load(place{base: l.id, sc: scFunction, ty: o.Ty})
	case *ir.Shared:
		return f.load(place{base: f.shared[o], sc: scWorkgroup, ty: o.Type})
	case *ir.Param:
		if v, ok := f.vals[o]; ok {
			return v
		}
		if o.Kind == ir.ScalarParam {
			idx, ok := f.paramIdx[o]
			if !ok {
				fail(ir.Errorf(e.Pos, "spirv: parameter %s is not in the params block", e.Name))
			}
			return f.load(place{base: f.params, indices: []uint32{f.constU32(idx)}, sc: scUniform, ty: o.Type, layout: true})
		}
		fail(ir.Errorf(e.Pos, "spirv: buffer %s used as a value", e.Name))
	}
	fail(ir.Errorf(e.Pos, "spirv: unresolved identifier %s (module not checked?)", e.Name))
	return 0
}

// indexValue evaluates X[i] that is not addressable: a component of a
// vector value, or an element of an array value (spilled to a Function
// variable when the index is not a constant).
func (f *fn) indexValue(e *ir.Index) uint32 {
	x := f.expr(e.X)
	rt := f.typeID(e.Ty, false)
	if c, ok := constIndex(e.Index); ok {
		return f.extract(rt, x, c)
	}
	i := f.index(e.Index)
	if _, ok := e.X.Type().(ir.Vector); ok {
		return f.op2(opVectorExtractDynamic, rt, x, i)
	}
	tmp := f.builder.id()
	f.vars.inst(opVariable, f.tPtr(scFunction, f.typeID(e.X.Type(), false)), tmp, scFunction)
	f.storePtr(tmp, x)
	return f.load(place{base: tmp, indices: []uint32{i}, sc: scFunction, ty: e.Ty})
}

// constIndex returns the value of a constant index expression.
func constIndex(e ir.Expr) (uint32, bool) {
	switch e := e.(type) {
	case *ir.Lit:
		if e.Val.Kind == ir.IntValue {
			return uint32(e.Val.Int), true
		}
	case *ir.Ident:
		if c, ok := e.Obj.(*ir.Const); ok && c.Val.Kind == ir.IntValue {
			return uint32(c.Val.Int), true
		}
	}
	return 0, false
}

// length is len(buf): OpArrayLength of the runtime array member.
func (f *fn) length(e *ir.Len) uint32 {
	p, ok := f.resource(e.Buf.Obj).(*ir.Param)
	if !ok || p.Kind != ir.BufferParam {
		fail(ir.Errorf(e.Pos, "spirv: len of %s, which is not a buffer", e.Buf.Name))
	}
	r := f.builder.id()
	f.body.inst(opArrayLength, f.tU32(), r, f.buffers[p], 0)
	return r
}
