package kernels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/kcgo/kc/ir/interp"
)

// DType is a tensor's element type.
//
// f16 and bf16 tensors are stored as 16-bit elements packed two to a
// 32-bit word (element 2w in the low half of word w): their kernels read
// and write whole words and compute in f32, so they need no shader f16
// support and run on every device. Host data converts to them rounding to
// nearest even (interp.F32ToF16Bits, interp.F32ToBF16Bits); reading back
// widens exactly.
type DType uint8

// The element types.
const (
	F32  DType = iota // IEEE 754 binary32
	F16               // IEEE 754 binary16
	BF16              // bfloat16: the upper half of a binary32
)

func (d DType) String() string {
	switch d {
	case F32:
		return "f32"
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size is the bytes of one element.
func (d DType) Size() int {
	if d == F16 || d == BF16 {
		return 2
	}
	return 4
}

// half reports a 16-bit type.
func (d DType) half() bool { return d == F16 || d == BF16 }

func (d DType) valid() bool { return d <= BF16 }

// bfDef is the half.kc specialisation for a 16-bit type.
func (d DType) bfDef() map[string]string {
	if d == BF16 {
		return map[string]string{"BF": "1"}
	}
	return nil
}

// encode converts host values to d's bytes, rounding to nearest even. The
// result is padded to whole 32-bit words.
func encode(d DType, xs []float32) []byte {
	if d == F32 {
		out := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
		return out
	}
	out := make([]byte, (2*len(xs)+3)&^3)
	for i, x := range xs {
		h := f16Bits(x)
		if d == BF16 {
			h = interp.F32ToBF16Bits(x)
		}
		binary.LittleEndian.PutUint16(out[2*i:], h)
	}
	return out
}

// f16Bits is interp.F32ToF16Bits (round to nearest even; overflow to
// infinity) on the bits, several times faster: model weights are hundreds
// of millions of values. NaNs go to interp.
func f16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	e := exp - 127 + 15
	switch {
	case exp == 0xff:
		if mant != 0 {
			return interp.F32ToF16Bits(f)
		}
		return sign | 0x7c00
	case e >= 0x1f:
		return sign | 0x7c00
	case e <= 0: // an f16 subnormal, or zero
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - e)
		h, rem, half := m>>shift, m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent rounds up to the next binade, or to infinity
	}
	return sign | uint16(h)
}

