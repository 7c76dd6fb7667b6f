package spirv

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// This file lowers expressions: the dispatcher, literals, arithmetic with
// the guards ir/doc.go's semantics need (integer division and remainder by
// zero and of MIN by -1, shift amounts modulo 32, saturating float to
// integer conversion), comparisons, short-circuit logic, conversions,
// vector construction, bitcasts and swizzles.

// expr evaluates e into an id.
func (f *fn) expr(e ir.Expr) uint32 {
	switch e := e.(type) {
	case *ir.Lit:
		return f.constOf(e.Ty, e.Val)
	case *ir.Ident:
		return f.ident(e)
	case *ir.BuiltinValue:
		return f.loadPtr(f.tid(e.Type()), f.builtin(e.Kind))
	case *ir.Unary:
		if v, ok := f.coopExpr(e); ok {
			return v
		}
		return f.unary(e)
	case *ir.Binary:
		if v, ok := f.coopExpr(e); ok {
			return v
		}
		return f.binary(e)
	case *ir.CoopMake, *ir.CoopLoad, *ir.CoopMulAdd, *ir.CoopLength:
		v, _ := f.coopExpr(e)
		return v
	case *ir.Call:
		return f.call(e)
	case *ir.Convert:
		return f.convert(f.expr(e.X), e.X.Type(), e.To)
	case *ir.Construct:
		return f.construct(e)
	case *ir.Bitcast:
		return f.bitcast(e)
	case *ir.Index:
		if p, ok := f.placeOf(e); ok {
			return f.load(p)
		}
		return f.indexValue(e)
	case *ir.Swizzle:
		if len(e.Comps) == 1 {
			if p, ok := f.placeOf(e); ok {
				return f.load(p)
			}
		}
		return f.swizzleValue(f.expr(e.X), e.X.Type().(ir.Vector), e.Comps)
	case *ir.Len:
		return f.length(e)
	case *ir.FnCall:
		return f.fnCall(e)
	case *ir.Field:
		if p, ok := f.placeOf(e); ok {
			return f.load(p)
		}
		return f.fieldValue(e)
	case *ir.StructLit:
		return f.structLit(e)
	case *ir.ArrayLit:
		return f.arrayLit(e)
	case nil:
		fail(errorf("spirv: missing expression"))
	}
	fail(ir.Errorf(e.Position(), "spirv: unexpected expression %T", e))
	return 0
}

// tid is the id of a value type (arrays without explicit layout).
func (f *fn) tid(t ir.Type) uint32 { return f.typeID(t, false) }

// boolType is bool, or a bool vector of t's width.
func (f *fn) boolType(t ir.Type) uint32 { return f.vecOf(f.tBool(), ir.Width(t)) }

// op1 .. op3 write a value instruction and return its result.
func (f *fn) op1(o op, typ, a uint32) uint32 {
	f.live("a value instruction")
	r := f.builder.id()
	f.body.inst(o, typ, r, a)
	f.markPrecise(o, r)
	return r
}

func (f *fn) op2(o op, typ, a, b uint32) uint32 {
	f.live("a value instruction")
	r := f.builder.id()
	f.body.inst(o, typ, r, a, b)
	f.markPrecise(o, r)
	return r
}

func (f *fn) op3(o op, typ, a, b, c uint32) uint32 {
	f.live("a value instruction")
	r := f.builder.id()
	f.body.inst(o, typ, r, a, b, c)
	f.markPrecise(o, r)
	return r
}

// splat widens scalar v of type t to n components (n > 1 and t scalar);
// otherwise it returns v.
func (f *fn) splat(v uint32, t ir.Type, n int) uint32 {
	s, ok := t.(ir.Scalar)
	if !ok || n <= 1 {
		return v
	}
	parts := make([]uint32, n)
	for i := range parts {
		parts[i] = v
	}
	return f.compose(f.tid(ir.Vec(s, n)), parts...)
}

func (f *fn) unary(e *ir.Unary) uint32 {
	x := f.expr(e.X)
	t := f.tid(e.Ty)
	switch e.Op {
	case ir.OpNeg:
		if ir.ElemScalar(e.Ty).IsFloat() {
			return f.op1(opFNegate, t, x)
		}
		return f.op1(opSNegate, t, x) // two's complement: wraps
	case ir.OpNot:
		return f.op1(opLogicalNot, t, x)
	case ir.OpBitNot:
		return f.op1(opNot, t, x)
	}
	fail(ir.Errorf(e.Pos, "spirv: unknown unary operator %v", e.Op))
	return 0
}

