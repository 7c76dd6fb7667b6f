//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
)

// addkGLSL adds the param k to every element: dependent dispatches.
const addkGLSL = `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint k; uint n; } p;
layout(set = 0, binding = 1) buffer Y { uint y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) y[i] = y[i] * 3u + p.k;
}
`

// TestAdapters checks what the driver reports about the test device.
func TestAdapters(t *testing.T) {
	a := testAdapter(t)
	t.Logf("%s: %s, %s, %s, subgroup %d (%d..%d), f16 %v, timestamps %v (%g ns), coopmat %d shapes, ext %v",
		a.Name, a.API, a.Type, a.DriverInfo, a.SubgroupSize, a.SubgroupMin, a.SubgroupMax, a.F16, a.Timestamps, a.TimestampNs, len(a.CoopMat), a.Extensions)
	if a.Driver != "vulkan" || !strings.HasPrefix(a.API, "Vulkan 1.") {
		t.Errorf("driver %q API %q", a.Driver, a.API)
	}
	if a.SubgroupSize <= 0 || a.SubgroupMin > a.SubgroupSize || a.SubgroupSize > a.SubgroupMax {
		t.Errorf("subgroup sizes %d (%d..%d)", a.SubgroupSize, a.SubgroupMin, a.SubgroupMax)
	}
	l := a.Limits
	if l.MaxStorageBufferBindingSize <= 0 || l.MaxBufferSize < l.MaxStorageBufferBindingSize || l.MaxInvocationsPerWorkgroup < 64 ||
		l.MaxWorkgroupsPerDimension < 65535 || l.MaxSharedMemory < 16384 || l.MinStorageBufferOffsetAlignment <= 0 {
		t.Errorf("implausible limits %+v", l)
	}
	if len(a.Targets) != 1 || a.Targets[0] != backend.SPIRV {
		t.Errorf("targets %v", a.Targets)
	}
	if strings.Contains(a.Name, "llvmpipe") {
		// lavapipe (Mesa 22.3): facts measured here.
		if a.Type != backend.TypeCPU || !a.F16 || !a.Subgroups || !a.Timestamps || a.TimestampNs != 1 || len(a.CoopMat) != 0 {
			t.Errorf("lavapipe reported type %v f16 %v subgroups %v timestamps %v period %g coopmat %v",
				a.Type, a.F16, a.Subgroups, a.Timestamps, a.TimestampNs, a.CoopMat)
		}
	}
	for _, s := range a.CoopMat {
		if s.M <= 0 || s.N <= 0 || s.K <= 0 || s.A == "" || s.Result == "" || (s.Flavor != "khr" && s.Flavor != "nv") {
			t.Errorf("bad shape %+v", s)
		}
	}
}

// TestLoadErrors: bad code and foreign targets are errors, not crashes,
// both from the driver itself and through package backend.
func TestLoadErrors(t *testing.T) {
	a := testAdapter(t)
	ctx := context.Background()
	impl, err := theDriver.Open(ctx, a.DriverIndex)
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	nosuch := artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw")
	nosuch.Entries[0].Name = "nosuch"
	cases := []struct {
		a    *emit.Artifact
		want string
	}{
		{artifact([]uint32{1, 2, 3}, "short", 64, nil), "vulkan: SPIR-V module of 3 words is shorter than its header"},
		{artifact([]uint32{0xdeadbeef, 0x10000, 0, 10, 0}, "magic", 64, nil), "vulkan: not a SPIR-V module (magic 0xdeadbeef)"},
		{artifact([]uint32{spirvMagic, 0x20000, 0, 10, 0}, "version", 64, nil), "vulkan: unsupported SPIR-V version 2.0"},
		{&emit.Artifact{Target: emit.WGSL, Code: []byte("@compute fn main() {}")}, "vulkan: cannot load a wgsl artifact (the Vulkan driver takes SPIR-V)"},
		{nosuch, `vulkan: SPIR-V module has no compute entry point "nosuch" (it has ["main"])`},
		{artifact([]uint32{spirvMagic, 0x10300, 0, 10, 0, 5 << 16}, "trunc", 64, nil), "vulkan: malformed SPIR-V: instruction at word 5 has length 5"},
	}
	for _, c := range cases {
		_, err := impl.NewPipeline(ctx, c.a)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("NewPipeline(%v): %v, want error starting %q", c.a.Entries, err, c.want)
		}
	}
	// Through package backend (which checks the header itself).
	d := openTest(t)
	if _, err := d.Load(ctx, cases[1].a); err == nil {
		t.Error("backend Load of a non-SPIR-V artifact succeeded")
	}
}

