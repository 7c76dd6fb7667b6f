package interp

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// Fast paths: the most frequent scalar operators (f32 arithmetic and
// comparisons, integer arithmetic and comparisons) as loops without a
// function call per lane. They compute exactly what binaryFn's functions
// compute; TestFastPathsMatch checks that on random operands.

// fastBinary returns a specialised loop for the scalar operator op on
// type s, or nil.
func (c *compiler) fastBinary(op ir.BinaryOp, s ir.Scalar, x, y exprFn) exprFn {
	out := c.m.newCol()
	f32 := math.Float32frombits
	b32 := math.Float32bits
	loop := func(body func(a, b []uint32, o int)) exprFn {
		return func(act []int32) []uint32 {
			a, b := x(act), y(act)
			for _, l := range act {
				body(a, b, int(l)*4)
			}
			return out
		}
	}
	switch s {
	case ir.F32:
		switch op {
		case ir.OpAdd:
			return func(act []int32) []uint32 {
				a, b := x(act), y(act)
				for _, l := range act {
					o := int(l) * 4
					out[o] = b32(f32(a[o]) + f32(b[o]))
				}
				return out
			}
		case ir.OpSub:
			return func(act []int32) []uint32 {
				a, b := x(act), y(act)
				for _, l := range act {
					o := int(l) * 4
					out[o] = b32(f32(a[o]) - f32(b[o]))
				}
				return out
			}
		case ir.OpMul:
			return func(act []int32) []uint32 {
				a, b := x(act), y(act)
				for _, l := range act {
					o := int(l) * 4
					out[o] = b32(f32(a[o]) * f32(b[o]))
				}
				return out
			}
		case ir.OpDiv:
			return loop(func(a, b []uint32, o int) { out[o] = b32(f32(a[o]) / f32(b[o])) })
		case ir.OpLt:
			return loop(func(a, b []uint32, o int) { out[o] = boolBits(f32(a[o]) < f32(b[o])) })
		case ir.OpGt:
			return loop(func(a, b []uint32, o int) { out[o] = boolBits(f32(a[o]) > f32(b[o])) })
		}
	case ir.U32, ir.I32:
		switch op {
		case ir.OpAdd:
			return func(act []int32) []uint32 {
				a, b := x(act), y(act)
				for _, l := range act {
					o := int(l) * 4
					out[o] = a[o] + b[o]
				}
				return out
			}
		case ir.OpSub:
			return loop(func(a, b []uint32, o int) { out[o] = a[o] - b[o] })
		case ir.OpMul:
			return func(act []int32) []uint32 {
				a, b := x(act), y(act)
				for _, l := range act {
					o := int(l) * 4
					out[o] = a[o] * b[o]
				}
				return out
			}
		case ir.OpEq:
			return loop(func(a, b []uint32, o int) { out[o] = boolBits(a[o] == b[o]) })
		case ir.OpNe:
			return loop(func(a, b []uint32, o int) { out[o] = boolBits(a[o] != b[o]) })
		}
		if s == ir.U32 {
			switch op {
			case ir.OpLt:
				return func(act []int32) []uint32 {
					a, b := x(act), y(act)
					for _, l := range act {
						o := int(l) * 4
						out[o] = boolBits(a[o] < b[o])
					}
					return out
				}
			case ir.OpGe:
				return loop(func(a, b []uint32, o int) { out[o] = boolBits(a[o] >= b[o]) })
			}
		}
	}
	return nil
}
