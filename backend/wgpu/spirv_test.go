//go:build !js

package wgpu

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

const saxpyGLSL = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { float a; uint n; } params;
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) buffer Y { float y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= params.n) return;
	y[i] = params.a * x[i] + y[i];
}
`

// spirvOf compiles GLSL compute source to SPIR-V words with glslang.
func spirvOf(t *testing.T, src string) []uint32 {
	t.Helper()
	glslang := kctest.Tool(t, "glslangValidator")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "k.comp"), filepath.Join(dir, "k.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(glslang, "-V", "--target-env", "vulkan1.1", "-S", "comp", "-o", out, in).CombinedOutput(); err != nil {
		t.Fatalf("glslang: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return words
}

// TestSPIRVWordCount loads SPIR-V through the driver's own descriptor (the
// binding's passes a byte count as the word count) and runs it.
func TestSPIRVWordCount(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	words := spirvOf(t, saxpyGLSL)
	p, err := d.Load(ctx, &backend.Artifact{Target: backend.SPIRV, Words: words, Entry: "main", Layout: saxpyLayout})
	if err != nil {
		t.Fatal(err)
	}
	n := 100 + r.IntN(1000)
	a := r.Float32()
	x, y := randF32(r, n), randF32(r, n)
	xb, _ := d.Upload(bytesOf(x))
	yb, _ := d.Upload(bytesOf(y))
	if err := d.Dispatch(p, saxpyArgs(a, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	checkSaxpy(t, got, a, x, y)

	// A truncated module is refused with naga's message, not a crash.
	_, err = d.Load(ctx, &backend.Artifact{Target: backend.SPIRV, Words: words[:len(words)/2], Entry: "main", Layout: saxpyLayout})
	if err == nil {
		t.Fatal("truncated SPIR-V loaded")
	}
	t.Log(err)
}