// TestMissingLoader checks the errors when the loader is absent and the
// text of a failed call.
func TestMissingLoader(t *testing.T) {
	_, lerr := openLib("libvulkan-kc-absent.so.1")
	const want = "vulkan: cannot load the Vulkan loader libvulkan-kc-absent.so.1 (install libvulkan1 and a Vulkan driver): libvulkan-kc-absent.so.1: cannot open shared object file: No such file or directory"
	if lerr == nil || lerr.Error() != want {
		t.Errorf("openLib error:\n%v\nwant\n%s", lerr, want)
	}
	err := (&Error{Call: "vkCreateBuffer", Result: -2}).Error()
	if err != "vulkan: vkCreateBuffer: VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)" {
		t.Errorf("Error() = %q", err)
	}
	var e *Error
	if !errors.As(check("vkQueueSubmit", -4), &e) || e.Result != -4 {
		t.Errorf("check did not return *Error")
	}
}

// TestLargeUpload writes more than one staging piece (64 MiB) and reads
// samples back from both sides of the seam.
func TestLargeUpload(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	const n = (maxStagingPiece + 8<<20) / 4
	if int64(4*n) > d.Info().Limits.MaxBufferSize {
		t.Skipf("NOT RUN: %d-byte buffer over the device's limit", 4*n)
	}
	src := make([]uint32, n)
	seed := rand.Uint32()
	for i := range src {
		src[i] = uint32(i)*2654435761 ^ seed
	}
	b, err := d.Upload(u32bytes(src))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	seam := maxStagingPiece / 4
	rs, err := d.ReadMany(ctx, b.Slice(0, 64), b.Slice(int64(4*(seam-8)), 64), b.Slice(int64(4*(n-16)), 64))
	if err != nil {
		t.Fatal(err)
	}
	for j, start := range []int{0, seam - 8, n - 16} {
		for i, g := range bytesU32(rs[j]) {
			if g != src[start+i] {
				t.Fatalf("word %d = %#x, want %#x", start+i, g, src[start+i])
			}
		}
	}
}

// TestPipelineCacheFile checks that the VkPipelineCache is saved on Close
// and loaded again on the next open.
func TestPipelineCacheFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envCache, dir)
	a := testAdapter(t)
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		impl, err := theDriver.Open(ctx, a.DriverIndex)
		if err != nil {
			t.Fatal(err)
		}
		dev := impl.(*device)
		if round == 1 && dev.cacheLoaded == 0 {
			t.Errorf("second open loaded no pipeline-cache data from %s", dev.cachePath)
		}
		if _, err := impl.NewPipeline(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw")); err != nil {
			t.Fatal(err)
		}
		if err := impl.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(envCache, "off")
	impl, err := theDriver.Open(ctx, a.DriverIndex)
	if err != nil {
		t.Fatal(err)
	}
	if dev := impl.(*device); dev.cachePath != "" || dev.cacheLoaded != 0 {
		t.Errorf("%s=off still used %q", envCache, dev.cachePath)
	}
	impl.Close()
}

// TestDiscardKeepsUploads: uploads made while an encoder is open survive
// the encoder's Discard (driver level: package backend discards after a
// recording error).
func TestDiscardKeepsUploads(t *testing.T) {
	a := testAdapter(t)
	ctx := context.Background()
	impl, err := theDriver.Open(ctx, a.DriverIndex)
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	p, err := impl.NewPipeline(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := impl.NewBuffer(16)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := impl.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Dispatch(p, u32bytes([]uint32{7, 4, 0, 0}), []backend.Range{{Buf: x, Size: 16}}, [3]uint32{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	y, err := impl.NewBuffer(32)
	if err != nil {
		t.Fatal(err)
	}
	if err := impl.WriteBuffer(y, 16, u32bytes([]uint32{9, 8, 7, 6})); err != nil {
		t.Fatal(err)
	}
	enc.Discard()
	enc, err = impl.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	res, err := enc.Submit(ctx, []backend.Range{{Buf: x, Size: 16}, {Buf: y, Size: 32}})
	if err != nil {
		t.Fatal(err)
	}
	if got := bytesU32(res.Reads[0]); got[0] != 0 || got[3] != 0 {
		t.Errorf("x = %v: the discarded dispatch ran", got)
	}
	want := []uint32{0, 0, 0, 0, 9, 8, 7, 6}
	for i, g := range bytesU32(res.Reads[1]) {
		if g != want[i] {
			t.Fatalf("y = %v, want %v", bytesU32(res.Reads[1]), want)
		}
	}
}

// TestLoopBudgetLimit: an llvmpipe device (driverName "llvmpipe", as
// lavapipe reports it) has Limits.MaxLoopIterations 65535, the budget
// internal/difftest's TestLoopBudget measures; any other device none.
func TestLoopBudgetLimit(t *testing.T) {
	info := openTest(t).Info()
	want := 0
	if strings.HasPrefix(info.DriverInfo, "llvmpipe") {
		want = backend.LLVMPipeLoopIterations
	}
	if got := info.Limits.MaxLoopIterations; got != want {
		t.Fatalf("%s (%s): MaxLoopIterations %d, want %d", info.Name, info.DriverInfo, got, want)
	}
	t.Logf("%s (%s): MaxLoopIterations %d", info.Name, info.DriverInfo, info.Limits.MaxLoopIterations)
}
