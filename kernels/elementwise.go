package kernels

import "slices"

// elementwise records kernel over n elements, the tensors bound in order,
// params extra scalar parameters after n. It takes elementwise4.kc's vec4
// form when n and every extra parameter (a row length) are multiples of 4
// and every view starts on 16 bytes, except a one-element operand (Scale's
// factor, read as a scalar); elementwise.kc's otherwise.
func (c *Context) elementwise(kernel string, n int, extra []int, ts ...*Tensor) error {
	vec := n%4 == 0
	for _, e := range extra {
		vec = vec && e%4 == 0
	}
	for _, t := range ts {
		vec = vec && (t.Len() == 1 || t.View().Off%16 == 0)
	}
	file, per := "elementwise.kc", 1
	if vec {
		file, per = "elementwise4.kc", 4
	}
	params := []uint32{uint32(n / per)}
	for _, e := range extra {
		params = append(params, uint32(e/per))
	}
	return c.run(file, kernel, nil, params, c.grid(n/per, 256), ts...)
}

// binary records out = a op b for tensors of one shape and type.
func (c *Context) binary(op, kernel string, a, b *Tensor) (*Tensor, error) {
	if err := c.sameDType(op, a, b); err != nil {
		return nil, err
	}
	if !slices.Equal(a.shape, b.shape) {
		return nil, operandErr(op, "shapes differ", nil, a, b)
	}
	if a.dtype.half() {
		return c.halfElementwise(op, kernel, a, b)
	}
	out, err := c.output(a.shape)
	if err != nil {
		return nil, err
	}
	if err := c.elementwise(kernel, a.Len(), nil, a, b, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// unary records out = f(x) elementwise.
func (c *Context) unary(op, kernel string, x *Tensor) (*Tensor, error) {
	if err := c.ownsTyped(op, x); err != nil {
		return nil, err
	}
	if x.dtype.half() {
		return c.halfElementwise(op, kernel, x)
	}
	out, err := c.output(x.shape)
	if err != nil {
		return nil, err
	}
	if err := c.elementwise(kernel, x.Len(), nil, x, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Add returns a + b (same shapes).
func (c *Context) Add(a, b *Tensor) (*Tensor, error) { return c.binary("add", "add", a, b) }

// Sub returns a - b (same shapes).
func (c *Context) Sub(a, b *Tensor) (*Tensor, error) { return c.binary("sub", "sub", a, b) }

// Mul returns a ⊙ b, the elementwise product (same shapes).
func (c *Context) Mul(a, b *Tensor) (*Tensor, error) { return c.binary("mul", "mul", a, b) }

// Div returns a / b elementwise (same shapes).
func (c *Context) Div(a, b *Tensor) (*Tensor, error) { return c.binary("div", "div", a, b) }

// Scale returns a · s, s a one-element tensor: the factor stays on the
// device, so it may be the result of an earlier op.
func (c *Context) Scale(a, s *Tensor) (*Tensor, error) {
	if err := c.owns("scale", a, s); err != nil {
		return nil, err
	}
	if s.Len() != 1 {
		return nil, shapeErr("scale", "the factor must have one element", nil, a.shape, s.shape)
	}
	out, err := c.output(a.shape)
	if err != nil {
		return nil, err
	}
	if err := c.elementwise("scale", a.Len(), nil, a, s, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// AddBias returns a + bias with bias [d] added to every row of a [..., d].
func (c *Context) AddBias(a, bias *Tensor) (*Tensor, error) {
	if err := c.owns("addbias", a, bias); err != nil {
		return nil, err
	}
	_, d := rowsOf(a.shape)
	if len(bias.shape) != 1 || bias.shape[0] != d {
		return nil, shapeErr("addbias", "the bias must be [%d], the last dimension", []any{d}, a.shape, bias.shape)
	}
	out, err := c.output(a.shape)
	if err != nil {
		return nil, err
	}
	if err := c.elementwise("bias", a.Len(), []int{d}, a, bias, out); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// ReLU returns max(x, 0).
func (c *Context) ReLU(x *Tensor) (*Tensor, error) { return c.unary("relu", "relu", x) }

// Sigmoid returns 1 / (1 + e^-x).
func (c *Context) Sigmoid(x *Tensor) (*Tensor, error) { return c.unary("sigmoid", "sigmoid", x) }

// SiLU returns x · sigmoid(x) (swish).
func (c *Context) SiLU(x *Tensor) (*Tensor, error) { return c.unary("silu", "silu", x) }

// GELU returns the tanh approximation of GELU,
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (PyTorch's
// approximate="tanh"), not the erf form.
func (c *Context) GELU(x *Tensor) (*Tensor, error) { return c.unary("gelu", "gelu", x) }

// Sqrt returns √x (NaN for negative x).
func (c *Context) Sqrt(x *Tensor) (*Tensor, error) { return c.unary("sqrt", "sqrtk", x) }
