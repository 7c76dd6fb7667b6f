package kernels

import "math"

// The f16 and bf16 forms of the elementwise and row ops (half.kc). Both
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
	nw := ceilDiv(x.Len(), 2)
	if err := c.run("half.kc", kernel, x.dtype.bfDef(), []uint32{uint32(nw)}, c.grid(nw, 256), append(ts, out)...); err != nil {
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
	params := []uint32{uint32(rows), uint32(d / 2), math.Float32bits(eps)}
	ts := append(append([]*Tensor{x}, vecs...), out)
	if err := c.run("half.kc", kernel, x.dtype.bfDef(), params, c.grid2(rows), ts...); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// viaF32 runs an f32 op on ts cast to f32 and casts its result to d,
// releasing the temporaries (their work stays recorded).
func (c *Context) viaF32(d DType, ts []*Tensor, op func([]*Tensor) (*Tensor, error)) (*Tensor, error) {
	wide := make([]*Tensor, len(ts))
	var tmp []*Tensor
	defer func() {
		for _, t := range tmp {
			t.Release()
		}
	}()
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
	if err != nil || d == F32 {
		return r, err
	}
	defer r.Release()
	return c.Cast(r, d)
}
