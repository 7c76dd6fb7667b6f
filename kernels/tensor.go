package kernels

import (
	"context"
	"fmt"
	"strings"

	"github.com/kcgo/kc/backend"
)

// Tensor is a row-major, contiguous array on a device: a shape, an element
// type and a view of a device buffer. Ops never change their operands
// (SetRows, which writes into a KV cache, is the one exception); Reshape
// and Rows are views sharing the storage.
type Tensor struct {
	c     *Context
	st    *storage
	off   int64 // byte offset into the storage (Rows views)
	shape []int
	dtype DType
}

// storage is a device buffer shared by a tensor and its views.
type storage struct {
	buf *backend.Buffer
}

// Shape returns a copy of the tensor's dimensions.
func (t *Tensor) Shape() []int { return append([]int(nil), t.shape...) }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Len is the number of elements.
func (t *Tensor) Len() int { return numel(t.shape) }

// View is the device bytes the tensor covers, for use with package backend
// (custom kernels, copies, Device.ReadMany).
func (t *Tensor) View() backend.View {
	return t.st.buf.Slice(t.off, t.bytes())
}

// bytes is the size of the tensor's elements.
func (t *Tensor) bytes() int64 { return int64(t.Len()) * int64(t.dtype.Size()) }

// bind is the view a kernel binds: View rounded up to whole 32-bit words
// where the storage holds them (the kernels read f16 and bf16 tensors as
// u32 words of two elements; Context allocates every tensor in whole
// words, so only a view's last word may hold a neighbour's element, which
// the kernels never use).
func (t *Tensor) bind() backend.View {
	n := (t.bytes() + 3) &^ 3
	if t.off+n > t.st.buf.Size() {
		n = t.bytes()
	}
	return t.st.buf.Slice(t.off, n)
}

func (t *Tensor) String() string {
	return fmt.Sprintf("%s%s", t.dtype, shapeString(t.shape))
}

// Release returns the tensor's storage to the device's pool. Its views
// share that storage and must not be used afterwards. Work already recorded
// on it is unaffected. Releasing twice is a no-op.
func (t *Tensor) Release() { t.st.buf.Release() }

// ToHost reads the tensor back: it submits every recorded dispatch and
// waits for them (the one synchronisation of the package).
func (t *Tensor) ToHost(ctx context.Context) ([]float32, error) {
	out, err := t.c.ToHost(ctx, t)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Reshape returns a view of t with another shape of the same number of
// elements; one dimension may be -1, inferred from the others. Nothing is
// copied or recorded.
func (t *Tensor) Reshape(shape ...int) (*Tensor, error) {
	s, err := resolveShape("reshape", t.shape, shape)
	if err != nil {
		return nil, err
	}
	return &Tensor{c: t.c, st: t.st, off: t.off, shape: s, dtype: t.dtype}, nil
}

// Rows returns the view of rows [lo, hi) of t's first dimension: the
// filled prefix of a KV cache, say. Nothing is copied. Ops bind views at
// their byte offset, so lo·(bytes per row) must be a multiple of the
// device's storage-buffer offset alignment (any prefix, lo = 0, is).
func (t *Tensor) Rows(lo, hi int) (*Tensor, error) {
	if lo < 0 || hi > t.shape[0] || lo >= hi {
		return nil, shapeErr("rows", "rows [%d, %d) are not a non-empty part of [0, %d)", []any{lo, hi, t.shape[0]}, t.shape)
	}
	rowBytes := int64(numel(t.shape[1:]) * t.dtype.Size())
	off := t.off + int64(lo)*rowBytes
	if a := t.c.dev.Info().Limits.MinStorageBufferOffsetAlignment; a > 0 && off%a != 0 {
		return nil, shapeErr("rows", "row %d starts at byte %d, not a multiple of the device's offset alignment %d", []any{lo, off, a}, t.shape)
	}
	s := append([]int{hi - lo}, t.shape[1:]...)
	return &Tensor{c: t.c, st: t.st, off: off, shape: s, dtype: t.dtype}, nil
}

// ShapeError is an op refused on the host because of its operands' shapes
// or element types (or a size argument that does not fit them).
type ShapeError struct {
	Op     string  // the op's Go name, lower case: "matmul", "rope"
	Shapes [][]int // the operands' shapes, in argument order
	// DTypes are the operands' element types, parallel to Shapes; nil
	// when the error is about shapes alone.
	DTypes []DType
	Msg    string // what is wrong
}

// Error names the op, the operands and the fault:
// "kernels: add [2 3] [3 2]: shapes differ". An operand's shape carries
// its element type as a prefix ("f16[2 3]") when some operand is not
// f32, f32 being the default.
func (e *ShapeError) Error() string {
	typed := false
	for _, d := range e.DTypes {
		typed = typed || d != F32
	}
	ss := make([]string, len(e.Shapes))
	for i, s := range e.Shapes {
		ss[i] = shapeString(s)
		if typed && i < len(e.DTypes) {
			ss[i] = e.DTypes[i].String() + ss[i]
		}
	}
	return fmt.Sprintf("kernels: %s %s: %s", e.Op, strings.Join(ss, " "), e.Msg)
}

func shapeErr(op, format string, args []any, shapes ...[]int) error {
	return &ShapeError{Op: op, Shapes: shapes, Msg: fmt.Sprintf(format, args...)}
}

func shapeString(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func numel(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// maxElems bounds a tensor so that element indices fit the kernels' u32.
const maxElems = 1<<31 - 1

// checkShape verifies a new tensor's dimensions.
func checkShape(op string, s []int) error {
	if len(s) == 0 {
		return shapeErr(op, "a tensor needs at least one dimension", nil, s)
	}
	n := 1
	for _, d := range s {
		if d <= 0 {
			return shapeErr(op, "dimensions must be positive", nil, s)
		}
		if n > maxElems/d {
			return shapeErr(op, "more than %d elements", []any{maxElems}, s)
		}
		n *= d
	}
	return nil
}

// resolveShape fills in a -1 dimension of want from have's element count.
func resolveShape(op string, have, want []int) ([]int, error) {
	s := append([]int(nil), want...)
	free := -1
	known := 1
	for i, d := range s {
		switch {
		case d == -1 && free < 0:
			free = i
		case d <= 0:
			return nil, shapeErr(op, "bad dimension %d", []any{d}, have, want)
		default:
			known *= d
		}
	}
	n := numel(have)
	if free >= 0 {
		if known == 0 || n%known != 0 {
			return nil, shapeErr(op, "%d elements do not divide into this shape", []any{n}, have, want)
		}
		s[free] = n / known
	}
	if numel(s) != n {
		return nil, shapeErr(op, "%d elements cannot take a shape of %d", []any{n, numel(s)}, have, want)
	}
	return s, nil
}

// rowsOf splits a shape into rows × its last dimension.
func rowsOf(s []int) (rows, d int) {
	d = s[len(s)-1]
	return numel(s) / d, d
}
