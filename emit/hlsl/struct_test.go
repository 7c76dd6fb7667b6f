package hlsl

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// spvLayout is what a SPIR-V module says about the layout of its structs:
// per struct name, the Offset of each named member (of the struct types
// that carry offsets), and the ArrayStride of runtime arrays of each.
type spvLayout struct {
	offsets map[string]map[string]int // struct -> member -> offset
	strides map[string]int            // struct -> stride of a runtime array of it
}

// readLayout decodes the names, Offset and ArrayStride decorations of a
// SPIR-V module.
func readLayout(t *testing.T, words []uint32) spvLayout {
	names := map[uint32]string{}
	members := map[uint32]map[uint32]string{}
	offsets := map[uint32]map[uint32]int{}
	strides := map[uint32]int{}
	runtime := map[uint32]uint32{} // runtime array id -> element type id
	str := func(ws []uint32) string {
		var b []byte
		for _, w := range ws {
			for i := 0; i < 4; i++ {
				c := byte(w >> (8 * i))
				if c == 0 {
					return string(b)
				}
				b = append(b, c)
			}
		}
		return string(b)
	}
	for i := 5; i < len(words); {
		n, op := int(words[i]>>16), words[i]&0xffff
		if n == 0 || i+n > len(words) {
			t.Fatalf("bad SPIR-V instruction at word %d", i)
		}
		in := words[i+1 : i+n]
		switch op {
		case 5: // OpName
			names[in[0]] = str(in[1:])
		case 6: // OpMemberName
			if members[in[0]] == nil {
				members[in[0]] = map[uint32]string{}
			}
			members[in[0]][in[1]] = str(in[2:])
		case 72: // OpMemberDecorate
			if in[2] == 35 { // Offset
				if offsets[in[0]] == nil {
					offsets[in[0]] = map[uint32]int{}
				}
				offsets[in[0]][in[1]] = int(in[3])
			}
		case 71: // OpDecorate
			if in[1] == 6 { // ArrayStride
				strides[in[0]] = int(in[2])
			}
		case 29: // OpTypeRuntimeArray
			runtime[in[0]] = in[1]
		}
		i += n
	}
	out := spvLayout{offsets: map[string]map[string]int{}, strides: map[string]int{}}
	for id, offs := range offsets {
		m := map[string]int{}
		for idx, off := range offs {
			m[members[id][idx]] = off
		}
		out.offsets[names[id]] = m
	}
	for arr, elem := range runtime {
		out.strides[names[elem]] = strides[arr]
	}
	return out
}

// TestStructLayoutGlslang compiles every kernel that has structs in buffers
// (testdata/lang.kc and issue 12's kernels) with glslang and checks the
// Offset decorations of every kc field, and the stride of the buffer's
// runtime array, against ir.FieldOffsets and ir.ElemStride: the padding
// members make glslang's layout WGSL's.
func TestStructLayoutGlslang(t *testing.T) {
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	var mods []*ir.Module
	mods = append(mods, loadKC(t, "lang.kc"))
	for _, name := range issue12Kernels {
		mods = append(mods, issue12Case(t, name).Module(t))
	}
	checked := 0
	for _, m := range mods {
		for _, k := range m.Kernels {
			var structs []*ir.Struct
			for _, p := range ir.Buffers(k) {
				if s, ok := p.Type.(*ir.Struct); ok {
					structs = append(structs, s)
				}
			}
			if len(structs) == 0 {
				continue
			}
			a, err := Emit(m, Options{Kernel: k.Name})
			if err != nil {
				t.Fatal(err)
			}
			spv, err := CompileSPIRV(context.Background(), a, k.Name, CompileOptions{Compiler: Glslang})
			if err != nil {
				t.Fatalf("%s: %v", k.Name, err)
			}
			lay := readLayout(t, spv.Words)
			seen := map[*ir.Struct]bool{}
			var check func(s *ir.Struct)
			check = func(s *ir.Struct) {
				if seen[s] {
					return
				}
				seen[s] = true
				got := lay.offsets[structName(s)]
				for i, off := range ir.FieldOffsets(s) {
					name := fieldNames(s)[i]
					if g, ok := got[name]; !ok || g != off {
						t.Errorf("%s: %s.%s at offset %d (found %v), want %d (%s)", filepath.Base(m.File), s.Name, name, g, ok, off, ir.StructLayoutString(s))
					}
					if inner, ok := s.Fields[i].Type.(*ir.Struct); ok {
						check(inner)
					}
				}
				checked++
			}
			for _, s := range structs {
				check(s)
				if g := lay.strides[structName(s)]; g != ir.ElemStride(s) {
					t.Errorf("%s: []%s has stride %d, want %d", k.Name, s.Name, g, ir.ElemStride(s))
				}
			}
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d structs, want Particle, Mixed and Inner at least", checked)
	}
}

// TestStructFieldVec3ArrayRefused: an array of 3-component vectors in a
// struct has no layout every HLSL compiler reads as WGSL's; Emit says so
// at the field.
func TestStructFieldVec3ArrayRefused(t *testing.T) {
	m := loadSrc(t, "v3.kc", `struct S {
	a f32
	v [4]vec3<f32>
}

kernel k(s read_write []S) workgroup(1) {
	s[0].a = 1.0
}
`)
	_, err := Emit(m, Options{})
	want := "v3.kc:3:2: struct field S.v of type [4]vec3<f32> (an array of 3-component vectors has no layout that every HLSL compiler reads as WGSL's stride of 16) is not supported by target hlsl"
	var ue *ir.UnsupportedError
	if !errors.As(err, &ue) || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// loadSrc parses and checks a .kc source held in the test.
func loadSrc(t *testing.T, name, src string) *ir.Module {
	t.Helper()
	m, err := parse.File(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	return m
}
