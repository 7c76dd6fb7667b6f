// Package emit holds the one record every kc emitter returns (emit/wgsl,
// emit/hlsl, emit/spirv) and every consumer takes (backend, gen,
// precompiled, kc compile, the benchmarks): the code, the entry point of
// each kernel as the target spells it, the map from output back to .kc
// positions, and each kernel's reflection from ir.
//
// It is a package of its own, importing only ir, because the emitters may
// import nothing but ir and the backend must not import a particular
// emitter to read their results.
package emit

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/kcgo/kc/ir"
)

// Target names what an Artifact holds.
type Target string

// The targets kc emits.
const (
	WGSL  Target = "wgsl"  // WGSL text
	HLSL  Target = "hlsl"  // HLSL text (compiled by dxc or glslang)
	SPIRV Target = "spirv" // SPIR-V words
)

// Artifact is an emitted module: code for one target and what a host needs
// to load and bind each of its kernels.
type Artifact struct {
	Target Target
	// File is the .kc file the code came from (ir.Module.File).
	File string
	// Code is the text of a text target (WGSL, HLSL); nil for SPIR-V.
	Code []byte
	// Words is the SPIR-V module, header included; nil for text targets.
	Words []uint32
	// Entries are the emitted kernels in module order.
	Entries []Entry
	// Lines maps output back to .kc, ascending by Off: for text targets one
	// span per output line (Off is the 1-based line number), for SPIR-V one
	// span per run of words from one position (Off is a word offset). A
	// zero Pos says the output came from no .kc line (helpers, braces).
	Lines []Span
}

// Entry is one kernel of an Artifact.
type Entry struct {
	// Kernel is the .kc kernel name.
	Kernel string
	// Name is the entry point as emitted: the kernel's name, or another
	// where that name is a keyword or reserved word of the target. Loaders
	// must use this one.
	Name string
	// Reflection is ir.ReflectKernel's record of the kernel: bindings,
	// params block, workgroup size, features.
	Reflection ir.KernelReflection
	// Restricted, when set, names something the code uses that only some
	// of the target's downstream compilers accept (HLSL's dot4add_*, for
	// dot4I8Packed/dot4U8Packed: shader model 6.4, which dxc has and
	// glslang lacks); RestrictedPos is where the kernel uses it.
	Restricted    string
	RestrictedPos ir.Pos
}

// Span says that output from Off on came from Pos.
type Span struct {
	Off int
	Pos ir.Pos
}

// NewEntry is the Entry for kernel k of a checked module, emitted as name.
func NewEntry(k *ir.Kernel, name string) Entry {
	return Entry{Kernel: k.Name, Name: name, Reflection: ir.ReflectKernel(k)}
}

// Entry returns the entry for a kernel named by its .kc or emitted name;
// with name empty, the only entry.
func (a *Artifact) Entry(name string) (*Entry, error) {
	if name == "" {
		if len(a.Entries) == 1 {
			return &a.Entries[0], nil
		}
		return nil, fmt.Errorf("%s: the artifact has %d entry points; name one", a.Target, len(a.Entries))
	}
	for i := range a.Entries {
		if a.Entries[i].Kernel == name {
			return &a.Entries[i], nil
		}
	}
	for i := range a.Entries {
		if a.Entries[i].Name == name {
			return &a.Entries[i], nil
		}
	}
	return nil, fmt.Errorf("%s: no kernel %q in the artifact", a.Target, name)
}

// Only returns a copy of a that offers only the named kernel (as Entry
// finds it); the code is shared, not copied.
func (a *Artifact) Only(name string) (*Artifact, error) {
	e, err := a.Entry(name)
	if err != nil {
		return nil, err
	}
	b := *a
	b.Entries = []Entry{*e}
	return &b, nil
}

// SourcePos returns the .kc position that output location loc came from:
// loc is a 1-based line for text targets, a word offset for SPIR-V. It
// returns the zero Pos when there is none or loc is out of range.
func (a *Artifact) SourcePos(loc int) ir.Pos {
	if a == nil || len(a.Lines) == 0 || loc < a.Lines[0].Off {
		return ir.Pos{}
	}
	if a.Target != SPIRV && loc > a.Lines[len(a.Lines)-1].Off {
		return ir.Pos{}
	}
	if a.Target == SPIRV && loc >= len(a.Words) {
		return ir.Pos{}
	}
	i := sort.Search(len(a.Lines), func(i int) bool { return a.Lines[i].Off > loc })
	return a.Lines[i-1].Pos
}

// Bytes returns the code as a file holds it: the text, or the SPIR-V words
// as little-endian bytes (what a .spv file and vkCreateShaderModule take).
func (a *Artifact) Bytes() []byte {
	if a.Target != SPIRV {
		return a.Code
	}
	return WordBytes(a.Words)
}

// WordBytes returns SPIR-V words as little-endian bytes.
func WordBytes(words []uint32) []byte {
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}