func (f *fn) binary(e *ir.Binary) uint32 {
	if e.Op.IsLogical() {
		return f.logical(e)
	}
	x := f.expr(e.X)
	y := f.expr(e.Y)
	if v, ok := ir.ConstValue(e); ok && !e.Op.IsComparison() && ir.ElemScalar(e.Ty).IsInt() {
		// Integer arithmetic on constants (BM * BK / (TS * TS) is common
		// in kernels) is folded by ir's rules, which the emitted code
		// would follow; the operands stay declared as before.
		return f.constOf(e.Ty, v)
	}
	return f.binop(e.Op, x, e.X.Type(), y, e.Y, e.Ty)
}

// binop applies a non-logical binary operator; xt and yv.Type() are the
// operand types, rt the result type (a scalar operand is splatted to a
// vector rt); yv is the IR of y, which tells whether y is a known constant.
func (f *fn) binop(o ir.BinaryOp, x uint32, xt ir.Type, y uint32, yv ir.Expr, rt ir.Type) uint32 {
	yt := yv.Type()
	if o.IsComparison() {
		return f.compare(o, x, y, xt)
	}
	n := ir.Width(rt)
	x = f.splat(x, xt, n)
	if o.IsShift() {
		return f.shift(o, x, f.splat(y, yt, n), rt)
	}
	y = f.splat(y, yt, n)
	t := f.tid(rt)
	s := ir.ElemScalar(rt)
	fl := s.IsFloat()
	pick := func(fo, io op) op {
		if fl {
			return fo
		}
		return io
	}
	switch o {
	case ir.OpAdd:
		return f.op2(pick(opFAdd, opIAdd), t, x, y)
	case ir.OpSub:
		return f.op2(pick(opFSub, opISub), t, x, y)
	case ir.OpMul:
		return f.op2(pick(opFMul, opIMul), t, x, y)
	case ir.OpDiv:
		if fl {
			return f.op2(opFDiv, t, x, y)
		}
		return f.intDivRem(o, x, y, yv, rt)
	case ir.OpRem:
		if fl {
			return f.op2(opFRem, t, x, y)
		}
		return f.intDivRem(o, x, y, yv, rt)
	case ir.OpAnd:
		return f.op2(opBitwiseAnd, t, x, y)
	case ir.OpOr:
		return f.op2(opBitwiseOr, t, x, y)
	case ir.OpXor:
		return f.op2(opBitwiseXor, t, x, y)
	}
	fail(errorf("spirv: unknown binary operator %v", o))
	return 0
}

// intDivRem lowers integer / and %. SPIR-V leaves division by zero and
// MIN / -1 undefined, so the divisor is replaced by 1 in those cases:
// x / 0 == x, x % 0 == 0, MIN / -1 == MIN, MIN % -1 == 0, as ir/doc.go says.
func (f *fn) intDivRem(o ir.BinaryOp, x, y uint32, yv ir.Expr, t ir.Type) uint32 {
	s := ir.ElemScalar(t)
	if o == ir.OpRem && s == ir.I32 {
		return f.signedRem(x, y, t)
	}
	bt := f.boolType(t)
	tt := f.tid(t)
	if c, ok := ir.ConstValue(yv); ok && c.Int != 0 && !(s == ir.I32 && c.Int == -1) {
		// A constant divisor that is neither 0 nor -1 needs no guard.
		return f.op2(divRemOp(o, s), tt, x, y)
	}
	bad := f.op2(opIEqual, bt, y, f.constInt(t, 0))
	if s == ir.I32 {
		isMin := f.op2(opIEqual, bt, x, f.constInt(t, math.MinInt32))
		isNeg1 := f.op2(opIEqual, bt, y, f.constInt(t, -1))
		bad = f.op2(opLogicalOr, bt, bad, f.op2(opLogicalAnd, bt, isMin, isNeg1))
	}
	safe := f.op3(opSelect, tt, bad, f.constInt(t, 1), y)
	return f.op2(divRemOp(o, s), tt, x, safe)
}

