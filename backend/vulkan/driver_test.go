//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
)

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

// TestSaxpy runs one kernel with params and two buffers and compares with
// the CPU (float32 a*x+y; fused or not, within 1 ulp-ish tolerance).
func TestSaxpy(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, saxpyGLSL), "saxpy", 64, []string{"a", "n"}, "x:ro", "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	n := 1000 + rand.IntN(3000)
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = rand.Float32()*4-2, rand.Float32()*4-2
	}
	a := rand.Float32()*2 - 1
	bx, err := d.Upload(f32bytes(x))
	if err != nil {
		t.Fatal(err)
	}
	by, err := d.Upload(f32bytes(y))
	if err != nil {
		t.Fatal(err)
	}
	groups := backend.Groups(uint32((n + 63) / 64))
	if err := d.Dispatch(p, backend.Args{Params: []uint32{math.Float32bits(a), uint32(n)}, Buffers: []backend.View{bx.View(), by.View()}}, groups); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, by.View())
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range bytesF32(got) {
		want := a*x[i] + y[i]
		if math.Abs(float64(g-want)) > 1e-6*math.Max(1, math.Abs(float64(want))) {
			t.Fatalf("y[%d] = %g, want %g", i, g, want)
		}
	}
}

// TestDependentChain records many dependent dispatches with different params
// in one scope: every result depends on every dispatch in order, so a
// missing barrier or a wrong params slot shows up bit-exactly.
func TestDependentChain(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	n := 256 + rand.IntN(1024)
	y := make([]uint32, n)
	for i := range y {
		y[i] = rand.Uint32()
	}
	b, err := d.Upload(u32bytes(y))
	if err != nil {
		t.Fatal(err)
	}
	const steps = 300
	ks := make([]uint32, steps)
	before := d.Stats()
	s := d.Begin()
	for j := range ks {
		ks[j] = rand.Uint32()
		if err := d.Dispatch(p, backend.Args{Params: []uint32{ks[j], uint32(n)}, Buffers: []backend.View{b.View()}}, backend.Groups(uint32((n+63)/64))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, b.View())
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats().Since(before)
	if st.Dispatches != steps || st.Submits != 2 {
		t.Errorf("stats %v: want %d dispatches in 2 submits (scope, read)", st, steps)
	}
	for i, g := range bytesU32(got) {
		w := y[i]
		for _, k := range ks {
			w = w*3 + k
		}
		if g != w {
			t.Fatalf("y[%d] = %#x, want %#x", i, g, w)
		}
	}
}

// TestBuffers covers zeroed creation, writes at offsets, copies, several
// reads in one submission, and write ordering against recorded work.
func TestBuffers(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	const n = 4096
	a, err := d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, a.View())
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range bytesU32(got) {
		if v != 0 {
			t.Fatalf("new buffer word %d = %#x, want 0", i, v)
		}
	}
	src := make([]uint32, n)
	for i := range src {
		src[i] = rand.Uint32()
	}
	if err := a.Write(0, u32bytes(src)); err != nil {
		t.Fatal(err)
	}
	patch := []uint32{rand.Uint32(), rand.Uint32(), rand.Uint32(), rand.Uint32()}
	if err := a.Write(4*100, u32bytes(patch)); err != nil {
		t.Fatal(err)
	}
	copy(src[100:], patch)
	b, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(b.Slice(16, 4*n-16), a.Slice(0, 4*n-16)); err != nil {
		t.Fatal(err)
	}
	rs, err := d.ReadMany(ctx, a.Slice(4*10, 4*7), b.Slice(16, 4*(n-4)), a.View())
	if err != nil {
		t.Fatal(err)
	}
	eq := func(name string, got []byte, want []uint32) {
		t.Helper()
		g := bytesU32(got)
		if len(g) != len(want) {
			t.Fatalf("%s: %d words, want %d", name, len(g), len(want))
		}
		for i := range g {
			if g[i] != want[i] {
				t.Fatalf("%s word %d = %#x, want %#x", name, i, g[i], want[i])
			}
		}
	}
	eq("a[10:17]", rs[0], src[10:17])
	eq("b[4:]", rs[1], src[:n-4])
	eq("a", rs[2], src)
}

// TestWriteOrdering: a write after recorded work must land after it.
func TestWriteOrdering(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Upload(u32bytes([]uint32{1, 2, 3, 4}))
	if err != nil {
		t.Fatal(err)
	}
	args := backend.Args{Params: []uint32{5, 4}, Buffers: []backend.View{b.View()}}
	if err := d.Dispatch(p, args, backend.Groups(1)); err != nil { // 8 11 14 17
		t.Fatal(err)
	}
	if err := b.Write(4, u32bytes([]uint32{100})); err != nil { // 8 100 14 17
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args, backend.Groups(1)); err != nil { // 29 305 47 56
		t.Fatal(err)
	}
	got, err := d.Read(ctx, b.View())
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{29, 305, 47, 56}
	for i, g := range bytesU32(got) {
		if g != want[i] {
			t.Fatalf("got %v, want %v", bytesU32(got), want)
		}
	}
}

