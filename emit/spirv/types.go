package spirv

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// This file interns types and constants. Equal keys give one id, following
// SPIR-V's uniqueness rules: non-aggregate types and constants are unique;
// arrays with and without an ArrayStride are distinct types (explicit
// layout is only allowed in buffers), and each kernel's params block gets
// its own struct.

// tkey identifies an interned type or constant.
type tkey struct {
	kind    uint8
	a, b, c uint32
}

const (
	tkVoid uint8 = iota + 1
	tkBool
	tkInt
	tkFloat
	tkVec
	tkArr
	tkRArr
	tkBlock // the Block struct wrapping a runtime array
	tkPtr
	tkFn
	tkCASResult // the struct of an atomicCompareExchangeWeak result
	ckScalar
	ckTrue
	ckFalse
	ckNull
	ckComposite
)

func (b *builder) intern(k tkey, emit func(id uint32)) uint32 {
	if id, ok := b.types[k]; ok {
		return id
	}
	id := b.id()
	emit(id)
	b.types[k] = id
	b.named.add(id)
	return id
}

func (b *builder) tVoid() uint32 {
	return b.intern(tkey{kind: tkVoid}, func(id uint32) { b.globals.inst(opTypeVoid, id) })
}

func (b *builder) tBool() uint32 {
	return b.intern(tkey{kind: tkBool}, func(id uint32) { b.globals.inst(opTypeBool, id) })
}

func (b *builder) tInt(signed bool) uint32 {
	s := uint32(0)
	if signed {
		s = 1
	}
	return b.intern(tkey{kind: tkInt, a: 32, b: s}, func(id uint32) { b.globals.inst(opTypeInt, id, 32, s) })
}

func (b *builder) tU32() uint32 { return b.tInt(false) }

func (b *builder) tFloat(width uint32) uint32 {
	if width == 16 {
		b.capability(capFloat16)
	}
	return b.intern(tkey{kind: tkFloat, a: width}, func(id uint32) { b.globals.inst(opTypeFloat, id, width) })
}

func (b *builder) tVec(elem uint32, n int) uint32 {
	return b.intern(tkey{kind: tkVec, a: elem, b: uint32(n)}, func(id uint32) {
		b.globals.inst(opTypeVector, id, elem, uint32(n))
	})
}

func (b *builder) tPtr(sc uint32, pointee uint32) uint32 {
	return b.intern(tkey{kind: tkPtr, a: sc, b: pointee}, func(id uint32) {
		b.globals.inst(opTypePointer, id, sc, pointee)
	})
}

func (b *builder) tFn(ret uint32) uint32 {
	return b.intern(tkey{kind: tkFn, a: ret}, func(id uint32) { b.globals.inst(opTypeFunction, id, ret) })
}

// scalarType returns the id of a scalar type.
func (b *builder) scalarType(s ir.Scalar) uint32 {
	if int(s) < len(b.scalarIDs) && b.scalarIDs[s] != 0 {
		return b.scalarIDs[s]
	}
	id := b.newScalarType(s)
	if int(s) < len(b.scalarIDs) {
		b.scalarIDs[s] = id
	}
	return id
}

func (b *builder) newScalarType(s ir.Scalar) uint32 {
	switch s {
	case ir.Bool:
		return b.tBool()
	case ir.I32:
		return b.tInt(true)
	case ir.U32:
		return b.tInt(false)
	case ir.F32:
		return b.tFloat(32)
	case ir.F16:
		return b.tFloat(16)
	case ir.BF16:
		return b.tBF16()
	case ir.I8, ir.U8:
		return b.tInt8(s == ir.I8)
	}
	fail(errorf("spirv: internal error: no SPIR-V type for scalar %v", s))
	return 0
}

