package kernels

import (
	"fmt"
	"math"
	"slices"
)

// Transpose returns xᵀ for a two-dimensional x.
func (c *Context) Transpose(x *Tensor) (*Tensor, error) {
	if err := c.owns("transpose", x); err != nil {
		return nil, err
	}
	if len(x.shape) != 2 {
		return nil, shapeErr("transpose", "want a two-dimensional tensor", nil, x.shape)
	}
	rows, cols := x.shape[0], x.shape[1]
	out, err := c.output([]int{cols, rows})
	if err != nil {
		return nil, err
	}
	const tile = 16
	g := [3]uint32{uint32(ceilDiv(cols, tile)), uint32(ceilDiv(rows, tile)), 1}
	if max := c.dev.Info().Limits.MaxWorkgroupsPerDimension; max > 0 && (g[0] > max || g[1] > max) {
		out.Release()
		return nil, shapeErr("transpose", "more than %d tiles along a dimension", []any{max}, x.shape)
	}
	if err := c.run("shape.kc", "transpose", nil, []uint32{uint32(rows), uint32(cols)}, g, x, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Gather returns the rows idx of data [rows, d] as a [len(idx), d] tensor
// (an embedding lookup). The indices are checked on the host and uploaded.
func (c *Context) Gather(data *Tensor, idx []int) (*Tensor, error) {
	if err := c.owns("gather", data); err != nil {
		return nil, err
	}
	if len(data.shape) != 2 || len(idx) == 0 {
		return nil, shapeErr("gather", "want a [rows d] table and at least one index", nil, data.shape, []int{len(idx)})
	}
	rows, d := data.shape[0], data.shape[1]
	words := make([]byte, 4*len(idx))
	for i, r := range idx {
		if r < 0 || r >= rows {
			return nil, shapeErr("gather", "index %d is %d, outside [0, %d)", []any{i, r, rows}, data.shape, []int{len(idx)})
		}
		words[4*i] = byte(r)
		words[4*i+1] = byte(r >> 8)
		words[4*i+2] = byte(r >> 16)
		words[4*i+3] = byte(r >> 24)
	}
	ib, err := c.dev.Upload(words)
	if err != nil {
		return nil, err
	}
	defer ib.Release()
	it := &Tensor{c: c, st: &storage{buf: ib}, shape: []int{len(idx)}, dtype: F32}
	out, err := c.output([]int{len(idx), d})
	if err != nil {
		return nil, err
	}
	n := out.Len()
	if err := c.run("shape.kc", "gather", nil, []uint32{uint32(n), uint32(d)}, c.grid(n, 256), data, it, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Dup returns a copy of x with the given shape (the same number of
// elements; one dimension may be -1): a recorded device-to-device copy.
// Use Reshape for a view without copying. x may be of any type.
func (c *Context) Dup(x *Tensor, shape ...int) (*Tensor, error) {
	if err := c.ownsTyped("dup", x); err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		shape = x.shape
	}
	s, err := resolveShape("dup", x.shape, shape)
	if err != nil {
		return nil, err
	}
	out, err := c.outputOf(x.dtype, s)
	if err != nil {
		return nil, err
	}
	if err := c.copyTensor(out, x); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// copyTensor records out = x (the same bytes): elementwise4.kc's copy
// kernel where both views start on 16 bytes and the size is a multiple of
// 16 bytes, the device's transfer command otherwise (or with copyByCommand).
func (c *Context) copyTensor(out, x *Tensor) error {
	n := int(x.bytes())
	if c.copyByCommand || n%16 != 0 || x.View().Off%16 != 0 || out.View().Off%16 != 0 {
		return c.dev.Copy(out.bind(), x.bind())
	}
	return c.run("elementwise4.kc", "copy", nil, []uint32{uint32(n / 16)}, c.grid(n/16, 256), x, out)
}

// RoPE applies rotary position embeddings, rotate-half (NeoX/Llama)
// form, to x [t, heads·dh]: row r is at position r + offset (prefill uses
// offset 0; decoding the token at position p passes one row and offset p),
// and the pair (c, c + dh/2) of each head turns by p·base^(-2c/dh).
func (c *Context) RoPE(x *Tensor, heads int, base float64, offset int) (*Tensor, error) {
	if err := c.owns("rope", x); err != nil {
		return nil, err
	}
	if len(x.shape) != 2 || heads <= 0 || x.shape[1]%heads != 0 || (x.shape[1]/heads)%2 != 0 {
		return nil, shapeErr("rope", "want [t heads·dh] with %d heads and dh even", []any{heads}, x.shape)
	}
	if offset < 0 || offset+x.shape[0] > math.MaxInt32 || !(base > 1) {
		return nil, fmt.Errorf("kernels: rope: offset %d or base %g out of range", offset, base)
	}
	dh := x.shape[1] / heads
	out, err := c.output(x.shape)
	if err != nil {
		return nil, err
	}
	n := x.Len() / 2
	params := []uint32{uint32(n), uint32(heads), uint32(dh), uint32(offset), math.Float32bits(float32(math.Log2(base)))}
	if err := c.run("shape.kc", "rope", nil, params, c.grid(n, 256), x, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// SetRows records a copy of src [n, ...] into rows at..at+n of dst
// [rows, ...] (the same trailing dimensions): appending a token's keys and
// values to a KV cache. It is the one op that writes an existing tensor;
// like every op it is ordered after the work recorded before it. dst and
// src share one type, any of them.
func (c *Context) SetRows(dst *Tensor, at int, src *Tensor) error {
	if err := c.sameDType("setrows", dst, src); err != nil {
		return err
	}
	if len(dst.shape) != len(src.shape) || !slices.Equal(dst.shape[1:], src.shape[1:]) || at < 0 || at+src.shape[0] > dst.shape[0] {
		return shapeErr("setrows", "cannot place %d rows at row %d", []any{src.shape[0], at}, dst.shape, src.shape)
	}
	rowBytes := int64(numel(dst.shape[1:]) * dst.dtype.Size())
	v := src.View()
	return c.dev.Copy(dst.st.buf.Slice(dst.off+int64(at)*rowBytes, v.Size), v)
}
