package wgsl

import (
	"strconv"

	"github.com/kcgo/kc/ir"
)

// This file lowers cooperative matrices (ir/coopmat.go) to one of the two
// WGSL extensions that carry them; Options.CoopMat picks which.
//
// wgpu's `enable wgpu_cooperative_matrix;` (naga 30):
//   - coopmat<T, N, N, a|b|acc> is coop_matNxN<T, A|B|C>, N 8 or 16 only
//     (naga's CooperativeSize); T is f16, f32, i32 or u32.
//   - coopLoadT / coopStoreT are row-major and coopLoad / coopStore
//     column-major: naga's SPIR-V writer gives the T forms RowMajorKHR (0)
//     and the plain ones ColumnMajorKHR (1), checked 2026-12-01 with
//     naga-wasm 30.1.0's writeSpirv. They take a pointer to the first
//     element, &buf[offset], and the stride in elements.
//   - coopMultiplyAdd(a, b, c); + and - of two matrices; * by a scalar
//     (either side), so -m is m * -1 (exact for floats, wrapping for
//     integers, as negation is).
//   - Missing, and refused with an *ir.UnsupportedError: a fill other than
//     zero (the constructor takes no argument), element-type conversion,
//     * and / of two matrices, / by a scalar, coopLength. naga's role
//     enumerants A, B and C are predeclared: kc names A, B, C are renamed.
//
// Chromium's `enable chromium_experimental_subgroup_matrix;` (Tint):
//   - coopmat<T, R, C, a|b|acc> is subgroup_matrix_left|right|result<T, C, R>
//     (columns first); T is f16, f32, i32 or u32.
//   - subgroupMatrixLoad<M, row_major|col_major>(&array, offset, stride)
//     and subgroupMatrixStore<layout>(&array, offset, m, stride): the
//     pointer is to the whole array, offset and stride are u32 counts of
//     elements. (Tint through npm webgpu 0.6.2 warns that the older form
//     with a col_major bool argument is deprecated.)
//   - subgroupMatrixMultiplyAccumulate(a, b, c); M(x) fills, M() is zero;
//     subgroupMatrixScalarMultiply(m, s) scales (and negates, with -1).
//   - Missing, and refused: element-type conversion, + - * / of two
//     matrices, / by a scalar, coopLength.
//   - Tint requires subgroup-uniform operands by a workgroup-wide analysis;
//     kc allows operands that differ between subgroups (local_index / 32)
//     and checks the rest itself (docs/language.md § 8.3), so modules turn
//     the chromium.subgroup_matrix_uniformity diagnostic off.
//
// Neither dialect has element access, bf16 or 8-bit matrices (WGSL has no
// i8/u8 buffers); those were refused before emission (supported).

// CoopMatDialect picks the WGSL extension that carries cooperative matrices.
type CoopMatDialect uint8

const (
	// CoopMatWGPU is wgpu's `enable wgpu_cooperative_matrix;` (naga), the
	// default.
	CoopMatWGPU CoopMatDialect = iota
	// CoopMatChromium is Chromium's `enable
	// chromium_experimental_subgroup_matrix;` (Tint, Dawn).
	CoopMatChromium
)

func (d CoopMatDialect) String() string {
	if d == CoopMatChromium {
		return "chromium"
	}
	return "wgpu"
}

// CoopMatDialectByName maps "wgpu" and "chromium" (kc compile -coopmat) to
// a dialect.
func CoopMatDialectByName(name string) (CoopMatDialect, bool) {
	switch name {
	case "wgpu":
		return CoopMatWGPU, true
	case "chromium":
		return CoopMatChromium, true
	}
	return 0, false
}

// enable is the dialect's enable directive.
func (d CoopMatDialect) enable() string {
	if d == CoopMatChromium {
		return "enable chromium_experimental_subgroup_matrix;"
	}
	return "enable wgpu_cooperative_matrix;"
}

// coopTarget names the target in refusals: wgsl (-coopmat wgpu).
func (e *emitter) coopTarget() string {
	return Target + " (-coopmat " + e.opts.CoopMat.String() + ")"
}

// coopRefuse records that the dialect cannot express feature at pos.
func (e *emitter) coopRefuse(pos ir.Pos, feature string) {
	e.fail(&ir.UnsupportedError{Pos: pos, Target: e.coopTarget(), Feature: feature})
}