// TestTimestamps uses the timing oracle, which brackets dispatches with GPU
// timestamps scaled by the device's period.
func TestTimestamps(t *testing.T) {
	d := openTest(t)
	if !d.Info().Timestamps {
		t.Skipf("%s has no timestamps", d.Info().Name)
	}
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	b, err := d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := d.Time(ctx, p, backend.Args{Params: []uint32{1, n}, Buffers: []backend.View{b.View()}}, backend.Groups(n/64), 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ds {
		// 1M elements: some time, and well below 10 s even on a CPU device.
		if x <= 0 || x > 10*time.Second {
			t.Errorf("sample %v out of range (%v)", x, ds)
		}
	}
	t.Logf("1M-element addk: %v", ds)
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

// TestReleaseInFlight releases buffers while work using them may still run.
func TestReleaseInFlight(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		b, err := d.AllocZeroed(1 << 16)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Dispatch(p, backend.Args{Params: []uint32{1, 1 << 14}, Buffers: []backend.View{b.View()}}, backend.Groups(256)); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
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

// TestGraphPersistScopes covers the rest of the backend API on this driver:
// a persistent-region input, a graph of dispatches and hand-off copies in
// one submission, nested scopes with a read inside (which flushes), Flush,
// the pool, and the pipeline cache.
func TestGraphPersistScopes(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	load := func() *backend.Pipeline {
		p, err := d.Load(ctx, artifact(glsl(t, saxpyGLSL), "saxpy", 64, []string{"a", "n"}, "x:ro", "y:rw"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := load()
	before := d.Stats()
	if load() != p || d.Stats().Since(before).CacheHits != 1 {
		t.Errorf("second Load was not a pipeline-cache hit")
	}
	const n = 512
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rand.IntN(100)) // small integers: every sum below is exact
	}
	w, err := d.Persist(f32bytes(x))
	if err != nil {
		t.Fatal(err)
	}
	y1, err := d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	args := func(a float32, y *backend.Buffer) backend.Args {
		return backend.Args{Params: []uint32{math.Float32bits(a), n}, Buffers: []backend.View{w, y.View()}}
	}
	gr := backend.Groups(n / 64)
	before = d.Stats()
	// y1 = 2x; y2 = y1; y2 += 3x  => y2 = 5x, y1 = 2x
	if err := d.Run(
		&backend.DispatchOp{Pipeline: p, Args: args(2, y1), Groups: gr},
		&backend.CopyOp{Dst: y2.View(), Src: y1.View()},
		&backend.DispatchOp{Pipeline: p, Args: args(3, y2), Groups: gr},
	); err != nil {
		t.Fatal(err)
	}
	outer := d.Begin()
	inner := d.Begin()
	if err := d.Dispatch(p, args(1, y1), gr); err != nil { // y1 = 3x
		t.Fatal(err)
	}
	mid, err := d.Read(ctx, y1.View()) // flushes inside the scopes
	if err != nil {
		t.Fatal(err)
	}
	if err := inner.End(); err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args(-1, y2), gr); err != nil { // y2 = 4x
		t.Fatal(err)
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := outer.End(); err != nil {
		t.Fatal(err)
	}
	rs, err := d.ReadMany(ctx, y1.View(), y2.View())
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats().Since(before)
	if st.Dispatches != 4 || st.Copies != 1 {
		t.Errorf("stats %v", st)
	}
	for i := range x {
		if g := bytesF32(mid)[i]; g != 3*x[i] {
			t.Fatalf("read inside scope: y1[%d] = %g, want %g", i, g, 3*x[i])
		}
		if g := bytesF32(rs[0])[i]; g != 3*x[i] {
			t.Fatalf("y1[%d] = %g, want %g", i, g, 3*x[i])
		}
		if g := bytesF32(rs[1])[i]; g != 4*x[i] {
			t.Fatalf("y2[%d] = %g, want %g", i, g, 4*x[i])
		}
	}
	// The pool hands a released buffer back.
	y2.Release()
	before = d.Stats()
	y3, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer y3.Release()
	if d.Stats().Since(before).PoolHits != 1 {
		t.Errorf("Alloc after Release was not a pool hit")
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

// TestUploadsInsideScope creates, zero-fills and writes buffers while an
// encoder holding other work is open: the uploads must land before the
// scope's later dispatches that use them, and survive a discarded encoder.
func TestUploadsInsideScope(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Upload(u32bytes([]uint32{1, 2, 3, 4}))
	if err != nil {
		t.Fatal(err)
	}
	args := func(k uint32, b *backend.Buffer) backend.Args {
		return backend.Args{Params: []uint32{k, 4}, Buffers: []backend.View{b.View()}}
	}
	s := d.Begin()
	if err := d.Dispatch(p, args(1, a), backend.Groups(1)); err != nil { // a = 4 7 10 13
		t.Fatal(err)
	}
	z, err := d.AllocZeroed(16) // created and zeroed while the encoder is open
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.Upload(u32bytes([]uint32{5, 6, 7, 8})) // created and written likewise
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(4, u32bytes([]uint32{60})); err != nil { // w = 5 60 7 8
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args(2, z), backend.Groups(1)); err != nil { // z = 2 2 2 2
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args(0, w), backend.Groups(1)); err != nil { // w = 15 180 21 24
		t.Fatal(err)
	}
	// A refused dispatch inside the scope makes End report it; the work
	// recorded so far still runs or is dropped as the backend decides, but
	// the uploads above must not be lost either way.
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	rs, err := d.ReadMany(ctx, a.View(), z.View(), w.View())
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint32{{4, 7, 10, 13}, {2, 2, 2, 2}, {15, 180, 21, 24}}
	for i := range want {
		for j, g := range bytesU32(rs[i]) {
			if g != want[i][j] {
				t.Fatalf("buffer %d = %v, want %v", i, bytesU32(rs[i]), want[i])
			}
		}
	}
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
