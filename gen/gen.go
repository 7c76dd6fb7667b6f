// Package gen writes the Go file behind `kc gen`: every kernel of a set of
// .kc files compiled for every target and embedded, with a typed launcher
// per kernel (see package precompiled), and a Go struct of the same layout
// for every struct a kernel's buffer holds (structs.go). The output is
// gofmt'd, starts with the standard "Code generated ... DO NOT EDIT." line
// and depends only on its inputs: no version, no timestamp, byte-identical
// on every run.
package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Input is one .kc source file.
type Input struct {
	Path string // as given on the command line; used in messages and comments
	Src  []byte
}

// Options control Generate.
type Options struct {
	Package string            // Go package name of the generated file (required)
	Defines map[string]string // compile-time constants, as -D NAME=VALUE
}

// Generate compiles every kernel of the inputs and returns the Go file.
// Errors in the inputs come back as positioned diagnostics; nothing is
// returned with them.
func Generate(inputs []Input, opts Options) ([]byte, error) {
	if !token.IsIdentifier(opts.Package) {
		return nil, fmt.Errorf("gen: package name %q is not a Go identifier", opts.Package)
	}
	var kernels []kernelOut
	var structs []structOut
	var errs ir.ErrorList
	for _, in := range inputs {
		ks, ss, err := compileFile(in, opts.Defines)
		if err != nil {
			errs = appendErr(errs, err)
			continue
		}
		kernels = append(kernels, ks...)
		structs = append(structs, ss...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if err := checkNames(kernels); err != nil {
		return nil, err
	}
	structs, err := mergeStructs(kernels, structs)
	if err != nil {
		return nil, err
	}
	src := render(opts.Package, inputs, kernels, structs)
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("gen: generated code does not format (a kc bug): %v", err)
	}
	return out, nil
}

func appendErr(errs ir.ErrorList, err error) ir.ErrorList {
	switch e := err.(type) {
	case ir.ErrorList:
		return append(errs, e...)
	case *ir.Error:
		return append(errs, e)
	}
	return append(errs, &ir.Error{Msg: err.Error()})
}

// kernelOut is one compiled kernel, ready to render.
type kernelOut struct {
	file   string
	k      *ir.Kernel
	goName string // exported launcher name
	spec   string
	// the emitters' records, nil where the target cannot express the kernel
	wgsl, spirv, hlsl *emit.Artifact
}

func compileFile(in Input, defs map[string]string) ([]kernelOut, []structOut, error) {
	m, err := parse.File(in.Path, in.Src)
	if err != nil {
		return nil, nil, err
	}
	used := map[string]string{}
	for _, c := range m.Consts {
		if v, ok := defs[c.Name]; ok {
			used[c.Name] = v
		}
	}
	if len(used) > 0 {
		if err := ir.Specialize(m, used); err != nil {
			return nil, nil, err
		}
	}
	if err := ir.Check(m); err != nil {
		return nil, nil, err
	}
	var out []kernelOut
	for _, k := range m.Kernels {
		ko, err := compileKernel(m, k, specString(used))
		if err != nil {
			return nil, nil, err
		}
		ko.file = in.Path
		out = append(out, ko)
	}
	ss, err := bufferStructs(m, in.Path)
	return out, ss, err
}

func specString(defs map[string]string) string {
	keys := make([]string, 0, len(defs))
	for k := range defs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + defs[k]
	}
	return strings.Join(keys, ",")
}

// compileKernel emits every target. A target that cannot express the
// kernel (an *ir.UnsupportedError) is left out; any other error fails.
func compileKernel(m *ir.Module, k *ir.Kernel, spec string) (kernelOut, error) {
	ko := kernelOut{k: k, goName: exportedName(k.Name), spec: spec}
	var err error
	if ko.wgsl, err = wgsl.Emit(m, wgsl.Options{Kernel: k.Name}); err != nil && !unsupported(err) {
		return ko, err
	}
	if ko.spirv, err = spirv.Emit(m, spirv.Options{Kernel: k.Name}); err != nil && !unsupported(err) {
		return ko, err
	}
	if ko.hlsl, err = hlsl.Emit(m, hlsl.Options{Kernel: k.Name}); err != nil && !unsupported(err) {
		return ko, err
	}
	if ko.wgsl == nil && ko.spirv == nil {
		return ko, ir.Errorf(k.Pos, "kernel %s: no target can express it", k.Name)
	}
	return ko, nil
}

