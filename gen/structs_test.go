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

// issue12Kernels are the corpus kernels written for issue 12's constructs
// (structs, helper functions, switch, constant arrays, precise).
var issue12Kernels = map[string]bool{"blur_const": true, "boids_struct": true, "helpers": true, "precise_diff": true, "switch_ops": true}

// layoutInputs is issue12Kernels and layoutSrc.
func layoutInputs(t *testing.T) []Input {
	var ins []Input
	for _, c := range kctest.Cases(t) {
		if !issue12Kernels[c.Name] {
			continue
		}
		rel, err := filepath.Rel(kctest.Root(t), c.Path)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, Input{Path: filepath.ToSlash(rel), Src: c.Src})
	}
	return append(ins, Input{Path: "layouts.kc", Src: []byte(layoutSrc)})
}

// TestStructLayoutGo generates the Go file for the kernels of
// issue12Kernels and layoutSrc, builds a program over it with the
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

// structRunMain is a program over the generated package of boids_struct:
// it fills a Go []Particle, uploads its bytes as they are, runs the kernel
// and checks every particle against a float64 reference.
const structRunMain = `package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"unsafe"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"

	"example.com/user/kernels"
)

func main() {
	device := flag.String("device", "", "adapter selector")
	flag.Parse()
	if err := run(*device); err != nil {
		fmt.Fprintln(os.Stderr, "boids:", err)
		os.Exit(1)
	}
}

func run(device string) error {
	ctx := context.Background()
	dev, err := backend.Open(ctx, device)
	if err != nil {
		return err
	}
	defer dev.Close()
	n := 130 + rand.IntN(100)
	ps := make([]kernels.Particle, n)
	for i := range ps {
		p := &ps[i]
		for k := 0; k < 3; k++ {
			p.Pos[k], p.Vel[k] = rand.Float32()*2-1, rand.Float32()*2-1
		}
		p.Mass = rand.Float32() + 1
	}
	size := int(unsafe.Sizeof(ps[0]))
	buf, err := dev.Upload(unsafe.Slice((*byte)(unsafe.Pointer(&ps[0])), n*size))
	if err != nil {
		return err
	}
	const coh = 0.25
	if err := kernels.BoidsStruct(ctx, dev, backend.Groups(uint32((n+63)/64)), uint32(n), coh, buf.View()); err != nil {
		return err
	}
	raw, err := dev.Read(ctx, buf.View())
	if err != nil {
		return err
	}
	got := make([]kernels.Particle, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), n*size), raw)
	worst := 0.0
	for g := 0; g*64 < n; g++ {
		var center [3]float64
		weight := 0.0
		for i := 64 * g; i < min(64*g+64, n); i++ {
			for k := range center {
				center[k] += float64(ps[i].Pos[k]) * float64(ps[i].Mass)
			}
			weight += float64(ps[i].Mass)
		}
		for i := 64 * g; i < min(64*g+64, n); i++ {
			for k := 0; k < 3; k++ {
				vel := float64(ps[i].Vel[k]) + (center[k]/weight-float64(ps[i].Pos[k]))*coh
				pos := float64(ps[i].Pos[k]) + vel*0.01
				worst = max(worst, math.Abs(float64(got[i].Vel[k])-vel), math.Abs(float64(got[i].Pos[k])-pos))
			}
			worst = max(worst, math.Abs(float64(got[i].Mass-ps[i].Mass)))
		}
	}
	fmt.Printf("boids_struct n=%d on %s (%s): max abs error %.3g\n", n, dev.Info().Name, dev.Info().Driver, worst)
	if worst > 1e-5 {
		return fmt.Errorf("max abs error %g exceeds 1e-5", worst)
	}
	fmt.Println("ok")
	return nil
}
`

// TestStructBufferRun runs boids_struct from a user's program through the
// generated Particle type: a Go []Particle uploaded as raw bytes must be
// what the kernel reads, and what it writes must read back as Particles
// (float64 reference, bound 1e-5: |values| < 3, 64-term sums of products
// below 2 divided by a weight of at least 64). It runs on the wgpu driver,
// the one path that lowers structs on this branch.
func TestStructBufferRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module (-short)")
	}
	src := corpusFile(t, "boids_struct.kc")
	code, err := Generate([]Input{{Path: "boids_struct.kc", Src: src}}, Options{Package: "kernels"})
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t, "example.com/user")
	if err := os.MkdirAll(filepath.Join(dir, "kernels"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "kernels", "kernels_kc.go"), code)
	writeFile(t, filepath.Join(dir, "main.go"), []byte(structRunMain))
	bin := buildProgram(t, dir, "boids")
	runProgram(t, bin, "boids_struct through the generated Particle", "no GPU adapters found", func(out string) bool { return strings.Contains(out, "\nok\n") }, "-device", "wgpu")
}

// TestStructGoShared: .kc files share no declarations, so a struct used by
// kernels of two files is declared in each; alike, it gets one Go type,
// different, its second declaration is an error.
func TestStructGoShared(t *testing.T) {
	file := func(name, fields string) Input {
		return Input{Path: name + ".kc", Src: []byte("struct P {\n" + fields + "}\n\nkernel " + name + "(y read_write []P) workgroup(1) {\n\ty[0].x = 1.0\n}\n")}
	}
	code, err := Generate([]Input{file("a", "\tx f32\n\tv vec3<f32>\n"), file("b", "\tx f32\n\tv vec3<f32>\n")}, Options{Package: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(code), "type P struct"); n != 1 {
		t.Errorf("%d declarations of P, want 1:\n%s", n, code)
	}
	_, err = Generate([]Input{file("a", "\tx f32\n\tv vec3<f32>\n"), file("b", "\tx f32\n\tv vec2<f32>\n")}, Options{Package: "k"})
	want := "b.kc:1:1: struct P: its Go name P is taken by struct P at a.kc:1:1"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
