package interp

import (
	"github.com/kcgo/kc/ir"
)

// Vectors: constructors, bitcasts, swizzles and indexing of vector values.

// construct builds a vector from scalars and vectors, a splat, or a
// componentwise conversion.
func (c *compiler) construct(e *ir.Construct) exprFn {
	to := e.To
	type part struct {
		arg  int
		comp int
		conv fn1
	}
	var parts []part
	args := make([]exprFn, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
		at := a.Type()
		conv := convertFn(ir.ElemScalar(at), to.Elem)
		if conv == nil || ir.Width(at) == 0 {
			c.errorf(a.Position(), "cannot use %s in %s(...)", at, to)
		}
		for k := 0; k < width(at); k++ {
			parts = append(parts, part{i, k, conv})
		}
	}
	if len(parts) == 1 { // splat
		for len(parts) < to.N {
			parts = append(parts, parts[0])
		}
	}
	if len(parts) != to.N {
		c.errorf(e.Pos, "%s(...) given %d components", to, len(parts))
	}
	out := c.m.newCol()
	cols := make([][]uint32, len(args))
	return func(act []int32) []uint32 {
		for i, a := range args {
			cols[i] = a(act)
		}
		for _, l := range act {
			o := int(l) * 4
			for i, p := range parts {
				out[o+i] = p.conv(cols[p.arg][o+p.comp])
			}
		}
		return out
	}
}

// bitcast reinterprets the bytes of a scalar or vector (little-endian,
// first component lowest).
func (c *compiler) bitcast(e *ir.Bitcast) exprFn {
	from := e.X.Type()
	fs, ts := ir.ElemScalar(from), ir.ElemScalar(e.To)
	fw, tw := width(from), width(e.To)
	fc, tc := compSize(fs), compSize(ts)
	if fs == ir.Bool || ts == ir.Bool || fw*fc != tw*tc || ir.Width(from) == 0 || ir.Width(e.To) == 0 {
		c.errorf(e.Pos, "cannot bitcast %s to %s", from, e.To)
	}
	x := c.expr(e.X)
	if fc == tc {
		return x // same words
	}
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		for _, l := range act {
			o := int(l) * 4
			var bits uint64
			for i := fw - 1; i >= 0; i-- {
				bits = bits<<(8*fc) | uint64(a[o+i])
			}
			mask := uint64(1)<<(8*tc) - 1
			for i := 0; i < tw; i++ {
				out[o+i] = uint32(bits & mask)
				bits >>= 8 * tc
			}
		}
		return out
	}
}

// swizzle selects components of a vector value.
func (c *compiler) swizzle(e *ir.Swizzle) exprFn {
	x := c.expr(e.X)
	idx := swizzleIndexes(e.Comps)
	if _, ok := e.X.Type().(ir.CompareExchangeResult); ok {
		// a compare-exchange result (reached from its ir.Field) holds
		// old_value in component 0 and exchanged in component 1
		idx = []int{0}
		if e.Comps == ir.FieldExchanged {
			idx = []int{1}
		}
	}
	if idx == nil || len(idx) > 4 {
		c.errorf(e.Pos, "bad swizzle .%s", e.Comps)
	}
	for _, i := range idx {
		if i >= width(e.X.Type()) {
			c.errorf(e.Pos, "swizzle .%s out of range for %s", e.Comps, e.X.Type())
		}
	}
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		for _, l := range act {
			o := int(l) * 4
			for i, k := range idx {
				out[o+i] = a[o+k]
			}
		}
		return out
	}
}

func swizzleIndexes(comps string) []int {
	idx := make([]int, 0, len(comps))
	for _, r := range comps {
		switch r {
		case 'x', 'r':
			idx = append(idx, 0)
		case 'y', 'g':
			idx = append(idx, 1)
		case 'z', 'b':
			idx = append(idx, 2)
		case 'w', 'a':
			idx = append(idx, 3)
		default:
			return nil
		}
	}
	return idx
}

// indexValue is v[i] on a vector value that lives in no variable.
func (c *compiler) indexValue(e *ir.Index) exprFn {
	vt, ok := e.X.Type().(ir.Vector)
	if !ok {
		c.errorf(e.Pos, "cannot index a %s value", e.X.Type())
	}
	x, ix := c.expr(e.X), c.expr(e.Index)
	signed := ir.ElemScalar(e.Index.Type()) == ir.I32
	out := c.m.newCol()
	return func(act []int32) []uint32 {
		a, iv := x(act), ix(act)
		for _, l := range act {
			o := int(l) * 4
			i := indexInt(iv[o], signed)
			if i < 0 || i >= int64(vt.N) {
				c.m.fail(e.Pos, l, "index %d out of bounds for %s", i, vt)
			}
			out[o] = a[o+int(i)]
		}
		return out
	}
}

// indexInt reads an index value as a signed number.
func indexInt(v uint32, signed bool) int64 {
	if signed {
		return int64(int32(v))
	}
	return int64(v)
}