// coopTypeName spells a cooperative-matrix type; pos is where it is used.
func (e *emitter) coopTypeName(t ir.CoopMat, pos ir.Pos) string {
	switch t.Elem {
	case ir.F16, ir.F32, ir.I32, ir.U32:
	default:
		e.coopRefuse(pos, t.Elem.String()+" cooperative matrices")
		return "invalid"
	}
	elem := t.Elem.String()
	if e.opts.CoopMat == CoopMatChromium {
		kind := [...]string{ir.UseA: "left", ir.UseB: "right", ir.UseAccumulator: "result"}[t.Use]
		return "subgroup_matrix_" + kind + "<" + elem + ", " + strconv.Itoa(t.Cols) + ", " + strconv.Itoa(t.Rows) + ">"
	}
	if t.Rows != t.Cols || (t.Rows != 8 && t.Rows != 16) {
		e.coopRefuse(pos, "cooperative matrix shape "+strconv.Itoa(t.Rows)+"x"+strconv.Itoa(t.Cols)+" (wgpu_cooperative_matrix has 8x8 and 16x16 only)")
		return "invalid"
	}
	role := [...]string{ir.UseA: "A", ir.UseB: "B", ir.UseAccumulator: "C"}[t.Use]
	n := strconv.Itoa(t.Rows)
	return "coop_mat" + n + "x" + n + "<" + elem + ", " + role + ">"
}

// coopExpr lowers the cooperative-matrix expressions and arithmetic on
// matrices; ok is false for other expressions.
func (f *fn) coopExpr(x ir.Expr) (v wx, ok bool) {
	switch x := x.(type) {
	case *ir.CoopMake:
		return f.coopMake(x), true
	case *ir.CoopLoad:
		return f.coopLoad(x), true
	case *ir.CoopMulAdd:
		name := "coopMultiplyAdd"
		if f.e.opts.CoopMat == CoopMatChromium {
			name = "subgroupMatrixMultiplyAccumulate"
		}
		return prim(name + "(" + joinArgs([]wx{f.expr(x.A), f.expr(x.B), f.expr(x.C)}) + ")"), true
	case *ir.CoopLength:
		f.e.coopRefuse(x.Pos, "coopLength (the extension does not expose the elements an invocation holds)")
		return prim("0u"), true
	case *ir.Binary:
		if m, isMat := x.Ty.(ir.CoopMat); isMat {
			return f.coopBinary(x.Pos, x.Op, x.X, x.Y, m), true
		}
	case *ir.Unary:
		if m, isMat := x.Ty.(ir.CoopMat); isMat && x.Op == ir.OpNeg {
			return f.coopScale(f.expr(x.X), f.lit(ir.IntVal(-1), m.Elem), m), true
		}
	}
	return wx{}, false
}

// coopMake spells a fill or refuses a conversion.
func (f *fn) coopMake(x *ir.CoopMake) wx {
	t := f.e.coopTypeName(x.To, x.Pos)
	if x.IsConversion() {
		f.e.coopRefuse(x.Pos, "cooperative-matrix element-type conversion")
		return prim(t + "()")
	}
	if z, ok := f.constZero(x.X); ok && z && !effects(x.X) {
		return prim(t + "()")
	}
	if f.e.opts.CoopMat == CoopMatWGPU {
		f.e.coopRefuse(x.Pos, "cooperative-matrix fill with a value other than 0 (wgpu_cooperative_matrix constructs the zero matrix only)")
		return prim(t + "()")
	}
	return prim(t + "(" + f.expr(x.X).s + ")")
}

// coopLoad spells a load.
func (f *fn) coopLoad(x *ir.CoopLoad) wx {
	t := f.e.coopTypeName(x.To, x.Pos)
	if f.e.opts.CoopMat == CoopMatChromium {
		return prim("subgroupMatrixLoad<" + t + ", " + x.Layout.String() + ">(&" + f.expr(x.Src).s + ", " +
			joinArgs([]wx{f.asU32(x.Offset), f.asU32(x.Stride)}) + ")")
	}
	name := "coopLoad"
	if x.Layout == ir.RowMajor {
		name = "coopLoadT"
	}
	return prim(name + "<" + t + ">(&" + f.expr(x.Src).s + "[" + f.expr(x.Offset).s + "], " + f.expr(x.Stride).s + ")")
}

