package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// layoutSrc holds layouts that need padding in Go: f16 and vec2 gaps, a
// vec3 tail, a nested struct, an array of vec3 (stride 16, size 12), an
// array of f16 followed by a 16-aligned vector, and a struct used only in
// function memory (holding a bool), which gets no Go type.
const layoutSrc = `enable f16

struct Inner {
	a f16
	v vec3<f16>
	b vec2<f32>
}

struct Outer {
	x f32
	in Inner
	vs [3]vec3<f32>
	h [3]f16
	w vec4<u32>
	tail vec3<i32>
}

struct Local {
	ok bool
	n u32
}

kernel layouts(o read_write []Outer, p read_write []Inner) workgroup(1) {
	var l = Local{ok: true}
	o[0].x = f32(l.n)
}
`

// layoutInputs is the kernels of testdata/kernels-next and layoutSrc.
func layoutInputs(t *testing.T) []Input {
	var ins []Input
	for _, c := range kctest.NextCases(t) {
		rel, err := filepath.Rel(kctest.Root(t), c.Path)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Path: filepath.ToSlash(rel), Src: c.Src})
	}
	return append(ins, Input{Path: "layouts.kc", Src: []byte(layoutSrc)})
}

// TestStructLayoutGo generates the Go file for the kernels of
// testdata/kernels-next and layoutSrc, builds a program over it with the
// Go compiler, and checks that unsafe.Sizeof and unsafe.Offsetof of every
// generated struct and field (and the size of each array element) equal
// ir's reflection (ir.ReflectStruct, ir.ElemStride): the bytes of a Go
// []Particle are what the kernels read.
func TestStructLayoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module (-short)")
	}
	ins := layoutInputs(t)
	code, err := Generate(ins, Options{Package: "kernels"})
	if err != nil {
		t.Fatal(err)
	}
	var prog, want strings.Builder
	prog.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"unsafe\"\n\n\t\"example.com/user/kernels\"\n)\n\nfunc main() {\n")
	structs := 0
	for _, in := range ins {
		m, err := parse.File(in.Path, in.Src)
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(m); err != nil {
			t.Fatal(err)
		}
		ss, err := bufferStructs(m, in.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, so := range ss {
			structs++
			r := ir.ReflectStruct(so.s)
			fmt.Fprintf(&prog, "\t{\n\t\tvar v kernels.%s\n\t\tfmt.Println(%q, unsafe.Sizeof(v))\n", so.goName, so.goName)
			fmt.Fprintf(&want, "%s %d\n", so.goName, r.Size)
			for i, f := range r.Fields {
				g := so.fields[i]
				fmt.Fprintf(&prog, "\t\tfmt.Println(%q, unsafe.Offsetof(v.%s), unsafe.Sizeof(v.%s))\n", so.goName+"."+g, g, g)
				fmt.Fprintf(&want, "%s.%s %d %d\n", so.goName, g, f.Offset, f.Size)
				if a, ok := so.s.Fields[i].Type.(*ir.Array); ok {
					fmt.Fprintf(&prog, "\t\tfmt.Println(%q, unsafe.Sizeof(v.%s[0]))\n", so.goName+"."+g+"[0]", g)
					fmt.Fprintf(&want, "%s.%s[0] %d\n", so.goName, g, ir.ElemStride(a.Elem))
				}
			}
			prog.WriteString("\t}\n")
		}
	}
	prog.WriteString("}\n")
	if structs < 3 {
		t.Fatalf("only %d structs in buffers: want Particle, Inner, Outer at least", structs)
	}
	if strings.Contains(string(code), "type Local struct") {
		t.Error("struct Local, used in no buffer, got a Go type")
	}
	dir := tempModule(t, "example.com/user")
	if err := os.MkdirAll(filepath.Join(dir, "kernels"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "kernels", "kernels_kc.go"), code)
	writeFile(t, filepath.Join(dir, "main.go"), []byte(prog.String()))
	got := goCmd(t, dir, "run", ".")
	if got != want.String() {
		t.Errorf("Go layout differs from ir's reflection:\ngot:\n%swant:\n%s\ngenerated:\n%s", got, want.String(), code)
	}
}

// TestStructGoSpelling checks the Go type of boids_struct's Particle and
// of a padded array field, line by line.
func TestStructGoSpelling(t *testing.T) {
	code, err := Generate(layoutInputs(t), Options{Package: "kernels"})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(code), "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, w := range []string{
		"type Particle struct {",
		"Pos [3]float32 // offset 0: pos vec3<f32>",
		"_ [4]byte",
		"Vel [3]float32 // offset 16: vel vec3<f32>",
		"Mass float32 // offset 28: mass f32",
		"Vs [3]struct {",
		"V [3]float32",
		"} // offset 32: vs [3]vec3<f32>",
		"H [3]uint16 // offset 80: h [3]f16",
		"_ [10]byte",
	} {
		if !have[w] {
			t.Errorf("missing line %q in\n%s", w, code)
		}
	}
}

// TestStructGoNameClash: a struct's Go name must not be a kernel's, and
// two fields must not share a Go name.
func TestStructGoNameClash(t *testing.T) {
	src := "struct Saxpy {\n\tx f32\n}\n\nkernel saxpy(y read_write []Saxpy) workgroup(1) {\n\ty[0].x = 1.0\n}\n"
	_, err := Generate([]Input{{Path: "s.kc", Src: []byte(src)}}, Options{Package: "k"})
	want := "s.kc:1:1: struct Saxpy: its Go name Saxpy is taken by kernel saxpy at s.kc:5:1"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	src = "struct S {\n\ta_b f32\n\taB f32\n}\n\nkernel k(y read_write []S) workgroup(1) {\n\ty[0].aB = 1.0\n}\n"
	_, err = Generate([]Input{{Path: "f.kc", Src: []byte(src)}}, Options{Package: "k"})
	want = "f.kc:3:2: struct S: field aB has the Go name AB, as field a_b has"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