func unsupported(err error) bool {
	_, ok := err.(*ir.UnsupportedError)
	return ok
}

// checkNames rejects two kernels whose launchers would share a Go name.
func checkNames(ks []kernelOut) error {
	seen := map[string]kernelOut{}
	var errs ir.ErrorList
	for _, k := range ks {
		if prev, ok := seen[k.goName]; ok {
			errs = append(errs, ir.Errorf(k.k.Pos, "kernel %s: its Go name %s is taken by kernel %s at %s",
				k.k.Name, k.goName, prev.k.Name, prev.k.Pos))
			continue
		}
		seen[k.goName] = k
	}
	return errs.Err()
}

// exportedName turns a kernel name into an exported Go name: matmul_tiled
// becomes MatmulTiled.
func exportedName(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		s = "K" + s
	}
	return s
}

// reservedArgs are names the launcher signature already uses.
var reservedArgs = map[string]bool{
	"ctx": true, "dev": true, "groups": true, "math": true, "backend": true,
	"precompiled": true, "context": true, "ir": true,
}

// argName makes a .kc parameter name safe as a Go parameter name.
func argName(name string) string {
	if token.IsKeyword(name) || reservedArgs[name] {
		return name + "_"
	}
	return name
}

var goScalar = map[ir.Scalar]string{ir.U32: "uint32", ir.I32: "int32", ir.F32: "float32"}

func paramWord(p *ir.Param) string {
	n := argName(p.Name)
	switch p.Type {
	case ir.F32:
		return "math.Float32bits(" + n + ")"
	case ir.I32:
		return "uint32(" + n + ")"
	}
	return n
}

func render(pkg string, inputs []Input, ks []kernelOut, ss []structOut) []byte {
	var b bytes.Buffer
	var files []string
	for _, in := range inputs {
		files = append(files, filepath.ToSlash(in.Path))
	}
	fmt.Fprintf(&b, "// Code generated by kc. DO NOT EDIT.\n// Sources: %s\n\n", strings.Join(files, ", "))
	fmt.Fprintf(&b, "package %s\n\nimport (\n\"context\"\n", pkg)
	if needsMath(ks) {
		b.WriteString("\"math\"\n")
	}
	b.WriteString("\n\"github.com/kcgo/kc/backend\"\n\"github.com/kcgo/kc/ir\"\n")
	b.WriteString("\"github.com/kcgo/kc/precompiled\"\n)\n")
	renderStructs(&b, ss)
	for _, k := range ks {
		renderKernel(&b, k)
	}
	return b.Bytes()
}

func needsMath(ks []kernelOut) bool {
	for _, k := range ks {
		for _, p := range k.k.Params {
			if p.Kind == ir.ScalarParam && p.Type == ir.F32 {
				return true
			}
		}
	}
	return false
}

func renderKernel(b *bytes.Buffer, k kernelOut) {
	name := k.goName
	fmt.Fprintf(b, "\n// %sKernel is kernel %s of %s, compiled for every target kc has.\n", name, k.k.Name, filepath.ToSlash(k.file))
	fmt.Fprintf(b, "var %sKernel = &precompiled.Kernel{\n", name)
	fmt.Fprintf(b, "Name: %q,\nSource: %q,\nSpec: %q,\n", k.k.Name, posString(k.file, k.k.Pos), k.spec)
	renderReflection(b, ir.ReflectKernel(k.k))
	if a := k.wgsl; a != nil {
		fmt.Fprintf(b, "WGSL: %s,\n", goString(a.Code))
		renderEntry(b, "WGSLEntry", k.k, a)
	}
	if a := k.spirv; a != nil {
		b.WriteString("SPIRV: []uint32{")
		for i, w := range a.Words {
			if i%8 == 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(b, "0x%08x, ", w)
		}
		b.WriteString("\n},\n")
		renderEntry(b, "SPIRVEntry", k.k, a)
	}
	if a := k.hlsl; a != nil {
		fmt.Fprintf(b, "HLSL: %s,\n", goString(a.Code))
		renderEntry(b, "HLSLEntry", k.k, a)
	}
	b.WriteString("}\n")
	renderLauncher(b, k)
}

// renderEntry writes the entry point as the target spells it, where that
// is not the kernel's name (a keyword or reserved word of the target).
func renderEntry(b *bytes.Buffer, field string, k *ir.Kernel, a *emit.Artifact) {
	if e := a.Entries[0].Name; e != k.Name {
		fmt.Fprintf(b, "%s: %q,\n", field, e)
	}
}

