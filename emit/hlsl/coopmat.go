package hlsl

import (
	"fmt"
	"strconv"

	"github.com/kcgo/kc/ir"
)

// This file lowers cooperative matrices (ir/coopmat.go) to DXC's
// vk::khr::CooperativeMatrix templates (#include "vk/khr/cooperative_matrix.h",
// DXC's header from 2024 on; SPIR-V only). DXC compiles them with
// `-spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -HV 2021 -T cs_6_2`:
// with vulkan1.1 it stops with "CooperativeMatrix requires a minimum of
// SPIR-V 1.6". glslang cannot write SPV_KHR_cooperative_matrix from HLSL,
// so CompileSPIRV refuses such an entry under glslang (Entry.Restricted).
//
//   - coopmat<T, R, C, a|b|acc> is CooperativeMatrixA|B|Accumulator<T,
//     vk::ScopeSubgroup, R, C>; T is half, float, int or uint (HLSL has
//     no bf16 and no 8-bit scalars: refused before emission).
//   - A fill is M::Splat(x); a conversion m.cast<T>(); coopLength
//     M::GetLength().
//   - Loads and stores: M::Load<layout>(buffer, offset, stride) and
//     m.Store<layout>(buffer, offset, stride) on (RW)StructuredBuffers,
//     and through vk::GetGroupSharedAddress(array[offset]) on groupshared
//     arrays; layout is vk::CooperativeMatrixLayoutRowMajorKHR or
//     ColumnMajorKHR, stride in elements, as kc's.
//   - A multiply-add with one element type throughout is
//     vk::khr::cooperativeMatrixMultiplyAdd(a, b, c). The header has no
//     form for f16 inputs with f32 sums: kc_coopMulAdd calls the
//     header's own OpCooperativeMatrixMulAddKHR builtin with the
//     accumulator's type (operands 0: kc's integer matrices need 8-bit
//     inputs, which HLSL lacks, so every multiply-add here is a float one).
//   - + - * / of two matrices are the class's operators; m * s its
//     OpMatrixTimesScalar for floats (s * m is written m * s: IEEE
//     multiplication commutes); integer scaling and m / s multiply or
//     divide by M::Splat(s), as the SPIR-V emitter does; -m is m.negate().
//   - Element access: m[i] is m.Get(i), m[i] = x is m.Set(x, i) (an
//     OpAccessChain into the matrix variable, as the header implements
//     them); m[i] op= x is m.Set(m.Get(i) op x, i).

// coopUse names the template alias of each use.
var coopUse = [...]string{ir.UseA: "CooperativeMatrixA", ir.UseB: "CooperativeMatrixB", ir.UseAccumulator: "CooperativeMatrixAccumulator"}

// coopTypeName spells a cooperative-matrix type.
func coopTypeName(t ir.CoopMat) string {
	return "vk::khr::" + coopUse[t.Use] + "<" + scalarName(t.Elem) + ", vk::ScopeSubgroup, " +
		strconv.Itoa(t.Rows) + ", " + strconv.Itoa(t.Cols) + ">"
}

// coopLayout spells a memory layout.
func coopLayout(l ir.Layout) string {
	if l == ir.ColMajor {
		return "vk::CooperativeMatrixLayoutColumnMajorKHR"
	}
	return "vk::CooperativeMatrixLayoutRowMajorKHR"
}

// coopExpr lowers the cooperative-matrix expressions and arithmetic on
// matrices; ok is false for other expressions.
func (f *fn) coopExpr(x ir.Expr) (h hx, ok bool) {
	switch x := x.(type) {
	case *ir.CoopMake:
		v := f.ex(x.X)
		if x.IsConversion() {
			return primary(v.at(precPrimary) + ".cast<" + scalarName(x.To.Elem) + ">()"), true
		}
		return primary(coopTypeName(x.To) + "::Splat(" + v.s + ")"), true
	case *ir.CoopLoad:
		return f.coopLoad(x), true
	case *ir.CoopMulAdd:
		return f.coopMulAdd(x), true
	case *ir.CoopLength:
		return primary(coopTypeName(x.M.Type().(ir.CoopMat)) + "::GetLength()"), true
	case *ir.Binary:
		if m, isMat := x.Ty.(ir.CoopMat); isMat {
			hs := f.seq([]ir.Expr{x.X, x.Y}, false)
			return f.coopBinop(x.Op, hs[0], x.X.Type(), hs[1], x.Y.Type(), m), true
		}
	case *ir.Unary:
		if ir.IsCoopMat(x.Ty) && x.Op == ir.OpNeg {
			return primary(f.ex(x.X).at(precPrimary) + ".negate()"), true
		}
	}
	return hx{}, false
}

