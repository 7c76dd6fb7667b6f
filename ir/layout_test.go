package ir_test

import (
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestStructLayout checks struct layouts against WGSL's storage rules,
// worked out by hand from the spec's alignment and size table
// (https://www.w3.org/TR/WGSL/#alignment-and-size).
func TestStructLayout(t *testing.T) {
	src := `enable f16

struct Particle {
	pos vec3<f32>
	vel vec3<f32>
}

struct Packed {
	pos vec3<f32>
	mass f32
}

struct Mixed {
	a f32
	b vec2<f32>
	c vec3<f32>
	d [3]f32
	e vec4<u32>
	f Packed
	g u32
}

struct Half {
	a f16
	b vec3<f16>
	c f16
	d vec2<f16>
}

struct Arr {
	a [2]vec3<f32>
	b f32
}

kernel k(a read []Particle, b read []Packed, c read []Mixed, d read []Half, e read_write []Arr) workgroup(1) {
}
`
	m, err := parse.File("l.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		// vec3 has align 16, size 12: vel starts at 16, the struct rounds to 32.
		"Particle": "Particle: size 32, align 16; pos@0 vel@16",
		// an f32 packs into the vec3's last 4 bytes.
		"Packed": "Packed: size 16, align 16; pos@0 mass@12",
		// b: align 8 -> 8; c: align 16 -> 16 (ends 28); d: [3]f32 align 4 -> 28 (ends 40);
		// e: align 16 -> 48 (ends 64); f: Packed align 16 -> 64 (ends 80); g -> 80; size 96.
		"Mixed": "Mixed: size 96, align 16; a@0 b@8 c@16 d@28 e@48 f@64 g@80",
		// f16: b vec3<f16> align 8 -> 8 (ends 14); c -> 14; d vec2<f16> align 4 -> 16; size 20 rounded to 8 -> 24.
		"Half": "Half: size 24, align 8; a@0 b@8 c@14 d@16",
		// [2]vec3<f32> has stride 16, size 32; b at 32; size 48.
		"Arr": "Arr: size 48, align 16; a@0 b@32",
	}
	for _, s := range m.Structs {
		if got := ir.StructLayoutString(s); got != want[s.Name] {
			t.Errorf("layout\n got %s\nwant %s", got, want[s.Name])
		}
	}
	strides := map[string]int{"a": 32, "b": 16, "c": 96, "d": 24, "e": 48}
	for _, p := range ir.Buffers(m.Kernels[0]) {
		if got := ir.ElemStride(p.Type); got != strides[p.Name] {
			t.Errorf("stride of []%s = %d, want %d", p.Type, got, strides[p.Name])
		}
	}
	r := ir.Reflect(m)
	if len(r.Structs) != 5 || r.Structs[2].Fields[5].Offset != 64 || r.Structs[2].Fields[5].Type != "Packed" {
		t.Errorf("reflection of structs: %+v", r.Structs)
	}
}
