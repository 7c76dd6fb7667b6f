package backend

import (
	"context"
	"encoding/binary"
	"math"
)

// F32Bytes returns xs as little-endian bytes, the layout of []f32 buffers.
func F32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// BytesF32 reads little-endian f32s (a trailing partial element is dropped).
func BytesF32(b []byte) []float32 {
	xs := make([]float32, len(b)/4)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs
}

// UploadF32 is Upload of f32 data.
func (d *Device) UploadF32(xs []float32) (*Buffer, error) { return d.Upload(F32Bytes(xs)) }

// ReadF32 is Read of a view holding f32 data.
func (d *Device) ReadF32(ctx context.Context, v View) ([]float32, error) {
	b, err := d.Read(ctx, v)
	if err != nil {
		return nil, err
	}
	return BytesF32(b), nil
}

// F32 returns the params word of an f32 scalar parameter.
func F32(x float32) uint32 { return math.Float32bits(x) }

// I32 returns the params word of an i32 scalar parameter.
func I32(x int32) uint32 { return uint32(x) }
