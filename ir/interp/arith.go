package interp

import (
	"github.com/kcgo/kc/ir"
)

// Componentwise operators: the loops that apply a scalar function to the
// active lanes' components, and the binary operators built on them.

// map1 applies f to each of the w components of x.
func (c *compiler) map1(x exprFn, w int, f fn1) exprFn {
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		for _, l := range act {
			o := int(l) * 4
			for i := 0; i < w; i++ {
				out[o+i] = f(a[o+i])
			}
		}
		return out
	}
}

// map2 applies f componentwise; sx and sy are 0 for a scalar operand
// broadcast over the w components.
func (c *compiler) map2(x, y exprFn, w, sx, sy int, f fn2) exprFn {
	out := c.m.newCol()
	if w == 1 {
		return func(act []int32) []uint32 {
			a, b := x(act), y(act)
			for _, l := range act {
				o := int(l) * 4
				out[o] = f(a[o], b[o])
			}
			return out
		}
	}
	return func(act []int32) []uint32 {
		a, b := x(act), y(act)
		for _, l := range act {
			o := int(l) * 4
			for i := 0; i < w; i++ {
				out[o+i] = f(a[o+i*sx], b[o+i*sy])
			}
		}
		return out
	}
}

// map3 is map2 for three operands.
func (c *compiler) map3(x, y, z exprFn, w, sx, sy, sz int, f fn3) exprFn {
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a, b, d := x(act), y(act), z(act)
		for _, l := range act {
			o := int(l) * 4
			for i := 0; i < w; i++ {
				out[o+i] = f(a[o+i*sx], b[o+i*sy], d[o+i*sz])
			}
		}
		return out
	}
}

func (c *compiler) binary(e *ir.Binary) exprFn {
	xt, yt := e.X.Type(), e.Y.Type()
	if e.Op.IsLogical() && width(xt) == 1 {
		return c.logical(e)
	}
	f := binaryFn(e.Op, ir.ElemScalar(xt))
	if f == nil {
		c.errorf(e.Pos, "operator %s is not defined on %s", e.Op, xt)
	}
	w := width(e.Ty)
	if wx, wy := width(xt), width(yt); wx > w {
		w = wx
	} else if wy > w {
		w = wy
	}
	x, y := c.expr(e.X), c.expr(e.Y)
	if w == 1 {
		if fast := c.fastBinary(e.Op, ir.ElemScalar(xt), x, y); fast != nil {
			return fast
		}
	}
	return c.map2(x, y, w, stride1(xt), stride1(yt), f)
}

// logical evaluates && and || with short circuit: the right operand is
// evaluated only by the lanes whose left operand does not decide.
func (c *compiler) logical(e *ir.Binary) exprFn {
	x, y := c.expr(e.X), c.expr(e.Y)
	out := c.m.newCol()
	rest := c.m.newLanes()
	decide := uint32(0) // && is decided by false
	if e.Op == ir.OpLogOr {
		decide = 1
	}
	return func(act []int32) []uint32 {
		a := x(act)
		r := rest[:0]
		for _, l := range act {
			v := a[4*l]
			out[4*l] = v
			if v != decide {
				r = append(r, l)
			}
		}
		if len(r) > 0 {
			b := y(r)
			for _, l := range r {
				out[4*l] = b[4*l]
			}
		}
		return out
	}
}
