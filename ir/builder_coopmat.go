package ir

// Builder helpers for cooperative matrices (coopmat.go), for Go kernel
// generators such as package coopmat:
//
//	b := ir.NewKernel("mm", 32)
//	m.Enables = []*ir.Enable{{Feature: ir.FeatureF16}, {Feature: ir.FeatureCoopMat}}
//	acc := b.Var("acc", nil, ir.CoopFill(ir.Mat(ir.F32, 16, 16, ir.UseAccumulator), ir.Float(0)))
//	a := b.Let("a", ir.CoopLoadOf(ir.Mat(ir.F16, 16, 16, ir.UseA), ir.Ref("A"), off, ir.Int(16), ir.RowMajor))
//	b.Assign(acc, ir.CoopMulAddOf(a, bm, acc))
//	b.CoopStore(acc, ir.Ref("C"), off, ir.Int(16), ir.RowMajor)

// Mat returns the subgroup-scope matrix type coopmat<elem, rows, cols, use>.
func Mat(elem Scalar, rows, cols int, use MatrixUse) CoopMat {
	return CoopMat{Elem: elem, Rows: rows, Cols: cols, Use: use}
}

// CoopFill is t(x): a matrix with every element x.
func CoopFill(t CoopMat, x Expr) *CoopMake { return &CoopMake{To: t, X: x} }

// CoopConvert is t(m): m with its elements converted to t's element type.
func CoopConvert(t CoopMat, m Expr) *CoopMake { return &CoopMake{To: t, X: m} }

// CoopLoadOf is coopLoad<t>(src, offset, stride, layout).
func CoopLoadOf(t CoopMat, src *Ident, offset, stride Expr, layout Layout) *CoopLoad {
	return &CoopLoad{To: t, Src: src, Offset: offset, Stride: stride, Layout: layout}
}

// CoopMulAddOf is coopMulAdd(a, b, c).
func CoopMulAddOf(a, b, c Expr) *CoopMulAdd { return &CoopMulAdd{A: a, B: b, C: c} }

// CoopLengthOf is coopLength(m).
func CoopLengthOf(m Expr) *CoopLength { return &CoopLength{M: m} }

// CoopStore adds coopStore(m, dst, offset, stride, layout).
func (b *KernelBuilder) CoopStore(m Expr, dst *Ident, offset, stride Expr, layout Layout) {
	b.add(&CoopStore{M: m, Dst: dst, Offset: offset, Stride: stride, Layout: layout})
}