// signedRem lowers i32 % without OpSRem: |x| % |y| in u32 (where |MIN| is
// 2^31, exact), with the sign of x. NVIDIA's driver (580.159, H200) gets
// OpSRem wrong for some negative operands behind the zero/MIN guards that
// lavapipe computes right; the unsigned form needs only the zero guard
// (MIN % -1 is 2^31 % 1 == 0) and runs the same everywhere.
func (f *fn) signedRem(x, y uint32, t ir.Type) uint32 {
	tt, bt := f.tid(t), f.boolType(t)
	ut := ir.WithElem(t, ir.U32)
	utt := f.tid(ut)
	abs := func(v uint32) (uint32, uint32) {
		neg := f.op2(opSLessThan, bt, v, f.constInt(t, 0))
		mag := f.op3(opSelect, tt, neg, f.op1(opSNegate, tt, v), v)
		return f.op1(opBitcast, utt, mag), neg
	}
	ax, xneg := abs(x)
	ay, _ := abs(y)
	zero := f.op2(opIEqual, bt, ay, f.constInt(ut, 0))
	safe := f.op3(opSelect, utt, zero, f.constInt(ut, 1), ay)
	r := f.op1(opBitcast, tt, f.op2(opUMod, utt, ax, safe))
	return f.op3(opSelect, tt, xneg, f.op1(opSNegate, tt, r), r)
}

// divRemOp is the SPIR-V opcode of integer / or % on s; the signed
// remainder takes the sign of the dividend, like Go and WGSL.
func divRemOp(o ir.BinaryOp, s ir.Scalar) op {
	switch {
	case o == ir.OpDiv && s == ir.I32:
		return opSDiv
	case o == ir.OpDiv:
		return opUDiv
	case s == ir.I32:
		return opSRem
	}
	return opUMod
}

// shift lowers << and >>: SPIR-V leaves shifts by the bit width or more
// undefined, so the amount is masked to its low 5 bits (amount mod 32).
func (f *fn) shift(o ir.BinaryOp, x, amount uint32, t ir.Type) uint32 {
	ut := ir.WithElem(t, ir.U32)
	masked := f.op2(opBitwiseAnd, f.tid(ut), amount, f.constInt(ut, 31))
	tt := f.tid(t)
	switch {
	case o == ir.OpShl:
		return f.op2(opShiftLeftLogical, tt, x, masked)
	case ir.ElemScalar(t) == ir.I32:
		return f.op2(opShiftRightArithmetic, tt, x, masked)
	}
	return f.op2(opShiftRightLogical, tt, x, masked)
}

// compare lowers == != < <= > >= on operands of type t. Float comparisons
// are ordered except !=, which is true when either side is NaN.
func (f *fn) compare(o ir.BinaryOp, x, y uint32, t ir.Type) uint32 {
	s := ir.ElemScalar(t)
	var code op
	switch {
	case s == ir.Bool:
		code = map[ir.BinaryOp]op{ir.OpEq: opLogicalEqual, ir.OpNe: opLogicalNotEqual}[o]
	case s.IsFloat():
		code = [...]op{ir.OpEq: opFOrdEqual, ir.OpNe: opFUnordNotEqual, ir.OpLt: opFOrdLessThan,
			ir.OpLe: opFOrdLessThanEqual, ir.OpGt: opFOrdGreaterThan, ir.OpGe: opFOrdGreaterThanEqual}[o]
	case s == ir.I32:
		code = [...]op{ir.OpEq: opIEqual, ir.OpNe: opINotEqual, ir.OpLt: opSLessThan,
			ir.OpLe: opSLessThanEqual, ir.OpGt: opSGreaterThan, ir.OpGe: opSGreaterThanEqual}[o]
	default:
		code = [...]op{ir.OpEq: opIEqual, ir.OpNe: opINotEqual, ir.OpLt: opULessThan,
			ir.OpLe: opULessThanEqual, ir.OpGt: opUGreaterThan, ir.OpGe: opUGreaterThanEqual}[o]
	}
	if code == 0 {
		fail(errorf("spirv: operator %v on %v", o, t))
	}
	return f.op2(code, f.boolType(t), x, y)
}