// typeID returns the id of t. With layout set, arrays carry an ArrayStride
// (the form used inside storage buffers); without it they carry none (the
// form used by Function and Workgroup variables and SSA values).
func (b *builder) typeID(t ir.Type, layout bool) uint32 {
	switch t := t.(type) {
	case ir.Scalar:
		return b.scalarType(t)
	case ir.Vector:
		return b.tVec(b.scalarType(t.Elem), t.N)
	case ir.Atomic:
		return b.scalarType(t.Elem)
	case *ir.Array:
		elem := b.typeID(t.Elem, layout)
		n := b.constU32(uint32(t.Len))
		stride := uint32(0)
		if layout {
			stride = uint32(ir.ElemStride(t.Elem))
		}
		return b.intern(tkey{kind: tkArr, a: elem, b: n, c: stride}, func(id uint32) {
			b.globals.inst(opTypeArray, id, elem, n)
			if layout {
				b.annots.inst(opDecorate, id, decArrayStride, stride)
			}
		})
	case ir.CompareExchangeResult:
		// struct { T old_value; bool exchanged }, only ever a value
		elem, bt := b.scalarType(t.Elem), b.tBool()
		return b.intern(tkey{kind: tkCASResult, a: elem}, func(id uint32) {
			b.globals.inst(opTypeStruct, id, elem, bt)
		})
	case *ir.Struct:
		return b.structType(t, layout)
	case ir.CoopMat:
		return b.coopType(t)
	}
	fail(errorf("spirv: internal error: no SPIR-V type for %v", t))
	return 0
}

// vecOf returns the vector type of n components of scalar type id elem, or
// elem itself when n is 1.
func (b *builder) vecOf(elem uint32, n int) uint32 {
	if n <= 1 {
		return elem
	}
	return b.tVec(elem, n)
}

// blockStruct returns the Block struct { T data[] } for buffer elements t.
func (b *builder) blockStruct(t ir.Type) uint32 {
	elem := b.typeID(t, true)
	stride := uint32(ir.ElemStride(t))
	rarr := b.intern(tkey{kind: tkRArr, a: elem, b: stride}, func(id uint32) {
		b.globals.inst(opTypeRuntimeArray, id, elem)
		b.annots.inst(opDecorate, id, decArrayStride, stride)
	})
	return b.intern(tkey{kind: tkBlock, a: rarr}, func(id uint32) {
		b.globals.inst(opTypeStruct, id, rarr)
		b.annots.inst(opDecorate, id, decBlock)
		b.annots.inst(opMemberDecorate, id, 0, decOffset, 0)
		if !b.opts.NoDebugInfo {
			b.names.instStr(opName, []uint32{id}, "buffer_"+typeName(t))
			b.names.instStr(opMemberName, []uint32{id, 0}, "data")
		}
	})
}

// typeName spells t for use in names: f32, v4f32, arr16_f32.
func typeName(t ir.Type) string {
	switch t := t.(type) {
	case ir.Vector:
		return "v" + itoa(t.N) + t.Elem.String()
	case ir.Atomic:
		return "atomic_" + t.Elem.String()
	case *ir.Array:
		return "arr" + itoa(t.Len) + "_" + typeName(t.Elem)
	}
	return t.String()
}

// Constants.

func (b *builder) constBits(typ uint32, bits uint32) uint32 {
	return b.intern(tkey{kind: ckScalar, a: typ, b: bits}, func(id uint32) {
		b.globals.inst(opConstant, typ, id, bits)
	})
}

func (b *builder) constU32(v uint32) uint32 { return b.constBits(b.tU32(), v) }
func (b *builder) constI32(v int32) uint32  { return b.constBits(b.tInt(true), uint32(v)) }

func (b *builder) constBool(v bool) uint32 {
	t := b.tBool()
	if v {
		return b.intern(tkey{kind: ckTrue}, func(id uint32) { b.globals.inst(opConstantTrue, t, id) })
	}
	return b.intern(tkey{kind: ckFalse}, func(id uint32) { b.globals.inst(opConstantFalse, t, id) })
}

