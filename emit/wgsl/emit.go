package wgsl

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// Target is the name this package gives its target in errors.
const Target = "wgsl"

// Options controls Emit.
type Options struct {
	// Kernel names the one kernel to emit; empty emits every kernel of the
	// module, each as an entry point of its own.
	Kernel string
	// CoopMat picks the extension that carries cooperative matrices:
	// wgpu's (the default) or Chromium's (coopmat.go).
	CoopMat CoopMatDialect
}

// Emit lowers the checked module m to WGSL. It refuses an unchecked module
// and reports what WGSL cannot express as *ir.UnsupportedError.
func Emit(m *ir.Module, opts Options) (a *emit.Artifact, err error) {
	if m == nil {
		return nil, errors.New("wgsl: nil module")
	}
	if !m.Checked {
		return nil, errors.New("wgsl: module is not checked (run ir.Check first)")
	}
	kernels := m.Kernels
	if opts.Kernel != "" {
		k := m.Kernel(opts.Kernel)
		if k == nil {
			return nil, fmt.Errorf("wgsl: no kernel %q in %s", opts.Kernel, fileName(m))
		}
		kernels = []*ir.Kernel{k}
	}
	if len(kernels) == 0 {
		return nil, fmt.Errorf("wgsl: no kernels in %s", fileName(m))
	}
	for _, k := range kernels {
		if err := supported(k); err != nil {
			return nil, err
		}
	}
	defer func() {
		// A malformed tree that slipped past Check is a bug elsewhere, but
		// Emit answers with an error rather than taking the caller down.
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("wgsl: internal error emitting %s: %v", fileName(m), r)
		}
	}()
	e := newEmitter(m, kernels, opts)
	e.w.buf.Grow(4096)
	e.w.lines = make([]emit.Span, 0, 128)
	e.module()
	if e.err != nil {
		return nil, e.err
	}
	return &emit.Artifact{Target: emit.WGSL, File: m.File, Code: e.w.buf.Bytes(), Lines: e.w.lines, Entries: e.entries}, nil
}

func fileName(m *ir.Module) string {
	if m.File == "" {
		return "the module"
	}
	return m.File
}

// supported reports the first feature of k that WGSL cannot express.
func supported(k *ir.Kernel) error {
	if k.Features&ir.FeatureCoopMat2 != 0 { // nor either dialect workgroup scope
		return &ir.UnsupportedError{Pos: k.FeatPos[ir.FeatureCoopMat2], Target: Target, Feature: "workgroup-scope cooperative matrices (NV cooperative_matrix2)"}
	}
	if k.Features&ir.FeatureBF16 != 0 { // WGSL has no bf16
		return &ir.UnsupportedError{Pos: k.FeatPos[ir.FeatureBF16], Target: Target, Feature: "bf16"}
	}
	if k.Features&ir.FeatureInt8 != 0 { // nor i8 and u8 (only packed in u32)
		return &ir.UnsupportedError{Pos: k.FeatPos[ir.FeatureInt8], Target: Target, Feature: "i8/u8"}
	}
	return nil
}

// writer accumulates output lines and the .kc position of each.
type writer struct {
	buf    bytes.Buffer
	lines  []emit.Span // one per output line
	indent int
}

// line writes one indented line that came from pos.
func (w *writer) line(pos ir.Pos, parts ...string) {
	if len(parts) > 0 {
		for i := 0; i < w.indent; i++ {
			w.buf.WriteString("  ")
		}
	}
	for _, p := range parts {
		w.buf.WriteString(p)
	}
	w.buf.WriteByte('\n')
	w.lines = append(w.lines, emit.Span{Off: len(w.lines) + 1, Pos: pos})
}

// blank writes an empty line.
func (w *writer) blank() { w.line(ir.Pos{}) }

