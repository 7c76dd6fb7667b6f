package interp

import (
	"encoding/binary"

	"github.com/kcgo/kc/ir"
)

// call compiles an intrinsic call.
func (c *compiler) call(e *ir.Call) exprFn {
	f := e.Func
	switch {
	case f.IsAtomic():
		return c.atomic(e)
	case f.IsSubgroup():
		return c.subgroup(e)
	case f == ir.Dot:
		return c.dot(e)
	case f == ir.Select:
		if len(e.Args) != 3 {
			break
		}
		t := e.Args[1].Type()
		return c.map3(c.expr(e.Args[0]), c.expr(e.Args[1]), c.expr(e.Args[2]),
			width(t), stride1(e.Args[0].Type()), stride1(t), stride1(e.Args[2].Type()), mathFn3(ir.Select, 0))
	}
	if fn := c.special(e); fn != nil {
		return fn
	}
	if len(e.Args) != f.Info().Arity || len(e.Args) == 0 {
		c.errorf(e.Pos, "%s takes %d arguments, given %d", f, f.Info().Arity, len(e.Args))
	}
	t := e.Args[0].Type()
	s, w := ir.ElemScalar(t), width(t)
	args := make([]exprFn, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	switch len(e.Args) {
	case 1:
		if fn := mathFn1(f, s); fn != nil {
			return c.map1(args[0], w, fn)
		}
	case 2:
		if fn := mathFn2(f, s); fn != nil {
			return c.map2(args[0], args[1], w, stride1(t), stride1(e.Args[1].Type()), fn)
		}
	case 3:
		if fn := mathFn3(f, s); fn != nil {
			return c.map3(args[0], args[1], args[2], w, stride1(t), stride1(e.Args[1].Type()), stride1(e.Args[2].Type()), fn)
		}
	}
	c.errorf(e.Pos, "%s is not defined on %s", f, t)
	return nil
}

// dot is the sum of the componentwise products, accumulated in order with
// every product and sum rounded to the component type (wrapping for
// integers).
func (c *compiler) dot(e *ir.Call) exprFn {
	if len(e.Args) != 2 {
		c.errorf(e.Pos, "dot takes 2 arguments")
	}
	t := e.Args[0].Type()
	s, w := ir.ElemScalar(t), width(t)
	mul, add := binaryFn(ir.OpMul, s), binaryFn(ir.OpAdd, s)
	if mul == nil || s == ir.Bool {
		c.errorf(e.Pos, "dot is not defined on %s", t)
	}
	x, y := c.expr(e.Args[0]), c.expr(e.Args[1])
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a, b := x(act), y(act)
		for _, l := range act {
			o := 4 * int(l)
			acc := mul(a[o], b[o])
			for i := 1; i < w; i++ {
				acc = add(acc, mul(a[o+i], b[o+i]))
			}
			out[o] = acc
		}
		return out
	}
}

// atomic compiles an atomic read-modify-write, load or store. Lanes
// perform it one after the other in lane order (sequentially consistent).
func (c *compiler) atomic(e *ir.Call) exprFn {
	f := e.Func
	if len(e.Args) != f.Info().Arity || !c.addressable(e.Args[0]) {
		c.errorf(e.Pos, "%s needs an atomic location", f)
	}
	r := c.ref(e.Args[0])
	at, ok := r.ty.(ir.Atomic)
	if !ok || r.mem == nil {
		c.errorf(e.Pos, "%s on %s, which is not an atomic in memory", f, r.ty)
	}
	if f == ir.AtomicCompareExchangeWeak {
		return c.compareExchange(e, r)
	}
	var op fn2
	var val exprFn
	if len(e.Args) == 2 {
		val = c.expr(e.Args[1])
		op = atomicOp(f, at.Elem)
		if op == nil {
			c.errorf(e.Pos, "unknown atomic %s", f)
		}
	}
	mem, where := r.mem, r.at
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		offs := where(act)
		var v []uint32
		if val != nil {
			v = val(act)
		}
		for _, l := range act {
			o, p := 4*int(l), offs[l]
			old := binary.LittleEndian.Uint32(mem[p:])
			out[o] = old
			if op != nil {
				binary.LittleEndian.PutUint32(mem[p:], op(old, v[o]))
			}
		}
		return out
	}
}

// atomicOp is the update of an atomic read-modify-write (or store).
func atomicOp(f ir.Intrinsic, s ir.Scalar) fn2 {
	switch f {
	case ir.AtomicStore, ir.AtomicExchange:
		return func(_, b uint32) uint32 { return b }
	case ir.AtomicAdd:
		return u32Binary(ir.OpAdd)
	case ir.AtomicSub:
		return u32Binary(ir.OpSub)
	case ir.AtomicAnd:
		return u32Binary(ir.OpAnd)
	case ir.AtomicOr:
		return u32Binary(ir.OpOr)
	case ir.AtomicXor:
		return u32Binary(ir.OpXor)
	case ir.AtomicMax:
		return minFn(s, false)
	case ir.AtomicMin:
		return minFn(s, true)
	}
	return nil
}

// compareExchange compiles atomicCompareExchangeWeak: lanes in lane order
// read the location and, where it equals cmp, store v. The result holds
// the old value (component 0) and whether it was exchanged (component 1).
// The interpreter never fails spuriously; a GPU's weak exchange may
// (exchanged false although old_value equals cmp), so kernels loop.
func (c *compiler) compareExchange(e *ir.Call, r ref) exprFn {
	if len(e.Args) != 3 {
		c.errorf(e.Pos, "%s takes 3 arguments", e.Func)
	}
	cmp, val := c.expr(e.Args[1]), c.expr(e.Args[2])
	mem, where := r.mem, r.at
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		offs := where(act)
		cv, v := cmp(act), val(act)
		for _, l := range act {
			o, p := 4*int(l), offs[l]
			old := binary.LittleEndian.Uint32(mem[p:])
			out[o], out[o+1] = old, boolBits(old == cv[o])
			if old == cv[o] {
				binary.LittleEndian.PutUint32(mem[p:], v[o])
			}
		}
		return out
	}
}
