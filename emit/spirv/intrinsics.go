package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers calls of intrinsics: the dispatcher, and the math and
// integer-bit intrinsics through GLSL.std.450, OpDot, OpBitCount,
// OpBitReverse and OpSelect. Atomics and subgroup operations have their own
// files.

// call evaluates an intrinsic call; for atomicStore, which has no value, it
// returns 0.
func (f *fn) call(e *ir.Call) uint32 {
	switch {
	case e.Func.IsAtomic():
		return f.atomic(e)
	case e.Func.IsSubgroup():
		return f.subgroup(e)
	}
	args := make([]uint32, len(e.Args))
	for i, a := range e.Args {
		args[i] = f.expr(a)
	}
	switch e.Func {
	case ir.Select:
		return f.selectCall(e, args)
	case ir.Dot:
		return f.dot(e, args)
	case ir.CountOneBits:
		return f.op1(opBitCount, f.tid(e.Ty), args[0])
	case ir.ReverseBits:
		return f.op1(opBitReverse, f.tid(e.Ty), args[0])
	case ir.Abs:
		if ir.ElemScalar(e.Ty) == ir.U32 { // abs of an unsigned value is the value
			return args[0]
		}
	case ir.Mix:
		n := ir.Width(e.Ty)
		args[2] = f.splat(args[2], e.Args[2].Type(), n)
	case ir.ExtractBits, ir.InsertBits:
		return f.bitField(e, args)
	case ir.Dot4I8Packed, ir.Dot4U8Packed:
		return f.dot4Packed(e, args)
	case ir.All, ir.Any:
		if _, isVec := e.Args[0].Type().(ir.Vector); !isVec {
			return args[0] // of one bool: the bool
		}
		o := opAll
		if e.Func == ir.Any {
			o = opAny
		}
		return f.op1(o, f.tBool(), args[0])
	}
	if inst, ok := glslPack[e.Func]; ok {
		return f.extInst(f.tid(e.Ty), inst, args...)
	}
	if (e.Func == ir.Sinh || e.Func == ir.Cosh) && ir.ElemScalar(e.Ty) == ir.F16 {
		// lavapipe (Mesa 22.3) crashes on GLSL.std.450 Sinh/Cosh of f16 (a
		// null call in its JIT code, found by the corpus test
		// f16_geometry): evaluate in f32 and round, as HLSL through
		// glslang does anyway.
		wide := ir.WithElem(e.Ty, ir.F32)
		x := f.op1(opFConvert, f.tid(wide), args[0])
		inst := uint32(glslSinh)
		if e.Func == ir.Cosh {
			inst = glslCosh
		}
		return f.op1(opFConvert, f.tid(e.Ty), f.extInst(f.tid(wide), inst, x))
	}
	inst, ok := f.glslInst(e.Func, ir.ElemScalar(e.Ty))
	if !ok {
		b := f.builder
		b.unsupported(e.Pos, "intrinsic "+e.Func.String())
	}
	return f.extInst(f.tid(e.Ty), inst, args...)
}

// glslFloat maps the float intrinsics to GLSL.std.450.
var glslFloat = map[ir.Intrinsic]uint32{
	ir.Exp: glslExp, ir.Exp2: glslExp2, ir.Log: glslLog, ir.Log2: glslLog2,
	ir.Sqrt: glslSqrt, ir.InverseSqrt: glslInverseSqrt, ir.Sin: glslSin, ir.Cos: glslCos,
	ir.Tan: glslTan, ir.Tanh: glslTanh, ir.Floor: glslFloor, ir.Ceil: glslCeil,
	ir.Round: glslRoundEven, ir.Trunc: glslTrunc, ir.Fract: glslFract, ir.Pow: glslPow,
	ir.Fma: glslFma, ir.Mix: glslFMix,
	ir.Abs: glslFAbs, ir.Min: glslFMin, ir.Max: glslFMax, ir.Clamp: glslFClamp, ir.Sign: glslFSign,
	ir.Asin: glslAsin, ir.Acos: glslAcos, ir.Atan: glslAtan, ir.Atan2: glslAtan2,
	ir.Sinh: glslSinh, ir.Cosh: glslCosh, ir.Step: glslStep, ir.Smoothstep: glslSmoothStep,
	ir.Length: glslLength, ir.Distance: glslDistance, ir.Normalize: glslNormalize,
	ir.Cross: glslCross, ir.ReflectVector: glslReflect,
}

