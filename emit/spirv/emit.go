package spirv

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sort"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// Target is the name this emitter gives itself in *ir.UnsupportedError.
const Target = "spirv"

// Version is a SPIR-V version, encoded as in the module header.
type Version uint32

// Supported versions. The zero Version means V1_3.
const (
	V1_3 Version = 0x00010300 // Vulkan 1.1
	V1_6 Version = 0x00010600 // Vulkan 1.3
)

func (v Version) resolve() Version {
	if v == 0 {
		return V1_3
	}
	return v
}

// String is "1.3" or "1.6".
func (v Version) String() string {
	v = v.resolve()
	return fmt.Sprintf("%d.%d", v>>16&0xff, v>>8&0xff)
}

// VulkanEnv is the spirv-val --target-env that matches v: vulkan1.1 for
// SPIR-V 1.3, vulkan1.3 for SPIR-V 1.6.
func (v Version) VulkanEnv() string {
	if v.resolve() == V1_6 {
		return "vulkan1.3"
	}
	return "vulkan1.1"
}

// Options control Emit. The zero value emits every kernel of the module as
// one SPIR-V 1.3 module with debug information.
type Options struct {
	// Kernel selects the one kernel to emit. Empty means every kernel of the
	// module, each an OpEntryPoint of the same name in one module (each
	// with its own resource variables, so their bindings do not interact).
	Kernel string
	// Version is V1_3 (the default, for Vulkan 1.1) or V1_6 (Vulkan 1.3);
	// the default is V1_6 for a module with workgroup-scope cooperative
	// matrices (SPV_NV_cooperative_matrix2 requires it).
	Version Version
	// NoDebugInfo leaves out OpString/OpSource/OpLine and OpName/OpMemberName.
	NoDebugInfo bool
	// CoopMat picks the cooperative-matrix extension: CoopMatKHR (the
	// default) or CoopMatNV (coopmat.go).
	CoopMat CoopMatFlavor
}

// lineRec says that the instructions from word Off on came from Pos.
type lineRec = emit.Span

// VersionOf returns the SPIR-V version in a module's header (0 when words
// hold no header).
func VersionOf(words []uint32) Version {
	if len(words) < 2 {
		return 0
	}
	return Version(words[1])
}

// IDPos returns the .kc position of the instruction of module a that
// defines result id (as the disassembly numbers it: %12 is id 12), or
// false.
func IDPos(a *emit.Artifact, id uint32) (ir.Pos, bool) {
	off := -1
	var fbuf [16]field
	if len(a.Words) < 5 {
		return ir.Pos{}, false
	}
	_ = forEachInst(a.Words[5:], 5, func(o int, code op, operands []uint32) error {
		info, ok := lookup(code)
		if !ok {
			return nil
		}
		fs, err := decodeOperands(info, operands, fbuf[:])
		if err != nil {
			return nil
		}
		for _, f := range fs {
			if f.kind == kResult && f.words[0] == id {
				off = o
				return errStop
			}
		}
		return nil
	})
	if off < 0 {
		return ir.Pos{}, false
	}
	p := a.SourcePos(off)
	return p, p.IsValid()
}

var errStop = errors.New("stop")

// bailout carries an error out of deep emission code to Emit.
type bailout struct{ err error }

// Emit lowers the checked module m to SPIR-V. It refuses a module that
// Check has not passed, reports an *ir.UnsupportedError for what SPIR-V
// emission cannot express yet (cooperative matrices), and never panics.
// The output depends only on m and opts: it is identical byte for byte on
// every run, and Emit may be called concurrently.
func Emit(m *ir.Module, opts Options) (mod *emit.Artifact, err error) {
	if m == nil {
		return nil, errors.New("spirv: nil module")
	}
	if !m.Checked {
		return nil, errors.New("spirv: module has not been checked (run ir.Check first)")
	}
	if opts.Version == 0 && usesCoopMat2(m, opts.Kernel) {
		opts.Version = V1_6 // SPV_NV_cooperative_matrix2 requires SPIR-V 1.6
	}
	opts.Version = opts.Version.resolve()
	if opts.Version != V1_3 && opts.Version != V1_6 {
		return nil, fmt.Errorf("spirv: unsupported SPIR-V version %#x (want V1_3 or V1_6)", uint32(opts.Version))
	}
	var kernels []*ir.Kernel
	if opts.Kernel != "" {
		k := m.Kernel(opts.Kernel)
		if k == nil {
			return nil, fmt.Errorf("spirv: no kernel %q in %s", opts.Kernel, m.File)
		}
		kernels = []*ir.Kernel{k}
	} else {
		kernels = m.Kernels
	}
	if len(kernels) == 0 {
		return nil, fmt.Errorf("spirv: %s has no kernels", m.File)
	}
	defer func() {
		if r := recover(); r != nil {
			mod = nil
			if b, ok := r.(bailout); ok {
				err = b.err
				return
			}
			err = fmt.Errorf("spirv: internal error: %v\n%s", r, debug.Stack())
		}
	}()
	b := newBuilder(m, opts)
	if err := b.coopSetup(kernels); err != nil {
		return nil, err
	}
	for _, k := range kernels {
		b.kernel(k)
	}
	return b.finish()
}