// emitter holds the state of one Emit call.
type emitter struct {
	m       *ir.Module
	kernels []*ir.Kernel
	opts    Options
	w       writer
	err     error
	global  *emit.Namer
	entries []emit.Entry

	// per kernel, filled by declare
	res map[*ir.Kernel]*resources

	// helper functions, in first-use order
	helpers     []string
	helperNames map[string]bool

	// issue 12's constructs, filled by declareTypes and declareFuncs
	structs     []*ir.Struct // used, held structs first, else in declaration order
	structNames map[*ir.Struct]string
	fieldNames  map[*ir.Struct][]string
	consts      []*ir.Const // constant arrays used, in declaration order
	constNames  map[*ir.Const]string
	funcs       map[*ir.Kernel]*kernelFuncs
}

// resources are the module-scope names of one kernel.
type resources struct {
	entry      string
	paramsType string
	paramsVar  string
	fields     map[*ir.Param]string
	buffers    map[*ir.Param]string
	shared     map[*ir.Shared]string
}

func newEmitter(m *ir.Module, kernels []*ir.Kernel, opts Options) *emitter {
	return &emitter{
		m:           m,
		kernels:     kernels,
		opts:        opts,
		global:      emit.NewNamer(words),
		res:         map[*ir.Kernel]*resources{},
		helperNames: map[string]bool{},
		structNames: map[*ir.Struct]string{},
		fieldNames:  map[*ir.Struct][]string{},
		constNames:  map[*ir.Const]string{},
		funcs:       map[*ir.Kernel]*kernelFuncs{},
	}
}

// fail records the first error.
func (e *emitter) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// need adds helper function name with the given source (once).
func (e *emitter) need(name string, src func() string) string {
	if !e.helperNames[name] {
		e.helperNames[name] = true
		e.helpers = append(e.helpers, src())
	}
	return name
}

// module writes the whole module.
func (e *emitter) module() {
	var feats ir.Features
	for _, k := range e.kernels {
		feats |= k.Features
	}
	header := "// generated by kc"
	if e.m.File != "" {
		header += " from " + filepath.Base(e.m.File)
	}
	e.w.line(ir.Pos{}, header)
	if feats&(ir.FeatureF16|ir.FeatureSubgroups|ir.FeatureCoopMat) != 0 {
		e.w.blank()
	}
	if feats&ir.FeatureF16 != 0 {
		e.w.line(e.enablePos(ir.FeatureF16), "enable f16;")
	}
	if feats&ir.FeatureSubgroups != 0 {
		e.w.line(e.enablePos(ir.FeatureSubgroups), "enable subgroups;")
		// kc allows subgroup operations in non-uniform control flow.
		e.w.line(ir.Pos{}, "diagnostic(off, subgroup_uniformity);")
	}
	if feats&ir.FeatureCoopMat != 0 {
		e.w.line(e.enablePos(ir.FeatureCoopMat), e.opts.CoopMat.enable())
		if e.opts.CoopMat == CoopMatChromium {
			// kc checks subgroup uniformity itself (coopmat.go).
			e.w.line(ir.Pos{}, "diagnostic(off, chromium.subgroup_matrix_uniformity);")
		} else {
			// naga predeclares the roles A, B and C.
			for _, w := range []string{"A", "B", "C"} {
				e.global.Reserve(w)
			}
		}
		for _, k := range e.kernels {
			e.coopCheck(k)
		}
	}
	e.declareNames()
	e.declareFuncs()
	e.structDecls()
	e.constDecls()
	for _, k := range e.kernels {
		e.kernelDecls(k)
	}
	for _, k := range e.kernels {
		e.w.blank()
		e.kernel(k)
	}
	for _, h := range e.helpers {
		e.w.blank()
		for _, l := range strings.Split(strings.TrimSuffix(h, "\n"), "\n") {
			e.w.line(ir.Pos{}, l)
		}
	}
}

// enablePos is the position of the module's enable directive for f.
func (e *emitter) enablePos(f ir.Feature) ir.Pos {
	for _, en := range e.m.Enables {
		if en.Feature == f {
			return en.Pos
		}
	}
	return ir.Pos{}
}