// glslPack maps the packing intrinsics, whose result type is not their
// operand's, to GLSL.std.450.
var glslPack = map[ir.Intrinsic]uint32{
	ir.Pack4x8Snorm: glslPackSnorm4x8, ir.Pack4x8Unorm: glslPackUnorm4x8, ir.Pack2x16Float: glslPackHalf2x16,
	ir.Unpack4x8Snorm: glslUnpackSnorm4x8, ir.Unpack4x8Unorm: glslUnpackUnorm4x8, ir.Unpack2x16Float: glslUnpackHalf2x16,
}

// bitField lowers extractBits and insertBits to OpBitField*. SPIR-V leaves
// offset + count > 32 undefined; kc (like WGSL) clamps: offset to 32, count
// to 32 - offset.
func (f *fn) bitField(e *ir.Call, args []uint32) uint32 {
	n := len(args)
	u32 := f.tid(ir.U32)
	b := f.builder
	off := f.extInst(u32, glslUMin, args[n-2], b.constU32(32))
	cnt := f.extInst(u32, glslUMin, args[n-1], f.op2(opISub, u32, b.constU32(32), off))
	typ := f.tid(e.Ty)
	if e.Func == ir.InsertBits {
		f.live("a value instruction")
		r := b.id()
		f.body.inst(opBitFieldInsert, typ, r, args[0], args[1], off, cnt)
		return r
	}
	o := opBitFieldUExtract
	if ir.ElemScalar(e.Ty) == ir.I32 {
		o = opBitFieldSExtract
	}
	return f.op3(o, typ, args[0], off, cnt)
}

// glslInt maps the integer intrinsics to GLSL.std.450, signed then unsigned.
var glslInt = map[ir.Intrinsic][2]uint32{
	ir.Abs: {glslSAbs, 0}, ir.Min: {glslSMin, glslUMin}, ir.Max: {glslSMax, glslUMax},
	ir.Clamp: {glslSClamp, glslUClamp}, ir.Sign: {glslSSign, 0},
	ir.FirstTrailingBit: {glslFindILsb, glslFindILsb},
	ir.FirstLeadingBit:  {glslFindSMsb, glslFindUMsb},
}

func (f *fn) glslInst(fn ir.Intrinsic, s ir.Scalar) (uint32, bool) {
	if s.IsFloat() {
		i, ok := glslFloat[fn]
		return i, ok
	}
	pair, ok := glslInt[fn]
	if !ok {
		return 0, false
	}
	if s == ir.U32 {
		return pair[1], pair[1] != 0
	}
	return pair[0], true
}

// extInst writes an OpExtInst of GLSL.std.450.
func (f *fn) extInst(typ, inst uint32, args ...uint32) uint32 {
	r := f.builder.id()
	ops := append([]uint32{typ, r, f.glsl(), inst}, args...)
	f.body.inst(opExtInst, ops...)
	return r
}

// selectCall is select(cond, a, b) = cond ? a : b. SPIR-V 1.3 needs a
// condition as wide as the values, so a scalar condition is splatted.
func (f *fn) selectCall(e *ir.Call, args []uint32) uint32 {
	n := ir.Width(e.Ty)
	cond := f.splat(args[0], e.Args[0].Type(), n)
	return f.op3(opSelect, f.tid(e.Ty), cond, args[1], args[2])
}

// dot is OpDot for floats; for integers, the sum of the componentwise
// products (wrapping), which SPIR-V 1.3 has no instruction for.
func (f *fn) dot(e *ir.Call, args []uint32) uint32 {
	vt := e.Args[0].Type().(ir.Vector)
	st := f.tid(vt.Elem)
	if vt.Elem.IsFloat() {
		return f.op2(opDot, st, args[0], args[1])
	}
	prod := f.op2(opIMul, f.tid(vt), args[0], args[1])
	var sum uint32
	for i := 0; i < vt.N; i++ {
		c := f.extract(st, prod, uint32(i))
		if i == 0 {
			sum = c
		} else {
			sum = f.op2(opIAdd, st, sum, c)
		}
	}
	return sum
}

// dot4Packed is OpSDot/OpUDot of SPV_KHR_integer_dot_product (core in
// SPIR-V 1.6) on two u32 holding four 8-bit integers each
// (PackedVectorFormat4x8Bit). A Vulkan device runs it when it reports
// shaderIntegerDotProduct (required by Vulkan 1.3).
func (f *fn) dot4Packed(e *ir.Call, args []uint32) uint32 {
	f.capability(capDotProduct)
	f.capability(capDotProductInput4x8BitPacked)
	f.exts["SPV_KHR_integer_dot_product"] = true
	o := opUDot
	if e.Func == ir.Dot4I8Packed {
		o = opSDot
	}
	f.live("a value instruction")
	r := f.builder.id()
	f.body.inst(o, f.tid(e.Ty), r, args[0], args[1], 0)
	return r
}
