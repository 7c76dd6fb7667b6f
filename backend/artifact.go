package backend

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/kcgo/kc/emit"
)

// Target is a kind of shader artifact a device can load (emit.Target).
type Target = emit.Target

// The artifact kinds drivers accept.
const (
	WGSL  = emit.WGSL  // WGSL text (wgpu)
	SPIRV = emit.SPIRV // SPIR-V words (Vulkan; wgpu through naga's SPIR-V front end)
)

// key is the pipeline-cache key: a hash of everything that makes two
// artifacts load into different pipelines. The code is the specialisation
// (constants are folded into it), so equal code is an equal pipeline.
type key [sha256.Size]byte

// keyOf hashes the single-kernel artifact a (entry e).
func keyOf(a *emit.Artifact, e *emit.Entry) key {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", a.Target, e.Name, e.Reflection.ParamsSize())
	if e.Reflection.Params != nil && e.Reflection.Params.NumWorkgroups != nil {
		fmt.Fprintf(h, "num_workgroups@%d\x00", *e.Reflection.Params.NumWorkgroups)
	}
	for _, b := range e.Reflection.Buffers {
		fmt.Fprintf(h, "%d,%t,%d;", b.Binding, b.ReadOnly(), b.Stride)
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
