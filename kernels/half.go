package kernels

import "math"

// The f16 and bf16 forms of the elementwise and row ops (half.kc, or
// half4.kc's vector forms when lengths are multiples of 8). Both
// operands and the result share one 16-bit type; the kernels compute in
// f32 and round each result once.

// halfKernels are the elementwise kernels half.kc has.
var halfKernels = map[string]bool{"add": true, "sub": true, "mul": true, "div": true, "relu": true, "sigmoid": true, "silu": true}

// halfElementwise records kernel over the words of ts (16-bit tensors of
// one shape), the last of them the output.
func (c *Context) halfElementwise(op, kernel string, ts ...*Tensor) (*Tensor, error) {
	x := ts[0]
	if !halfKernels[kernel] {
		return nil, operandErr(op, "%s takes f32 tensors only, not %s", []any{op, x.dtype}, ts...)
	}
	out, err := c.outputOf(x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	file, nw := "half.kc", ceilDiv(x.Len(), 2)
	if x.Len()%8 == 0 && aligned16(ts...) {
		file, nw = "half4.kc", x.Len()/8
	}
	if err := c.run(file, kernel, x.dtype.bfDef(), []uint32{uint32(nw)}, c.grid(nw, 256), append(ts, out)...); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// halfRows records a row op (rmsnorm, layernorm) on a 16-bit x [..., d]
// with weights vecs [d] of its type. Rows of even length run half.kc's
// kernels on words; a row of odd length straddles words, so an odd d
// takes f32 instead: the operands cast up, the f32 op, the result cast
// back (three more dispatches, the same rounding of the result).
func (c *Context) halfRows(op, kernel string, x *Tensor, eps float32, vecs ...*Tensor) (*Tensor, error) {
	rows, d := rowsOf(x.shape)
	for _, v := range vecs {
		if len(v.shape) != 1 || v.shape[0] != d {
			return nil, operandErr(op, "weights must be [%d], the last dimension", []any{d}, append([]*Tensor{x}, vecs...)...)
		}
	}
	if d%2 != 0 {
		return c.viaF32(x.dtype, append([]*Tensor{x}, vecs...), func(ts []*Tensor) (*Tensor, error) {
			return c.rowOp(op, kernel, ts[0], eps, true, ts[1:]...)
		})
	}
	out, err := c.outputOf(x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	ts := append(append([]*Tensor{x}, vecs...), out)
	file, dw := "half.kc", d/2
	if d%8 == 0 && aligned16(ts...) {
		file, dw = "half4.kc", d/8
	}
	params := []uint32{uint32(rows), uint32(dw), math.Float32bits(eps)}
	if err := c.run(file, kernel, x.dtype.bfDef(), params, c.grid2(rows), ts...); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// aligned16 reports that every tensor's view starts on 16 bytes, as
// half4.kc's vector loads need.
func aligned16(ts ...*Tensor) bool {
	for _, t := range ts {
		if t.off%16 != 0 {
			return false
		}
	}
	return true
}

// viaF32 runs an f32 op on ts cast to f32 and casts its result to d,
// releasing the temporaries (their work stays recorded).
func (c *Context) viaF32(d DType, ts []*Tensor, op func([]*Tensor) (*Tensor, error)) (*Tensor, error) {
	wide := make([]*Tensor, len(ts))
	var tmp []*Tensor
	defer func() { releaseAll(tmp) }()
	for i, t := range ts {
		wide[i] = t
		if t.dtype == F32 {
			continue
		}
		w, err := c.Cast(t, F32)
		if err != nil {
			return nil, err
		}
		wide[i] = w
		tmp = append(tmp, w)
	}
	r, err := op(wide)
	if err != nil {
		return r, err
	}
	return c.fromF32(r, d)
}
