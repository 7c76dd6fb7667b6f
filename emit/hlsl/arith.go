package hlsl

import (
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits binary operators. HLSL's own operators already have ir's
// meaning for + - * (wrapping), & | ^, comparisons, && || and float /.
// Integer / and % go through kc_div / kc_rem (x/0 == x, x%0 == 0,
// MIN/-1 == MIN, MIN%-1 == 0), float % through kc_frem (x - y*trunc(x/y),
// WGSL's definition; glslang lowers HLSL's % and fmod on floats to OpFMod,
// which floors), and shift amounts are masked with 31.

var infixOps = map[ir.BinaryOp]struct {
	text string
	prec int
}{
	ir.OpAdd: {"+", precAdd}, ir.OpSub: {"-", precAdd},
	ir.OpMul: {"*", precMul}, ir.OpDiv: {"/", precMul}, ir.OpRem: {"%", precMul},
	ir.OpAnd: {"&", precBAnd}, ir.OpOr: {"|", precBOr}, ir.OpXor: {"^", precBXor},
	ir.OpShl: {"<<", precShift}, ir.OpShr: {">>", precShift},
	ir.OpLogAnd: {"&&", precLAnd}, ir.OpLogOr: {"||", precLOr},
	ir.OpEq: {"==", precEq}, ir.OpNe: {"!=", precEq},
	ir.OpLt: {"<", precRel}, ir.OpLe: {"<=", precRel}, ir.OpGt: {">", precRel}, ir.OpGe: {">=", precRel},
}

// infix joins x op y, parenthesising operands that bind looser (or equally
// on the right, since all of these associate to the left).
func infix(op ir.BinaryOp, x, y hx) hx {
	o := infixOps[op]
	return hx{x.at(o.prec) + " " + o.text + " " + y.at(o.prec+1), o.prec}
}

// binop emits x op y for operands of types xt, yt and result type rt; yv is
// the IR of y, which tells whether y is a known constant (ir.ConstValue).
func (f *fn) binop(op ir.BinaryOp, x hx, xt ir.Type, y hx, yv ir.Expr, rt ir.Type) hx {
	yt := yv.Type()
	if _, ok := infixOps[op]; !ok {
		f.fail(unsupported(f.pos, "binary operator "+op.String()))
		return primary("0")
	}
	elem := ir.ElemScalar(xt)
	switch op {
	case ir.OpDiv, ir.OpRem:
		if op == ir.OpDiv && elem.IsFloat() {
			return infix(op, x, y)
		}
		if c, ok := constDivisor(yv); ok && (elem == ir.U32 || op == ir.OpDiv && c != -1) && c != 0 {
			// A constant divisor other than 0 (and -1 for i32) needs no
			// guard; only u32 may use % (glslang lowers i32 % to OpSMod).
			return infix(op, x, y)
		}
		t := widest(xt, yt)
		name := f.needArith(op, t)
		return primary(name + "(" + splat(x, xt, t).s + ", " + splat(y, yt, t).s + ")")
	case ir.OpShl, ir.OpShr:
		return infix(op, x, f.shiftAmount(yv, y))
	}
	return infix(op, x, y)
}

// constDivisor reports the value of a constant scalar integer divisor
// (i32 values signed).
func constDivisor(y ir.Expr) (int64, bool) {
	v, ok := ir.ConstValue(y)
	if !ok || v.Kind != ir.IntValue {
		return 0, false
	}
	if y.Type() == ir.I32 {
		return int64(int32(v.Int)), true
	}
	return v.Int, true
}

// widest returns the vector type of two operands when one is a vector.
func widest(a, b ir.Type) ir.Type {
	if _, ok := a.(ir.Vector); ok {
		return a
	}
	if _, ok := b.(ir.Vector); ok {
		return b
	}
	return a
}

// shiftAmount masks a shift amount y (IR yv) to 0..31; a constant is
// folded.
func (f *fn) shiftAmount(yv ir.Expr, y hx) hx {
	if v, ok := ir.ConstValue(yv); ok && v.Kind == ir.IntValue && ir.ElemScalar(yv.Type()) == ir.U32 {
		return primary(strconv.FormatUint(uint64(v.Int)&31, 10) + "u")
	}
	return primary("(" + y.at(precBAnd) + " & 31u)")
}

// needArith registers the division, remainder or float remainder helper
// for type t and returns its name.
func (f *fn) needArith(op ir.BinaryOp, t ir.Type) string {
	elem := ir.ElemScalar(t)
	switch {
	case elem.IsFloat():
		f.e.need("frem_"+typeName(t), func() string { return fremHelper(t) })
		return "kc_frem"
	case op == ir.OpDiv:
		f.e.need("div_"+scalarName(elem), func() string { return divHelper(elem) })
		if v, ok := t.(ir.Vector); ok {
			f.e.need("div_"+typeName(v), func() string { return componentwise("kc_div", v, v, v, 2) })
		}
		return "kc_div"
	default:
		f.e.need("rem_"+scalarName(elem), func() string { return remHelper(elem) })
		if v, ok := t.(ir.Vector); ok {
			f.e.need("rem_"+typeName(v), func() string { return componentwise("kc_rem", v, v, v, 2) })
		}
		return "kc_rem"
	}
}

// divHelper is integer division with ir's results for a zero divisor and
// for MIN / -1.
func divHelper(s ir.Scalar) string {
	if s == ir.U32 {
		return `// kc_div is ir's u32 division: x / 0 == x.
uint kc_div(uint x, uint y) {
	if (y == 0u) {
		return x;
	}
	return x / y;
}`
	}
	return `// kc_div is ir's i32 division: x / 0 == x, MIN / -1 == MIN (wrapping).
int kc_div(int x, int y) {
	if (y == 0) {
		return x;
	}
	if (y == -1) {
		return 0 - x;
	}
	return x / y;
}`
}

// remHelper is integer remainder: sign of the dividend, x % 0 == 0,
// MIN % -1 == 0. It is computed from the truncating division, whose
// meaning both compilers agree on.
func remHelper(s ir.Scalar) string {
	if s == ir.U32 {
		return `// kc_rem is ir's u32 remainder: x % 0 == 0.
uint kc_rem(uint x, uint y) {
	if (y == 0u) {
		return 0u;
	}
	return x - (x / y) * y;
}`
	}
	return `// kc_rem is ir's i32 remainder (sign of x): x % 0 == 0, MIN % -1 == 0.
int kc_rem(int x, int y) {
	if (y == 0 || y == -1) {
		return 0;
	}
	return x - (x / y) * y;
}`
}

// fremHelper is the float remainder x - y * trunc(x / y).
func fremHelper(t ir.Type) string {
	n := typeName(t)
	tr := "trunc(x / y)"
	if ir.ElemScalar(t) == ir.F16 {
		// glslang's trunc of a half gives a float, which a half
		// function may not return.
		tr = "(" + n + ")" + tr
	}
	return "// kc_frem is the float remainder x - y * trunc(x / y) (sign of x).\n" +
		n + " kc_frem(" + n + " x, " + n + " y) {\n\treturn x - y * " + tr + ";\n}"
}

// componentwise defines fn for vector type v (result type r, argument type
// a, nargs arguments) by applying the scalar overload to each component.
func componentwise(name string, r, a ir.Type, v ir.Vector, nargs int) string {
	var b strings.Builder
	args := []string{"x", "y", "z"}[:nargs]
	b.WriteString(typeName(r) + " " + name + "(")
	for i, p := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(typeName(a) + " " + p)
	}
	b.WriteString(") {\n\treturn " + typeName(r) + "(")
	for c := 0; c < v.N; c++ {
		if c > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name + "(")
		for i, p := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p + "." + string("xyzw"[c]))
		}
		b.WriteString(")")
	}
	b.WriteString(");\n}")
	return b.String()
}
