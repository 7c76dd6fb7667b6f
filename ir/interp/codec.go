package interp

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Elem is an element type the buffer codecs handle: float32, uint32, int32
// and uint16 (the bits of an f16; see F32ToF16Bits).
type Elem interface {
	~float32 | ~uint32 | ~int32 | ~uint16
}

// Encode returns the little-endian bytes of v, as a storage buffer of
// f32, u32, i32 or f16 (uint16 bits) elements holds them.
func Encode[T Elem](v []T) []byte {
	var z T
	size := int(unsafe.Sizeof(z))
	out := make([]byte, len(v)*size)
	for i, x := range v {
		putElem(out[i*size:], x)
	}
	return out
}

// Decode reads little-endian elements of type T from b. A length that is
// not a multiple of the element size is an error.
func Decode[T Elem](b []byte) ([]T, error) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("interp: %d bytes is not a whole number of %d-byte elements", len(b), size)
	}
	out := make([]T, len(b)/size)
	for i := range out {
		out[i] = getElem[T](b[i*size:])
	}
	return out, nil
}

func putElem[T Elem](b []byte, x T) {
	if unsafe.Sizeof(x) == 2 {
		binary.LittleEndian.PutUint16(b, *(*uint16)(unsafe.Pointer(&x)))
		return
	}
	binary.LittleEndian.PutUint32(b, *(*uint32)(unsafe.Pointer(&x)))
}

func getElem[T Elem](b []byte) T {
	var x T
	switch unsafe.Sizeof(x) {
	case 2:
		*(*uint16)(unsafe.Pointer(&x)) = binary.LittleEndian.Uint16(b)
	default:
		*(*uint32)(unsafe.Pointer(&x)) = binary.LittleEndian.Uint32(b)
	}
	return x
}

// Poison returns n bytes of 0xCD, a pattern no test expects, for output
// buffers whose unwritten elements must be caught.
func Poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xCD
	}
	return b
}