// coopPlace spells the memory operands of a load or store before the
// stride: "buf, offset" for a buffer (a kernel's or a function's buffer
// parameter), the groupshared element's address for a shared array.
func (f *fn) coopPlace(src *ir.Ident, off hx) string {
	name := f.ident(src).s
	if p, ok := src.Obj.(*ir.Param); ok && p.Kind == ir.BufferParam {
		return name + ", " + off.s
	}
	return "vk::GetGroupSharedAddress(" + name + "[" + off.s + "])"
}

func (f *fn) coopLoad(x *ir.CoopLoad) hx {
	hs := f.seq([]ir.Expr{x.Offset, x.Stride}, false)
	return primary(coopTypeName(x.To) + "::Load<" + coopLayout(x.Layout) + ">(" + f.coopPlace(x.Src, hs[0]) + ", " + hs[1].s + ")")
}

// coopStore writes the statement coopStore; a matrix that is not a name is
// evaluated into a temporary first (Store is a member function).
func (f *fn) coopStore(s *ir.CoopStore) {
	hs := f.seq([]ir.Expr{s.M, s.Offset, s.Stride}, false)
	m := hs[0]
	if !isName(m.s) {
		t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
		f.tmp++
		f.pre = append(f.pre, decl(s.M.Type(), t)+" = "+m.s+";")
		m = primary(t)
	}
	text := m.s + ".Store<" + coopLayout(s.Layout) + ">(" + f.coopPlace(s.Dst, hs[1]) + ", " + hs[2].s + ");"
	f.flush()
	f.out(s.Pos, text)
}

func (f *fn) coopMulAdd(x *ir.CoopMulAdd) hx {
	hs := f.seq([]ir.Expr{x.A, x.B, x.C}, false)
	a, c := x.A.Type().(ir.CoopMat), x.Ty.(ir.CoopMat)
	if a.Elem == c.Elem {
		return primary("vk::khr::cooperativeMatrixMultiplyAdd(" + hs[0].s + ", " + hs[1].s + ", " + hs[2].s + ")")
	}
	f.e.need("kc_coopMulAdd", func() string {
		return `// kc_coopMulAdd is OpCooperativeMatrixMulAddKHR with inputs of one element
// type and sums of another (f16 into f32), which DXC's
// vk::khr::cooperativeMatrixMultiplyAdd (one component type for all three)
// cannot express; it calls the header's own builtin.
template <class Acc, class MatA, class MatB>
Acc kc_coopMulAdd(MatA a, MatB b, Acc c) {
	Acc r;
	r._matrix = __builtin_spv_CooperativeMatrixMulAddKHR<typename Acc::SpirvMatrixType>(a._matrix, b._matrix, c._matrix, 0);
	return r;
}`
	})
	return primary("kc_coopMulAdd(" + hs[0].s + ", " + hs[1].s + ", " + hs[2].s + ")")
}

// coopBinop spells x op y with a matrix result of type m.
func (f *fn) coopBinop(op ir.BinaryOp, x hx, xt ir.Type, y hx, yt ir.Type, m ir.CoopMat) hx {
	p := opPrec(op)
	if ir.IsCoopMat(xt) && ir.IsCoopMat(yt) {
		return hx{x.at(p) + " " + op.String() + " " + y.at(p+1), p}
	}
	mat, s := x, y
	if !ir.IsCoopMat(xt) {
		mat, s = y, x // s * m
	}
	if op == ir.OpMul && m.Elem.IsFloat() {
		return hx{mat.at(precMul) + " * " + s.at(precUnary), precMul}
	}
	// integer scaling, m / s: by a matrix filled with s
	return hx{mat.at(p) + " " + op.String() + " " + coopTypeName(m) + "::Splat(" + s.s + ")", p}
}

// opPrec is the precedence of the element-wise operators.
func opPrec(op ir.BinaryOp) int {
	if op == ir.OpAdd || op == ir.OpSub {
		return precAdd
	}
	return precMul
}

// coopSet returns the text of m[i] = x (or m[i] op= x) as m.Set(x, i), m
// a matrix variable (the checker allows no other).
func (f *fn) coopSet(a *ir.Assign, x *ir.Index) string {
	hs := f.seq([]ir.Expr{x.X, x.Index, a.RHS}, false)
	m, i, v := hs[0], hs[1], hs[2]
	if a.Op != ir.OpNone && !isName(i.s) {
		// i is read twice (Get and Set): evaluate it once
		t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
		f.tmp++
		f.pre = append(f.pre, decl(x.Index.Type(), t)+" = "+i.s+";")
		i = primary(t)
	}
	if a.Op != ir.OpNone {
		elem := x.Ty
		get := primary(m.s + ".Get(" + i.s + ")")
		v = f.binop(a.Op, get, elem, v, a.RHS, elem)
	}
	return m.s + ".Set(" + v.s + ", " + i.s + ")"
}
