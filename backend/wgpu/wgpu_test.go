//go:build !js

package wgpu

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

var (
	xdgOnce sync.Once
	ctx     = context.Background()
)

// openDevice opens the wgpu device on lavapipe's Vulkan adapter (or the
// policy's wgpu choice elsewhere); it reports kctest.Missing when there is
// none.
func openDevice(t testing.TB) *backend.Device {
	t.Helper()
	xdgOnce.Do(func() {
		if os.Getenv("XDG_RUNTIME_DIR") == "" {
			dir, err := os.MkdirTemp("", "kc-xdg")
			if err == nil && os.Chmod(dir, 0o700) == nil {
				os.Setenv("XDG_RUNTIME_DIR", dir)
			}
		}
	})
	as, _ := backend.Adapters(ctx)
	var vk []backend.AdapterInfo
	for _, a := range as {
		if a.Driver == "wgpu" && a.API == "Vulkan" {
			vk = append(vk, a)
		}
	}
	if len(vk) == 0 {
		kctest.Missing(t, "no wgpu Vulkan adapter (install mesa-vulkan-drivers for lavapipe)")
	}
	pick := vk[backend.Choose(vk)].Index
	if sel := os.Getenv(backend.EnvDevice); sel != "" {
		i, err := backend.Select(as, sel)
		if err != nil {
			t.Fatal(err)
		}
		pick = i
	}
	d, err := backend.OpenAdapter(ctx, as[pick])
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

// rng returns a fresh random source and logs its seed.
func rng(t testing.TB) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

const saxpyWGSL = `
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn saxpy(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i >= params.n) { return; }
	y[i] = params.a * x[i] + y[i];
}
`

var saxpyLayout = ir.KernelReflection{
	Name: "saxpy",
	Params: &ir.ParamsReflection{Size: 16, Fields: []ir.FieldReflection{
		{Name: "a", Type: "f32", Offset: 0, Size: 4}, {Name: "n", Type: "u32", Offset: 4, Size: 4}}},
	Buffers: []ir.BufferReflection{
		{Name: "x", Binding: 1, Access: "read", Stride: 4},
		{Name: "y", Binding: 2, Access: "read_write", Stride: 4},
	},
	Workgroup: [3]int{64, 1, 1},
}

func art(t emit.Target, code string, words []uint32, entry string, l ir.KernelReflection) *emit.Artifact {
	return &emit.Artifact{Target: t, Code: []byte(code), Words: words, Entries: []emit.Entry{{Kernel: l.Name, Name: entry, Reflection: l}}}
}

func loadSaxpy(t testing.TB, d *backend.Device) *backend.Pipeline {
	t.Helper()
	p, err := d.Load(ctx, art(emit.WGSL, saxpyWGSL, nil, "saxpy", saxpyLayout))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func bytesOf(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func randF32(r *rand.Rand, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = r.Float32()*2 - 1
	}
	return xs
}

func saxpyArgs(a float32, n int, x, y backend.View) backend.Args {
	return backend.Args{Params: []uint32{math.Float32bits(a), uint32(n)}, Buffers: []backend.View{x, y}}
}

func groupsFor(n int) [3]uint32 { return backend.Groups(uint32((n + 63) / 64)) }

func checkSaxpy(t *testing.T, got []byte, a float32, x, y []float32) {
	t.Helper()
	g := f32s(got)
	for i := range x {
		want := a*x[i] + y[i]
		if g[i] != want && math.Abs(float64(g[i]-want)) > 1e-6 {
			t.Fatalf("y[%d] = %v, want %v", i, g[i], want)
		}
	}
}

// TestListAdapters logs every adapter (for the H200 script's record).
func TestListAdapters(t *testing.T) {
	as, err := backend.Adapters(ctx)
	if err != nil {
		t.Log(err)
	}
	for _, a := range as {
		t.Logf("%v  %s  f16=%v subgroups=%v timestamps=%v coopmat=%d", a, a.DriverInfo, a.F16, a.Subgroups, a.Timestamps, len(a.CoopMat))
	}
}

func TestBadShader(t *testing.T) {
	d := openDevice(t)
	_, err := d.Load(ctx, art(emit.WGSL, "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }", nil, "main", ir.KernelReflection{Name: "main", Workgroup: [3]int{1, 1, 1}}))
	if err == nil || !strings.Contains(err.Error(), "naga") {
		t.Fatalf("invalid WGSL: %v, want naga's error", err)
	}
	t.Log(err)
	_, err = d.Load(ctx, art(emit.SPIRV, "", []uint32{0x07230203, 0x10000, 0, 10, 0, 0xdead}, "main", ir.KernelReflection{Name: "main", Workgroup: [3]int{1, 1, 1}}))
	if err == nil {
		t.Fatal("invalid SPIR-V loaded")
	}
	t.Log(err)
}

// TestLoopBudgetLimit: a wgpu adapter on llvmpipe (lavapipe) has
// Limits.MaxLoopIterations 65535, the budget internal/difftest's
// TestLoopBudget measures; any other adapter none.
func TestLoopBudgetLimit(t *testing.T) {
	info := openDevice(t).Info()
	want := 0
	if strings.Contains(info.DriverInfo, "llvmpipe") {
		want = backend.LLVMPipeLoopIterations
	}
	if got := info.Limits.MaxLoopIterations; got != want {
		t.Fatalf("%s (%s): MaxLoopIterations %d, want %d", info.Name, info.DriverInfo, got, want)
	}
	t.Logf("%s (%s): MaxLoopIterations %d", info.Name, info.DriverInfo, info.Limits.MaxLoopIterations)
}
