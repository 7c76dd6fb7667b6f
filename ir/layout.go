package ir

// Binding convention (from the seeds): group/set 0; binding 0 is the params
// uniform block holding every scalar parameter, present only when the kernel
// has scalar parameters; storage buffers take bindings 1, 2, ... in
// declaration order whether or not binding 0 is present.

// ParamsBinding is the binding number of the params uniform block.
const ParamsBinding = 0

// ParamField is one scalar parameter's place in the params uniform block.
type ParamField struct {
	Param  *Param
	Offset int // bytes from the start of the block
	Size   int // bytes
}

// ParamsLayout returns the params block of k: every scalar parameter in
// declaration order, each 4 bytes at consecutive 4-byte offsets (the
// std140 and std430 rules agree for 32-bit scalars), and the block size
// rounded up to 16 bytes as uniform buffers require. size is 0 when k has
// no scalar parameters.
func ParamsLayout(k *Kernel) (fields []ParamField, size int) {
	off := 0
	for _, p := range k.Params {
		if p.Kind != ScalarParam {
			continue
		}
		sz := 4
		fields = append(fields, ParamField{Param: p, Offset: off, Size: sz})
		off += sz
	}
	if off == 0 {
		return nil, 0
	}
	return fields, (off + 15) &^ 15
}

// Buffers returns k's storage-buffer parameters in binding order.
func Buffers(k *Kernel) []*Param {
	var out []*Param
	for _, p := range k.Params {
		if p.Kind == BufferParam {
			out = append(out, p)
		}
	}
	return out
}

// BufferBinding returns the binding number of buffer parameter p of k
// (1 for the first buffer), or -1 when p is not one of k's buffers.
func BufferBinding(k *Kernel, p *Param) int {
	n := 1
	for _, q := range k.Params {
		if q.Kind != BufferParam {
			continue
		}
		if q == p {
			return n
		}
		n++
	}
	return -1
}

// HasParamsBlock reports whether k has a params uniform block at binding 0.
func HasParamsBlock(k *Kernel) bool {
	for _, p := range k.Params {
		if p.Kind == ScalarParam {
			return true
		}
	}
	return false
}

// ElemStride is the byte stride of t as a storage-buffer element or array
// element: roundUp(AlignOf(t), SizeOf(t)) (WGSL's rules; see struct.go).
// Scalars their size, vec2 8, vec3 and vec4 16 (f32) or 8 (f16), atomics
// 4, arrays Len*stride(elem), structs their size. bool is 0 (it has no
// host-shareable layout).
func ElemStride(t Type) int {
	if t == Type(Bool) {
		return 0
	}
	switch t.(type) {
	case Scalar, Atomic, Vector, *Array, *Struct:
		return alignUp(SizeOf(t), AlignOf(t))
	}
	return 0
}
