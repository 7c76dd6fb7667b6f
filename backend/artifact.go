package backend

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kcgo/kc/ir"
)

// Target is a kind of shader artifact a device can load.
type Target string

// The artifact kinds drivers accept.
const (
	WGSL  Target = "wgsl"  // WGSL text (wgpu)
	SPIRV Target = "spirv" // SPIR-V words (Vulkan; wgpu through naga's SPIR-V front end)
)

// Artifact is one compiled kernel, ready to load: code for one target plus
// the reflection needed to bind it.
type Artifact struct {
	Target Target
	Code   []byte   // WGSL text (Target WGSL)
	Words  []uint32 // SPIR-V module (Target SPIRV)
	Entry  string   // entry point name in the code
	Layout Layout

	// Spec names the specialisation the code was built with ("TILE=32");
	// it is part of the cache key alongside the content hash, so two
	// artifacts differing only in it are cached apart. Informational
	// otherwise.
	Spec string
	// Features are the optional features the kernel uses; Load refuses an
	// artifact whose features the device lacks with an *ir.UnsupportedError.
	Features ir.Features
}

// Layout is an artifact's binding layout (ir/layout.go's convention): the
// params uniform block at binding 0 when Params > 0, then one storage
// buffer per entry of Buffers at bindings 1, 2, ... .
type Layout struct {
	Params int // bytes of the params block (a multiple of 16), 0 when none
	// NumWorkgroups says that the params block ends with the hidden
	// num_workgroups field (ir.NumWorkgroupsOffset: a uint3 at Params-16),
	// which Dispatch fills with the group counts.
	NumWorkgroups bool
	ParamNames    []string     // scalar parameters in block order, 4 bytes each
	Buffers       []BufferSlot // storage buffers in binding order
	Workgroup     [3]int       // workgroup size
	Kernel        string       // the kernel's name in the .kc source
	Shared        int          // bytes of workgroup memory, when known
}

// BufferSlot is one storage-buffer binding.
type BufferSlot struct {
	Name     string
	Binding  int
	ReadOnly bool // `read` access; false for read_write
	Stride   int  // bytes per element; a bound range's size must be a multiple
}

// LayoutOf derives the binding layout of kernel k of a checked module.
func LayoutOf(k *ir.Kernel) Layout {
	l := Layout{Workgroup: k.Size, Kernel: k.Name}
	fields, _ := ir.ParamsLayout(k)
	l.Params = ir.ParamsSize(k)
	l.NumWorkgroups = ir.NumWorkgroupsOffset(k) >= 0
	for _, f := range fields {
		l.ParamNames = append(l.ParamNames, f.Param.Name)
	}
	for _, b := range ir.Buffers(k) {
		l.Buffers = append(l.Buffers, BufferSlot{
			Name:     b.Name,
			Binding:  ir.BufferBinding(k, b),
			ReadOnly: b.Access == ir.Read,
			Stride:   ir.ElemStride(b.Type),
		})
	}
	for _, s := range k.Shared {
		l.Shared += ir.ElemStride(s.Type)
	}
	return l
}

// key is the pipeline-cache key: a hash of everything that makes two
// artifacts load into different pipelines.
type key [sha256.Size]byte

func (a *Artifact) key() key {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00", a.Target, a.Entry, a.Spec, a.Layout.Params)
	if a.Layout.NumWorkgroups {
		h.Write([]byte("num_workgroups\x00"))
	}
	for _, b := range a.Layout.Buffers {
		fmt.Fprintf(h, "%d,%t,%d;", b.Binding, b.ReadOnly, b.Stride)
	}
	h.Write([]byte{0})
	h.Write(a.Code)
	var w [4]byte
	for _, x := range a.Words {
		binary.LittleEndian.PutUint32(w[:], x)
		h.Write(w[:])
	}
	var k key
	h.Sum(k[:0])
	return k
}