// decode widens n elements of d's bytes to float32 (exactly).
func decode(d DType, b []byte, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		switch d {
		case F16:
			out[i] = interp.F16BitsToF32(binary.LittleEndian.Uint16(b[2*i:]))
		case BF16:
			out[i] = interp.BF16BitsToF32(binary.LittleEndian.Uint16(b[2*i:]))
		default:
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return out
}

// TensorOf uploads data as a tensor of type d and the given shape,
// rounding each value to d (to nearest even; values beyond f16's range
// become infinities).
func (c *Context) TensorOf(d DType, data []float32, shape ...int) (*Tensor, error) {
	if err := checkNew("tensor", d, shape); err != nil {
		return nil, err
	}
	if n := numel(shape); n != len(data) {
		return nil, typedErr("tensor", "%d values for %d elements", []any{len(data), n}, []DType{d}, shape)
	}
	return c.upload(d, encode(d, data), shape)
}

// TensorBits uploads raw 16-bit elements (f16 or bf16 bit patterns, as
// other libraries store them) as a tensor of type d.
func (c *Context) TensorBits(d DType, bits []uint16, shape ...int) (*Tensor, error) {
	if err := checkNew("tensorbits", d, shape); err != nil {
		return nil, err
	}
	if !d.half() {
		return nil, typedErr("tensorbits", "raw bits are for f16 and bf16 tensors, not %s", []any{d}, []DType{d}, shape)
	}
	if n := numel(shape); n != len(bits) {
		return nil, typedErr("tensorbits", "%d values for %d elements", []any{len(bits), n}, []DType{d}, shape)
	}
	b := make([]byte, (2*len(bits)+3)&^3)
	for i, h := range bits {
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return c.upload(d, b, shape)
}

// Bits reads an f16 or bf16 tensor back as its raw 16-bit patterns, the
// inverse of TensorBits (ToHost widens the same elements to float32). Like
// ToHost it submits every recorded dispatch and waits for them.
func (t *Tensor) Bits(ctx context.Context) ([]uint16, error) {
	if !t.dtype.half() {
		return nil, typedErr("bits", "raw bits are for f16 and bf16 tensors, not %s", []any{t.dtype}, []DType{t.dtype}, t.shape)
	}
	b, err := t.c.dev.Read(ctx, t.View())
	if err != nil {
		return nil, err
	}
	out := make([]uint16, t.Len())
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out, nil
}

func (c *Context) upload(d DType, b []byte, shape []int) (*Tensor, error) {
	buf, err := c.dev.Upload(b)
	if err != nil {
		return nil, err
	}
	return &Tensor{c: c, st: &storage{buf: buf}, shape: append([]int(nil), shape...), dtype: d}, nil
}

// EmptyOf allocates a tensor of type d whose contents are undefined until
// an op or kernel writes them (NaN patterns with SetPoison on).
func (c *Context) EmptyOf(d DType, shape ...int) (*Tensor, error) { return c.outputOf(d, shape) }

// emptyOf allocates a tensor of type d, its contents left as the pool
// gives them (scratch the library writes before it reads).
func (c *Context) emptyOf(d DType, shape ...int) (*Tensor, error) {
	if err := checkNew("empty", d, shape); err != nil {
		return nil, err
	}
	buf, err := c.dev.Alloc((int64(numel(shape))*int64(d.Size()) + 3) &^ 3)
	if err != nil {
		return nil, err
	}
	return &Tensor{c: c, st: &storage{buf: buf}, shape: append([]int(nil), shape...), dtype: d}, nil
}

func checkNew(op string, d DType, shape []int) error {
	if !d.valid() {
		return fmt.Errorf("kernels: %s: unknown element type %s", op, d)
	}
	return checkShape(op, shape)
}

// Cast returns x converted to type d: rounded to nearest even when d is
// narrower (f32 to f16 or bf16, and between f16 and bf16), exactly when
// wider. Casting to x's own type is a copy (Dup).
func (c *Context) Cast(x *Tensor, d DType) (*Tensor, error) {
	if err := c.ownsTyped("cast", x); err != nil {
		return nil, err
	}
	if !d.valid() {
		return nil, fmt.Errorf("kernels: cast: unknown element type %s", d)
	}
	if d == x.dtype {
		return c.Dup(x)
	}
	out, err := c.outputOf(d, x.shape)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	nw := ceilDiv(n, 2)
	switch {
	case x.dtype == F32:
		err = c.run("half.kc", "tohalf", d.bfDef(), []uint32{uint32(n)}, c.grid(nw, 256), x, out)
	case d == F32:
		err = c.run("half.kc", "fromhalf", x.dtype.bfDef(), []uint32{uint32(n)}, c.grid(n, 256), x, out)
	default:
		err = c.run("half.kc", "rehalf", d.bfDef(), []uint32{uint32(nw)}, c.grid(nw, 256), x, out)
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// typedErr is a ShapeError that names the operands' element types.
func typedErr(op, format string, args []any, dtypes []DType, shapes ...[]int) error {
	return &ShapeError{Op: op, Shapes: shapes, DTypes: dtypes, Msg: fmt.Sprintf(format, args...)}
}

// operandErr is a ShapeError naming every operand's shape and type.
func operandErr(op, format string, args []any, ts ...*Tensor) error {
	shapes := make([][]int, len(ts))
	dtypes := make([]DType, len(ts))
	for i, t := range ts {
		shapes[i], dtypes[i] = t.shape, t.dtype
	}
	return &ShapeError{Op: op, Shapes: shapes, DTypes: dtypes, Msg: fmt.Sprintf(format, args...)}
}

// ownsTyped checks that every operand belongs to this context, of any
// element type.
func (c *Context) ownsTyped(op string, ts ...*Tensor) error {
	for _, t := range ts {
		if t == nil {
			return fmt.Errorf("kernels: %s: nil tensor", op)
		}
		if t.c != c {
			return fmt.Errorf("kernels: %s: tensor %s belongs to another context", op, t)
		}
	}
	return nil
}

// owns checks that every operand belongs to this context and is f32, for
// the ops that take f32 only; the others check with ownsTyped and
// sameDType.
func (c *Context) owns(op string, ts ...*Tensor) error {
	if err := c.ownsTyped(op, ts...); err != nil {
		return err
	}
	for _, t := range ts {
		if t.dtype != F32 {
			return operandErr(op, "%s takes f32 tensors only, not %s", []any{op, t.dtype}, ts...)
		}
	}
	return nil
}

// sameDType checks that the operands (owned by c) share one element type.
func (c *Context) sameDType(op string, ts ...*Tensor) error {
	if err := c.ownsTyped(op, ts...); err != nil {
		return err
	}
	for _, t := range ts[1:] {
		if t.dtype != ts[0].dtype {
			return operandErr(op, "element types differ (%s and %s)", []any{ts[0].dtype, t.dtype}, ts...)
		}
	}
	return nil
}