// usesCoopMat2 reports whether the kernels Emit will lower (kernel, or all
// when empty) use workgroup-scope cooperative matrices.
func usesCoopMat2(m *ir.Module, kernel string) bool {
	for _, k := range m.Kernels {
		if (kernel == "" || k.Name == kernel) && k.Features&ir.FeatureCoopMat2 != 0 {
			return true
		}
	}
	return false
}

// builder holds the module under construction: the id allocator, one
// section per part of the module in the order the spec requires, and the
// interning tables for types and constants.
type builder struct {
	m    *ir.Module
	opts Options
	next uint32 // the next free id

	caps map[capability]bool
	exts map[string]bool

	vulkanMM    bool // OpMemoryModel Vulkan (cooperative matrices need it)
	deviceScope bool // with vulkanMM: some atomic may use Device scope

	// Sections, in module order.
	entries  section // OpEntryPoint
	modes    section // OpExecutionMode
	debugSrc section // OpString, OpSource
	names    section // OpName, OpMemberName
	annots   section // OpDecorate, OpMemberDecorate
	globals  section // types, constants, global variables
	funcs    section // function definitions

	glslID     uint32 // OpExtInstImport "GLSL.std.450", 0 until needed
	fileID     uint32 // OpString of the source file name, 0 until needed
	types      map[tkey]uint32
	structs    map[structKey]uint32 // struct types, plain and laid out
	sigs       map[string]uint32    // function types with parameters
	composites map[string]uint32    // constant arrays
	named      idSet                // ids that carry an OpName or are constants/types
	scalarIDs  [8]uint32            // type ids by ir.Scalar, 0 until made
	lines      []lineRec            // offsets into funcs
	entryNames []emit.Entry
}

func newBuilder(m *ir.Module, opts Options) *builder {
	b := &builder{
		m:     m,
		opts:  opts,
		next:  1,
		caps:  map[capability]bool{capShader: true},
		exts:  map[string]bool{},
		types: map[tkey]uint32{},

		structs:    map[structKey]uint32{},
		sigs:       map[string]uint32{},
		composites: map[string]uint32{},
	}
	b.globals.w = make([]uint32, 0, 512)
	b.annots.w = make([]uint32, 0, 256)
	b.names.w = make([]uint32, 0, 512)
	b.funcs.w = make([]uint32, 0, 2048)
	return b
}

// id allocates a fresh result id.
func (b *builder) id() uint32 {
	b.next++
	return b.next - 1
}

// fail aborts emission with err.
func fail(err error) { panic(bailout{err}) }

func (b *builder) unsupported(pos ir.Pos, feature string) {
	fail(&ir.UnsupportedError{Pos: pos, Target: Target, Feature: feature})
}

func (b *builder) capability(c capability) { b.caps[c] = true }

// glsl returns the id of the GLSL.std.450 import.
func (b *builder) glsl() uint32 {
	if b.glslID == 0 {
		b.glslID = b.id()
	}
	return b.glslID
}

// finish lays the sections out in the order of the spec's logical layout
// (2.4), renumbers ids canonically and returns the module.
func (b *builder) finish() (*emit.Artifact, error) {
	var w []uint32
	w = append(w, magicNumber, uint32(b.opts.Version), generatorID, 0, 0)
	var pre section
	mm := b.memoryModel() // before the capabilities: it may add some
	caps := make([]int, 0, len(b.caps))
	for c := range b.caps {
		caps = append(caps, int(c))
	}
	sort.Ints(caps)
	for _, c := range caps {
		pre.inst(opCapability, uint32(c))
	}
	exts := make([]string, 0, len(b.exts))
	for e := range b.exts {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	for _, e := range exts {
		pre.instStr(opExtension, nil, e)
	}
	if b.glslID != 0 {
		pre.instStr(opExtInstImport, []uint32{b.glslID}, "GLSL.std.450")
	}
	pre.inst(opMemoryModel, addressingLogical, mm)
	for _, s := range []*section{&pre, &b.entries, &b.modes, &b.debugSrc, &b.names, &b.annots, &b.globals} {
		w = append(w, s.w...)
	}
	base := len(w)
	w = append(w, b.funcs.w...)
	bound, err := renumber(w[5:], b.next)
	if err != nil {
		return nil, fmt.Errorf("spirv: internal error: %v", err)
	}
	w[3] = bound
	lines := make([]lineRec, len(b.lines))
	for i, l := range b.lines {
		lines[i] = lineRec{Off: base + l.Off, Pos: l.Pos}
	}
	return &emit.Artifact{Target: emit.SPIRV, File: b.m.File, Words: w, Entries: b.entryNames, Lines: lines}, nil
}