// logical lowers && and ||. When the right operand may trap or has an
// effect (it indexes memory or calls an intrinsic) it is evaluated only
// when needed, in a selection construct joined by OpPhi; otherwise both
// sides are evaluated and combined with OpLogicalAnd/OpLogicalOr.
func (f *fn) logical(e *ir.Binary) uint32 {
	x := f.expr(e.X)
	code := opLogicalAnd
	if e.Op == ir.OpLogOr {
		code = opLogicalOr
	}
	if cheap(e.Y) {
		return f.op2(code, f.tBool(), x, f.expr(e.Y))
	}
	start := f.cur
	rhs, merge := f.builder.id(), f.builder.id()
	f.selectionMerge(merge)
	if e.Op == ir.OpLogAnd {
		f.branchCond(x, rhs, merge)
	} else {
		f.branchCond(x, merge, rhs)
	}
	line := f.line
	f.label(rhs, false)
	y := f.expr(e.Y)
	end := f.cur
	f.jump(merge)
	f.label(merge, true)
	r := f.phi(f.tBool(), x, start, y, end)
	if line.IsValid() && !f.opts.NoDebugInfo {
		f.writeLine(line)
	}
	return r
}

// cheap reports whether e neither reads memory through an index nor calls
// an intrinsic, so evaluating it unconditionally is safe.
func cheap(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Lit, *ir.Ident, *ir.BuiltinValue, *ir.Len:
		return true
	case *ir.Unary:
		return cheap(e.X)
	case *ir.Binary:
		return cheap(e.X) && cheap(e.Y)
	case *ir.Convert:
		return cheap(e.X)
	case *ir.Bitcast:
		return cheap(e.X)
	case *ir.Swizzle:
		return cheap(e.X)
	case *ir.Field:
		return cheap(e.X)
	case *ir.Construct:
		for _, a := range e.Args {
			if !cheap(a) {
				return false
			}
		}
		return true
	}
	return false
}

// convert converts v from type from to the scalar type (or same-width
// vector of) to, componentwise, with ir/doc.go's semantics.
func (f *fn) convert(v uint32, from ir.Type, to ir.Scalar) uint32 {
	fs := ir.ElemScalar(from)
	n := ir.Width(from)
	tt := ir.Type(to)
	if n > 1 {
		tt = ir.Vec(to, n)
	}
	if fs == to {
		return v
	}
	t := f.tid(tt)
	switch {
	case to == ir.Bool && fs.IsFloat():
		return f.op2(opFUnordNotEqual, t, v, f.constFloat(from, 0))
	case to == ir.Bool:
		return f.op2(opINotEqual, t, v, f.constInt(from, 0))
	case fs == ir.Bool:
		return f.op3(opSelect, t, v, f.constOf(tt, ir.IntVal(1)), f.constOf(tt, ir.IntVal(0)))
	case fs.Is8Bit() || to.Is8Bit(): // widen by the source's signedness, or truncate
		if fs == ir.I8 || fs == ir.I32 {
			return f.op1(opSConvert, t, v)
		}
		return f.op1(opUConvert, t, v)
	case fs.IsInt() && to.IsInt():
		return f.op1(opBitcast, t, v)
	case fs == ir.I32:
		return f.op1(opConvertSToF, t, v)
	case fs == ir.U32:
		return f.op1(opConvertUToF, t, v)
	case to == ir.BF16:
		return f.op1(opFConvert, t, f.roundToBF16(v, from))
	case to.IsFloat():
		return f.op1(opFConvert, t, v)
	}
	return f.floatToInt(v, from, tt)
}