func posString(file string, p ir.Pos) string {
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(file), p.Line, p.Col)
}

// renderReflection writes r as a Go composite literal (%#v spells the
// leaf structs; the Params pointer needs its & written out).
func renderReflection(b *bytes.Buffer, r ir.KernelReflection) {
	fmt.Fprintf(b, "Reflection: ir.KernelReflection{\nName: %q,\nPos: %q,\nWorkgroup: %#v,\nFeatures: %#v,\n", r.Name, r.Pos, r.Workgroup, r.Features)
	if p := r.Params; p != nil {
		fmt.Fprintf(b, "Params: &ir.ParamsReflection{Group: %d, Binding: %d, Size: %d, Fields: []ir.FieldReflection{\n", p.Group, p.Binding, p.Size)
		for _, f := range p.Fields {
			fmt.Fprintf(b, "%s,\n", elem(f))
		}
		b.WriteString("}")
		if p.NumWorkgroups != nil {
			// the hidden num_workgroups field the backend fills
			fmt.Fprintf(b, ", NumWorkgroups: new(%d)", *p.NumWorkgroups)
		}
		b.WriteString("},\n")
	}
	b.WriteString("Buffers: []ir.BufferReflection{\n")
	for _, x := range r.Buffers {
		fmt.Fprintf(b, "%s,\n", elem(x))
	}
	b.WriteString("},\n")
	if len(r.Shared) > 0 {
		b.WriteString("Shared: []ir.SharedReflection{\n")
		for _, x := range r.Shared {
			fmt.Fprintf(b, "%s,\n", elem(x))
		}
		b.WriteString("},\n")
	}
	if len(r.CoopMats) > 0 {
		// the device check at Load needs them (element types, shapes)
		b.WriteString("CoopMats: []ir.CoopMatReflection{\n")
		for _, x := range r.CoopMats {
			fmt.Fprintf(b, "%s,\n", elem(x))
		}
		b.WriteString("},\n")
	}
	b.WriteString("},\n")
}

// elem spells a struct as an element of a slice literal: %#v without the
// type name, which the slice's type gives (gofmt -s style).
func elem(x any) string {
	s := fmt.Sprintf("%#v", x)
	return s[strings.IndexByte(s, '{'):]
}

// goString spells text as a raw string literal when it can, else quoted.
func goString(text []byte) string {
	s := string(text)
	if !strings.Contains(s, "`") && !strings.Contains(s, "\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func renderLauncher(b *bytes.Buffer, k kernelOut) {
	var sig, words, bufs []string
	var doc []string
	for _, p := range k.k.Params {
		n := argName(p.Name)
		if p.Kind == ir.ScalarParam {
			sig = append(sig, n+" "+goScalar[p.Type.(ir.Scalar)])
			words = append(words, paramWord(p))
			continue
		}
		sig = append(sig, n+" backend.View")
		bufs = append(bufs, n)
		doc = append(doc, fmt.Sprintf("//   - %s: %s []%s (binding %d)", n, p.Access, ir.TypeString(p.Type), ir.BufferBinding(k.k, p)))
	}
	s := k.k.Size
	fmt.Fprintf(b, "\n// %s records kernel %s (%s) into dev's current scope over groups\n", k.goName, k.k.Name, posString(k.file, k.k.Pos))
	fmt.Fprintf(b, "// workgroups of %dx%dx%d invocations, loading its pipeline on first use.\n", s[0], s[1], s[2])
	if len(doc) > 0 {
		b.WriteString("// Buffers:\n" + strings.Join(doc, "\n") + "\n")
	}
	fmt.Fprintf(b, "func %s(ctx context.Context, dev *backend.Device, groups [3]uint32", k.goName)
	for _, a := range sig {
		b.WriteString(", " + a)
	}
	b.WriteString(") error {\n")
	fmt.Fprintf(b, "return %sKernel.Dispatch(ctx, dev, backend.Args{\n", k.goName)
	if len(words) > 0 {
		fmt.Fprintf(b, "Params: []uint32{%s},\n", strings.Join(words, ", "))
	}
	if len(bufs) > 0 {
		fmt.Fprintf(b, "Buffers: []backend.View{%s},\n", strings.Join(bufs, ", "))
	}
	b.WriteString("}, groups)\n}\n")
}