// coopStore writes the statement coopStore.
func (f *fn) coopStore(s *ir.CoopStore) {
	m := f.expr(s.M)
	if f.e.opts.CoopMat == CoopMatChromium {
		f.line(s.Pos, "subgroupMatrixStore<", s.Layout.String(), ">(&", f.expr(s.Dst).s, ", ",
			joinArgs([]wx{f.asU32(s.Offset), m, f.asU32(s.Stride)}), ");")
		return
	}
	name := "coopStore"
	if s.Layout == ir.RowMajor {
		name = "coopStoreT"
	}
	f.line(s.Pos, name, "(", m.s, ", &", f.expr(s.Dst).s, "[", f.expr(s.Offset).s, "], ", f.expr(s.Stride).s, ");")
}

// asU32 spells an i32 or u32 offset or stride as a u32 (Chromium's
// builtins take u32 only; the checker keeps them non-negative in use).
func (f *fn) asU32(x ir.Expr) wx {
	if x.Type() == ir.Type(ir.U32) {
		return f.expr(x)
	}
	return prim("u32(" + f.expr(x).s + ")")
}

// coopBinary spells x op y on matrices of type m, or refuses what the
// dialect lacks.
func (f *fn) coopBinary(pos ir.Pos, op ir.BinaryOp, x, y ir.Expr, m ir.CoopMat) wx {
	xMat, yMat := ir.IsCoopMat(x.Type()), ir.IsCoopMat(y.Type())
	both := xMat && yMat
	chromium := f.e.opts.CoopMat == CoopMatChromium
	switch {
	case op == ir.OpMul && !both: // scaling, the scalar on either side
		if xMat {
			return f.coopScale(f.expr(x), f.expr(y), m)
		}
		return f.coopScale(f.expr(y), f.expr(x), m)
	case both && (op == ir.OpAdd || op == ir.OpSub) && !chromium:
		l, r := f.expr(x), f.expr(y)
		return wx{l.at(cUnary, cMul, cAdd) + " " + op.String() + " " + r.at(cUnary, cMul), cAdd}
	}
	what := "element-wise " + op.String() + " of two cooperative matrices"
	if !both {
		what = "dividing a cooperative matrix by a scalar"
	}
	f.e.coopRefuse(pos, what)
	return f.expr(x)
}

// coopScale spells m * s.
func (f *fn) coopScale(m, s wx, t ir.CoopMat) wx {
	if f.e.opts.CoopMat == CoopMatChromium {
		return prim("subgroupMatrixScalarMultiply(" + joinArgs([]wx{m, s}) + ")")
	}
	return wx{m.at(cUnary, cMul) + " * " + s.at(cUnary), cMul}
}

// coopAssign spells an assignment whose left side is a matrix: a compound
// one (acc += m) becomes acc = acc op m.
func (f *fn) coopAssign(s *ir.Assign, m ir.CoopMat) string {
	lhs := f.expr(s.LHS).s
	if s.Op == ir.OpNone {
		return lhs + " = " + f.expr(s.RHS).s
	}
	return lhs + " = " + f.coopBinary(s.Pos, s.Op, s.LHS, s.RHS, m).s
}

// coopCheck spells every matrix type kernel k and the functions it calls
// use, each at the declaration or expression that has it, so that a
// shape or element type the dialect lacks is refused with its position
// before a declaration spells the type without one.
func (e *emitter) coopCheck(k *ir.Kernel) {
	visit := func(n ir.Node) bool {
		if e.err != nil {
			return false
		}
		switch n := n.(type) {
		case *ir.Decl: // (one with an initializer is checked there)
			if m, ok := n.Ty.(ir.CoopMat); ok && n.Init == nil {
				e.coopTypeName(m, n.Pos)
			}
		case ir.Expr:
			if m, ok := n.Type().(ir.CoopMat); ok {
				e.coopTypeName(m, n.Position())
			}
		}
		return true
	}
	for _, inst := range ir.Instances(k).Instances {
		ir.Inspect(inst.Func.Body, visit)
	}
	ir.Inspect(k.Body, visit)
}