// roundToBF16 rounds the f32 v to the nearest bfloat16 value, ties to
// even, as an f32 (so the OpFConvert after it is exact). Vulkan leaves the
// rounding of an inexact OpFConvert to the implementation, and the
// FPRoundingMode decoration that could pin it is valid in shaders only on
// conversions to 16-bit floats stored to 16-bit storage (not on bf16, not on
// every use); NVIDIA's driver rounds f32 -> bf16 toward zero (H200,
// 2026-12-01). So kc rounds in integers, as the interpreter does:
// bits + 0x7fff + (bit 16), low half cleared. A carry into the exponent
// gives the next binade or +-Inf, which is the right rounding; NaN (whose
// sum could carry into Inf or wrap) is passed through unchanged.
func (f *fn) roundToBF16(v uint32, from ir.Type) uint32 {
	u := ir.Type(ir.U32)
	if n := ir.Width(from); n > 1 {
		u = ir.Vec(ir.U32, n)
	}
	ut, ft := f.tid(u), f.tid(from)
	bits := f.op1(opBitcast, ut, v)
	lsb := f.op2(opBitwiseAnd, ut, f.op2(opShiftRightLogical, ut, bits, f.constInt(u, 16)), f.constInt(u, 1))
	sum := f.op2(opIAdd, ut, f.op2(opIAdd, ut, bits, f.constInt(u, 0x7fff)), lsb)
	r := f.op1(opBitcast, ft, f.op2(opBitwiseAnd, ut, sum, f.constInt(u, 0xffff0000)))
	return f.op3(opSelect, ft, f.op1(opIsNan, f.boolType(from), v), v, r)
}

// floatToInt converts with truncation toward zero, saturating at the
// integer type's range (to its MIN and MAX, as the reference interpreter
// does), NaN giving 0. SPIR-V leaves out-of-range conversions undefined, so
// the value is first clamped to the floats inside the range: [-2^31,
// 2^31-128] for f32 to i32, [0, 2^32-256] for f32 to u32, [-65504, 65504]
// or [0, 65504] from f16. Values above the clamp's upper bound (2^31 and
// more, +Inf) select MAX; f16 -Inf selects i32 MIN; NaN selects 0.
func (f *fn) floatToInt(v uint32, from, to ir.Type) uint32 {
	fs := ir.ElemScalar(from)
	signed := ir.ElemScalar(to) == ir.I32
	var lo, hi float64
	var tmax int64 = math.MaxUint32
	if signed {
		tmax = math.MaxInt32
	}
	switch {
	case fs == ir.F16 && signed:
		lo, hi = -65504, 65504
	case fs == ir.F16:
		lo, hi = 0, 65504
	case signed:
		lo, hi = -2147483648, 2147483520
	default:
		lo, hi = 0, 4294967040
	}
	ft := f.tid(from)
	bt := f.boolType(from)
	loC, hiC := f.constFloat(from, lo), f.constFloat(from, hi)
	clamped := f.extInst(ft, glslFClamp, v, loC, hiC)
	code := opConvertFToU
	if signed {
		code = opConvertFToS
	}
	tt := f.tid(to)
	r := f.op1(code, tt, clamped)
	r = f.op3(opSelect, tt, f.op2(opFOrdGreaterThan, bt, v, hiC), f.constInt(to, tmax), r)
	if fs == ir.F16 && signed {
		r = f.op3(opSelect, tt, f.op2(opFOrdLessThan, bt, v, loC), f.constInt(to, math.MinInt32), r)
	}
	nan := f.op1(opIsNan, bt, v)
	return f.op3(opSelect, tt, nan, f.constInt(to, 0), r)
}

func (f *fn) construct(e *ir.Construct) uint32 {
	if len(e.Args) == 1 {
		at := e.Args[0].Type()
		v := f.expr(e.Args[0])
		if _, ok := at.(ir.Scalar); ok {
			return f.splat(f.convert(v, at, e.To.Elem), e.To.Elem, e.To.N)
		}
		if ir.Width(at) == e.To.N {
			return f.convert(v, at, e.To.Elem)
		}
	}
	parts := make([]uint32, len(e.Args))
	for i, a := range e.Args {
		parts[i] = f.convert(f.expr(a), a.Type(), e.To.Elem)
	}
	return f.compose(f.tid(e.To), parts...)
}

func (f *fn) bitcast(e *ir.Bitcast) uint32 {
	v := f.expr(e.X)
	if ir.Identical(e.X.Type(), e.To) {
		return v
	}
	return f.op1(opBitcast, f.tid(e.To), v)
}

// swizzleValue selects components of vector value v.
func (f *fn) swizzleValue(v uint32, vt ir.Vector, comps string) uint32 {
	if len(comps) == 1 {
		return f.extract(f.tid(vt.Elem), v, uint32(compIndex(comps[0])))
	}
	sel := make([]uint32, len(comps))
	for i := range sel {
		sel[i] = uint32(compIndex(comps[i]))
	}
	return f.shuffle(f.tid(ir.Vec(vt.Elem, len(comps))), v, v, sel...)
}