func (b *builder) constNull(typ uint32) uint32 {
	return b.intern(tkey{kind: ckNull, a: typ}, func(id uint32) { b.globals.inst(opConstantNull, typ, id) })
}

// constSplat returns the vector constant of n copies of constant elem, or
// elem when n is 1.
func (b *builder) constSplat(elemType, elem uint32, n int) uint32 {
	if n <= 1 {
		return elem
	}
	vt := b.tVec(elemType, n)
	return b.intern(tkey{kind: ckComposite, a: vt, b: elem}, func(id uint32) {
		ops := []uint32{vt, id}
		for i := 0; i < n; i++ {
			ops = append(ops, elem)
		}
		b.globals.inst(opConstantComposite, ops...)
	})
}

// constScalar returns the constant of scalar type s holding v, converted
// the way an untyped constant takes its type (floats to integers truncate).
func (b *builder) constScalar(s ir.Scalar, v ir.Value) uint32 {
	switch s {
	case ir.Bool:
		switch v.Kind {
		case ir.BoolValue:
			return b.constBool(v.Bool)
		case ir.IntValue:
			return b.constBool(v.Int != 0)
		}
		return b.constBool(v.Float != 0)
	case ir.I32, ir.U32:
		var x int64
		switch v.Kind {
		case ir.IntValue:
			x = v.Int
		case ir.FloatValue:
			x = int64(v.Float)
		case ir.BoolValue:
			if v.Bool {
				x = 1
			}
		}
		return b.constBits(b.scalarType(s), uint32(x))
	case ir.F32, ir.F16, ir.BF16:
		var f float64
		switch v.Kind {
		case ir.IntValue:
			f = float64(v.Int)
		case ir.FloatValue:
			f = v.Float
		case ir.BoolValue:
			if v.Bool {
				f = 1
			}
		}
		if s == ir.F16 {
			return b.constBits(b.tFloat(16), uint32(f16bits(f)))
		}
		if s == ir.BF16 {
			// through f32, as bf16(x) converts (a zero matrix of bf16
			// needs one: OpConstant of the bfloat16 type)
			return b.constBits(b.tBF16(), uint32(ir.BF16Bits(float32(f))))
		}
		return b.constBits(b.tFloat(32), math.Float32bits(float32(f)))
	}
	fail(errorf("spirv: internal error: constant of type %v", s))
	return 0
}

// constOf returns the constant of type t (a scalar or a vector splat) with value v.
func (b *builder) constOf(t ir.Type, v ir.Value) uint32 {
	s := ir.ElemScalar(t)
	c := b.constScalar(s, v)
	return b.constSplat(b.scalarType(s), c, ir.Width(t))
}

// constInt returns integer constant v of scalar/vector type t (i32 or u32 elements).
func (b *builder) constInt(t ir.Type, v int64) uint32 { return b.constOf(t, ir.IntVal(v)) }

// constFloat returns float constant v of scalar/vector type t.
func (b *builder) constFloat(t ir.Type, v float64) uint32 { return b.constOf(t, ir.FloatVal(v)) }

// f16bits converts f to IEEE binary16, rounding to nearest even (directly
// from binary64, so there is no double rounding).
func f16bits(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b >> 52 & 0x7ff)
	mant := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff && mant != 0:
		return sign | 0x7e00
	case exp == 0x7ff:
		return sign | 0x7c00
	}
	e := exp - 1023 + 15 // the biased binary16 exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 { // subnormal or zero: units of 2^-24
		return sign | uint16(shiftRoundEven(mant|1<<52, uint(43-e)))
	}
	// A carry out of the mantissa rounds into the exponent, up to infinity.
	return sign | uint16(shiftRoundEven(uint64(e)<<52|mant, 42))
}

// shiftRoundEven is m >> s rounded to nearest, ties to even.
func shiftRoundEven(m uint64, s uint) uint64 {
	if s >= 64 {
		return 0
	}
	q := m >> s
	rem := m & (1<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}
