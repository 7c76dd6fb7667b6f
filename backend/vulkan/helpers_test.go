//go:build linux && cgo

package vulkan

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "kc-vulkan-test-")
	if err != nil {
		os.Exit(m.Run())
	}
	// Keep the tests' pipeline caches out of the user's cache directory.
	os.Setenv(envCache, filepath.Join(tmp, "cache"))
	// Mesa warns on stderr without a private runtime directory.
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		xdg := filepath.Join(tmp, "xdg")
		if os.Mkdir(xdg, 0o700) == nil {
			os.Setenv("XDG_RUNTIME_DIR", xdg)
		}
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// testAdapter returns the Vulkan adapter the tests run on: KC_TEST_VULKAN
// (a name substring) when set, else the backend's policy among the Vulkan
// adapters. No Vulkan device is kctest.Missing.
func testAdapter(t testing.TB) backend.AdapterInfo {
	t.Helper()
	as, err := vulkanAdapters()
	if err != nil {
		kctest.Missing(t, "no Vulkan: %v", err)
	}
	if len(as) == 0 {
		kctest.Missing(t, "no Vulkan device (install mesa-vulkan-drivers for lavapipe)")
	}
	if sel := os.Getenv("KC_TEST_VULKAN"); sel != "" {
		for _, a := range as {
			if strings.Contains(strings.ToLower(a.Name), strings.ToLower(sel)) {
				return a
			}
		}
		t.Fatalf("KC_TEST_VULKAN=%q matches none of %v", sel, as)
	}
	return as[backend.Choose(as)]
}

// vulkanAdapters lists the adapters of the registered vulkan driver, with
// backend numbering.
func vulkanAdapters() ([]backend.AdapterInfo, error) {
	all, err := backend.Adapters(context.Background())
	var out []backend.AdapterInfo
	for _, a := range all {
		if a.Driver == "vulkan" {
			out = append(out, a)
		}
	}
	if len(out) == 0 && err != nil {
		return nil, err
	}
	return out, nil
}

// openTest opens a backend.Device on the test adapter, closed at cleanup.
func openTest(t testing.TB) *backend.Device {
	t.Helper()
	d, err := backend.OpenAdapter(context.Background(), testAdapter(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// glsl compiles a GLSL compute shader to SPIR-V words with glslangValidator
// for Vulkan 1.1.
func glsl(t testing.TB, src string) []uint32 {
	t.Helper()
	return glslEnv(t, src, "vulkan1.1")
}

// glslEnv compiles for a given --target-env.
func glslEnv(t testing.TB, src, env string) []uint32 {
	t.Helper()
	tool := kctest.Tool(t, "glslangValidator")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "k.comp"), filepath.Join(dir, "k.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "-V", "--target-env", env, "-o", out, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glslangValidator: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return words(b)
}

func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// artifact wraps SPIR-V words with a layout: params scalar names and
// buffers as "name:ro" or "name:rw" with 4-byte elements.
func artifact(words []uint32, kernel string, wg int, params []string, bufs ...string) *backend.Artifact {
	a := &backend.Artifact{Target: backend.SPIRV, Words: words, Entry: "main"}
	a.Layout.Kernel = kernel
	a.Layout.Workgroup = [3]int{wg, 1, 1}
	if len(params) > 0 {
		a.Layout.Params = (4*len(params) + 15) &^ 15
		a.Layout.ParamNames = params
	}
	for i, b := range bufs {
		name, acc, _ := strings.Cut(b, ":")
		a.Layout.Buffers = append(a.Layout.Buffers, backend.BufferSlot{Name: name, Binding: i + 1, ReadOnly: acc == "ro", Stride: 4})
	}
	return a
}

func u32bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesU32(b []byte) []uint32 { return words(b) }

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// saxpyGLSL is y = a*x + y, the hand-written kernel of the driver's own
// tests (hazards, mapped buffers); the contract suite uses kc's corpus.
const saxpyGLSL = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { float a; uint n; } p;
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 2) buffer Y { float y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i >= p.n) return;
	y[i] = p.a * x[i] + y[i];
}
`
