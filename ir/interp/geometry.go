package interp

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// Vector intrinsics whose result is not componentwise (length, distance,
// normalize, cross, reflect, all, any), the packing intrinsics and the
// bit-field intrinsics. Float results are computed in float64 from the exact operands
// and rounded once to the result type; GPUs evaluate WGSL's formulas in the
// result type, within the tolerances of tolerance.go.

// lanes applies f to each active lane: ops[i] holds the (up to four)
// components of operand i, out the lane's result components.
func (c *compiler) lanes(args []exprFn, f func(ops [][]uint32, out []uint32)) exprFn {
	out := c.m.newCol()
	vals := make([][]uint32, len(args))
	ops := make([][]uint32, len(args))
	return func(act []int32) []uint32 {
		for i, a := range args {
			vals[i] = a(act)
		}
		for _, l := range act {
			o := 4 * int(l)
			for i := range vals {
				ops[i] = vals[i][o : o+4]
			}
			f(ops, out[o:o+4])
		}
		return out
	}
}

// special compiles the intrinsics of this file, or returns nil.
func (c *compiler) special(e *ir.Call) exprFn {
	f := e.Func
	switch f {
	case ir.Length, ir.Distance, ir.Normalize, ir.Cross, ir.ReflectVector,
		ir.Pack4x8Snorm, ir.Pack4x8Unorm, ir.Pack2x16Float,
		ir.Unpack4x8Snorm, ir.Unpack4x8Unorm, ir.Unpack2x16Float,
		ir.ExtractBits, ir.InsertBits, ir.All, ir.Any, ir.Dot4I8Packed, ir.Dot4U8Packed:
	default:
		return nil
	}
	if len(e.Args) != f.Info().Arity {
		c.errorf(e.Pos, "%s takes %d arguments, given %d", f, f.Info().Arity, len(e.Args))
	}
	args := make([]exprFn, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	t := e.Args[0].Type()
	s, w := ir.ElemScalar(t), width(t)
	switch f {
	case ir.Dot4I8Packed, ir.Dot4U8Packed:
		signed := f == ir.Dot4I8Packed
		return c.lanes(args, func(ops [][]uint32, out []uint32) {
			var sum int32
			for i := 0; i < 4; i++ {
				x, y := ops[0][0]>>(8*i)&0xff, ops[1][0]>>(8*i)&0xff
				if signed {
					sum += int32(int8(x)) * int32(int8(y))
				} else {
					sum += int32(x * y)
				}
			}
			out[0] = uint32(sum)
		})
	case ir.All, ir.Any:
		all := f == ir.All
		return c.lanes(args, func(ops [][]uint32, out []uint32) {
			r := all
			for i := 0; i < w; i++ {
				if (ops[0][i] != 0) != all {
					r = !all
				}
			}
			out[0] = boolBits(r)
		})
	case ir.ExtractBits, ir.InsertBits:
		return c.bitField(f, s, w, args)
	case ir.Pack4x8Snorm, ir.Pack4x8Unorm, ir.Pack2x16Float:
		return c.lanes(args, func(ops [][]uint32, out []uint32) { out[0] = pack(f, ops[0]) })
	case ir.Unpack4x8Snorm, ir.Unpack4x8Unorm, ir.Unpack2x16Float:
		return c.lanes(args, func(ops [][]uint32, out []uint32) { unpack(f, ops[0][0], out) })
	}
	return c.lanes(args, func(ops [][]uint32, out []uint32) {
		x := make([]float64, 0, 4)
		y := make([]float64, 0, 4)
		for i := 0; i < w; i++ {
			x = append(x, toF64(ops[0][i], s))
			if len(ops) > 1 {
				y = append(y, toF64(ops[1][i], s))
			}
		}
		for i, r := range geometry(f, x, y) {
			out[i] = fromF64(r, s)
		}
	})
}

// geometry evaluates a geometric intrinsic in float64.
func geometry(f ir.Intrinsic, x, y []float64) []float64 {
	norm := func(v []float64) float64 {
		var sum float64
		for _, c := range v {
			sum += c * c
		}
		return math.Sqrt(sum)
	}
	switch f {
	case ir.Length:
		return []float64{norm(x)}
	case ir.Distance:
		d := make([]float64, len(x))
		for i := range x {
			d[i] = x[i] - y[i]
		}
		return []float64{norm(d)}
	case ir.Normalize:
		n := norm(x)
		out := make([]float64, len(x))
		for i := range x {
			out[i] = x[i] / n
		}
		return out
	case ir.Cross:
		return []float64{x[1]*y[2] - x[2]*y[1], x[2]*y[0] - x[0]*y[2], x[0]*y[1] - x[1]*y[0]}
	case ir.ReflectVector: // e - 2*dot(n, e)*n with e = x, n = y
		var d float64
		for i := range x {
			d += x[i] * y[i]
		}
		out := make([]float64, len(x))
		for i := range x {
			out[i] = x[i] - 2*d*y[i]
		}
		return out
	}
	return nil
}

// pack packs the f32 components v (as bits) into a u32, component 0 in the
// lowest bits. As WGSL defines it: clamp, multiply by 127 (255) in f32,
// round to nearest with ties to even; NaN components have no specified
// result. pack2x16float rounds each component to f16, ties to even.
func pack(f ir.Intrinsic, v []uint32) uint32 {
	var out uint32
	switch f {
	case ir.Pack2x16Float:
		return uint32(F32ToF16Bits(f32(v[0]))) | uint32(F32ToF16Bits(f32(v[1])))<<16
	case ir.Pack4x8Snorm:
		for i := 0; i < 4; i++ {
			x := math.RoundToEven(float64(float32(math.Max(-1, math.Min(1, float64(f32(v[i]))))) * 127))
			out |= uint32(uint8(int8(x))) << (8 * i)
		}
	case ir.Pack4x8Unorm:
		for i := 0; i < 4; i++ {
			x := math.RoundToEven(float64(float32(math.Max(0, math.Min(1, float64(f32(v[i]))))) * 255))
			out |= uint32(uint8(x)) << (8 * i)
		}
	}
	return out
}

// unpack writes the f32 components packed in u (component 0 in the lowest
// bits) to out.
func unpack(f ir.Intrinsic, u uint32, out []uint32) {
	switch f {
	case ir.Unpack2x16Float:
		out[0] = b32(h16(u & 0xffff))
		out[1] = b32(h16(u >> 16))
	case ir.Unpack4x8Snorm:
		for i := 0; i < 4; i++ {
			b := float64(int8(u >> (8 * i)))
			out[i] = b32(float32(math.Max(b/127, -1)))
		}
	case ir.Unpack4x8Unorm:
		for i := 0; i < 4; i++ {
			out[i] = b32(float32(float64(uint8(u>>(8*i))) / 255))
		}
	}
}

// bitField compiles extractBits and insertBits with WGSL's semantics: the
// offset is clamped to 32 and the count to the bits left above it; a count
// of 0 extracts 0 and inserts nothing; extractBits on i32 sign-extends
// from the field's top bit.
func (c *compiler) bitField(f ir.Intrinsic, s ir.Scalar, w int, args []exprFn) exprFn {
	return c.lanes(args, func(ops [][]uint32, out []uint32) {
		n := len(ops)
		o := min(ops[n-2][0], 32)
		cnt := min(ops[n-1][0], 32-o)
		for i := 0; i < w; i++ {
			if f == ir.ExtractBits {
				out[i] = extractBits(ops[0][i], o, cnt, s == ir.I32)
			} else {
				out[i] = insertBits(ops[0][i], ops[1][i], o, cnt)
			}
		}
	})
}

func extractBits(e, o, c uint32, signed bool) uint32 {
	if c == 0 {
		return 0
	}
	x := uint64(e) << (64 - o - c) // the field's top bit at bit 63
	if signed {
		return uint32(uint64(int64(x) >> (64 - c)))
	}
	return uint32(x >> (64 - c))
}

func insertBits(e, nb, o, c uint32) uint32 {
	mask := uint32((uint64(1)<<c - 1) << o)
	return e&^mask | nb<<o&mask
}
