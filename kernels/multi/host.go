package multi

import (
	"context"
	"encoding/binary"
	"unsafe"

	"github.com/kcgo/kc/kernels"
)

// littleEndian: kc's f32 buffers are little-endian, so on such a host a
// []float32 is already the bytes a readback writes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readInto reads t into dst (len(dst) == t.Len()): straight into dst's
// memory on a little-endian host, through a converted copy elsewhere.
func readInto(ctx context.Context, w Worker, dst []float32, t *kernels.Tensor) error {
	if !littleEndian {
		got, err := t.ToHost(ctx)
		copy(dst, got)
		return err
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 4*len(dst))
	return w.Device.ReadInto(ctx, b, t.View())
}

// each calls fn once on every device, each in its own goroutine (uploads
// of weights, warm-ups).
func (g *Group) each(ctx context.Context, fn func(ctx context.Context, w Worker) error) error {
	ones := make([]int, len(g.ws))
	for i := range ones {
		ones[i] = 1
	}
	return g.run(ctx, ones, func(ctx context.Context, w Worker, _, _ int) error { return fn(ctx, w) })
}

// Transfer copies src, a tensor of any device, to dst's device through the
// host (a readback, then an upload): kc has no peer path between devices
// (see the package documentation). The copy keeps src's element type,
// shape and bits: f16 and bf16 travel as their raw 16-bit patterns, f32
// as float32 values, which carry their bits unchanged.
func Transfer(ctx context.Context, dst *kernels.Context, src *kernels.Tensor) (*kernels.Tensor, error) {
	d := src.DType()
	if d == kernels.F32 {
		data, err := src.ToHost(ctx)
		if err != nil {
			return nil, err
		}
		return dst.TensorOf(d, data, src.Shape()...)
	}
	bits, err := src.Bits(ctx)
	if err != nil {
		return nil, err
	}
	return dst.TensorBits(d, bits, src.Shape()...)
}
