//go:build !js

package wgpu

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
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

var saxpyLayout = backend.Layout{
	Params:     16,
	ParamNames: []string{"a", "n"},
	Buffers: []backend.BufferSlot{
		{Name: "x", Binding: 1, ReadOnly: true, Stride: 4},
		{Name: "y", Binding: 2, Stride: 4},
	},
	Workgroup: [3]int{64, 1, 1},
	Kernel:    "saxpy",
}

func loadSaxpy(t testing.TB, d *backend.Device) *backend.Pipeline {
	t.Helper()
	p, err := d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "saxpy", Layout: saxpyLayout})
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

func TestSaxpy(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 1000 + r.IntN(3000)
	a := r.Float32()*4 - 2
	x, y := randF32(r, n), randF32(r, n)
	xb, err := d.Upload(bytesOf(x))
	if err != nil {
		t.Fatal(err)
	}
	yb, err := d.Upload(bytesOf(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, saxpyArgs(a, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	checkSaxpy(t, got, a, x, y)
}

func TestScopeNestingOneSubmit(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 256
	x, y := randF32(r, n), randF32(r, n)
	xb, _ := d.Upload(bytesOf(x))
	yb, _ := d.Upload(bytesOf(y))
	before := d.Stats()
	outer := d.Begin()
	for i := 0; i < 3; i++ {
		inner := d.Begin()
		if err := d.Dispatch(p, saxpyArgs(2, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
			t.Fatal(err)
		}
		if err := inner.End(); err != nil {
			t.Fatal(err)
		}
		if s := d.Stats().Since(before); s.Submits != 0 {
			t.Fatalf("inner End submitted: %v", s)
		}
	}
	if err := outer.End(); err != nil {
		t.Fatal(err)
	}
	s := d.Stats().Since(before)
	if s.Submits != 1 || s.Dispatches != 3 {
		t.Fatalf("after outer End: %v, want 1 submit and 3 dispatches", s)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = 2*x[i] + (2*x[i] + (2*x[i] + y[i]))
	}
	checkSaxpy(t, got, 0, x, y)
	if err := outer.End(); err != nil {
		t.Fatalf("second End: %v", err)
	}
}

func TestFlushBeforeRead(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 300
	x, y := randF32(r, n), randF32(r, n)
	xb, _ := d.Upload(bytesOf(x))
	yb, _ := d.Upload(bytesOf(y))
	s := d.Begin()
	defer s.End()
	before := d.Stats()
	if err := d.Dispatch(p, saxpyArgs(3, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	checkSaxpy(t, got, 3, x, y)
	if st := d.Stats().Since(before); st.Submits != 1 {
		t.Fatalf("read inside a scope: %v, want the dispatch and the read in 1 submit", st)
	}
	// Work after the read, in the same scope, is still recorded and seen.
	if err := d.Dispatch(p, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err = d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = 3*x[i] + y[i]
	}
	checkSaxpy(t, got, 1, x, y)
}

// TestPooledReuseHazard: a pooled buffer released while recorded work still
// reads it, then reallocated and overwritten from the host, must not change
// what the recorded work reads.
func TestPooledReuseHazard(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 512
	x, x2, y := randF32(r, n), randF32(r, n), randF32(r, n)
	yb, _ := d.Upload(bytesOf(y))
	s := d.Begin()
	xb, err := d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	if err := xb.Write(0, bytesOf(x)); err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	xb.Release()
	before := d.Stats()
	xb2, err := d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Since(before); st.PoolHits != 1 {
		t.Fatalf("Alloc of a released size: %v, want a pool hit", st)
	}
	if err := xb2.Write(0, bytesOf(x2)); err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, saxpyArgs(1, n, xb2.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = x2[i] + (x[i] + y[i])
	}
	checkSaxpy(t, got, 0, x, y)
	// Upload never takes a pooled buffer.
	xb2.Release()
	before = d.Stats()
	if _, err := d.Upload(bytesOf(x)); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Since(before); st.PoolHits != 0 {
		t.Fatalf("Upload used the pool: %v", st)
	}
}

func TestReadMany(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	n := 64 + r.IntN(64)
	var bufs []*backend.Buffer
	var want [][]byte
	for i := 0; i < n; i++ {
		data := bytesOf(randF32(r, 1+r.IntN(300)))
		b, err := d.Upload(data)
		if err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
		want = append(want, data)
	}
	views := make([]backend.View, n)
	for i, b := range bufs {
		// Read an inner slice of every second buffer.
		if i%2 == 1 && b.Size() >= 8 {
			views[i] = b.Slice(4, b.Size()-4)
			want[i] = want[i][4:]
		} else {
			views[i] = b.View()
		}
	}
	before := d.Stats()
	got, err := d.ReadMany(ctx, views...)
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Since(before); st.Submits != 1 || st.Readbacks != 1 {
		t.Fatalf("ReadMany of %d regions: %v, want 1 submit", n, st)
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("region %d differs", i)
		}
	}
}

func TestStatsAndCache(t *testing.T) {
	d := openDevice(t)
	s0 := d.Stats()
	p1 := loadSaxpy(t, d)
	p2 := loadSaxpy(t, d)
	if p1 != p2 || d.Pipelines() != 1 {
		t.Fatalf("same artifact loaded twice: %p %p, %d cached", p1, p2, d.Pipelines())
	}
	a := &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "saxpy", Layout: saxpyLayout, Spec: "N=2"}
	if _, err := d.Load(ctx, a); err != nil {
		t.Fatal(err)
	}
	if d.Pipelines() != 2 {
		t.Fatalf("a new specialisation shares a cache entry: %d cached", d.Pipelines())
	}
	b, _ := d.Alloc(400)
	b.Release()
	b, _ = d.Alloc(400)
	_, _ = d.Read(ctx, b.View())
	st := d.Stats().Since(s0)
	want := backend.Stats{Compiles: 2, CacheHits: 1, PoolHits: 1, PoolMisses: 1, Readbacks: 1, Submits: 1, BytesDown: 400}
	if st != want {
		t.Fatalf("stats\n got %v\nwant %v", st, want)
	}
	if got := st.Since(st); got != (backend.Stats{}) {
		t.Fatalf("s.Since(s) = %v", got)
	}
}

func TestBadBindings(t *testing.T) {
	d := openDevice(t)
	p := loadSaxpy(t, d)
	x, _ := d.Alloc(256)
	y, _ := d.Alloc(256)
	gone, _ := d.AllocZeroed(256)
	gone.Release()
	other := openDevice(t)
	ob, _ := other.Alloc(256)
	ok := saxpyArgs(1, 64, x.View(), y.View())
	cases := []struct {
		name   string
		args   backend.Args
		groups [3]uint32
		msg    string
	}{
		{"params", backend.Args{Params: []uint32{1}, Buffers: ok.Buffers}, backend.Groups(1),
			"backend: dispatch saxpy: got 1 params, kernel has 2 scalar parameters [a n]"},
		{"count", backend.Args{Params: ok.Params, Buffers: ok.Buffers[:1]}, backend.Groups(1),
			"backend: dispatch saxpy: got 1 buffers, kernel has 2"},
		{"bounds", saxpyArgs(1, 64, x.Slice(128, 256), y.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 1 (x): range [128, 384) of a 256-byte buffer is out of bounds"},
		{"align", saxpyArgs(1, 64, x.Slice(4, 128), y.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 1 (x): offset 4 is not a multiple of 32"},
		{"stride", saxpyArgs(1, 64, x.View(), y.Slice(0, 10)), backend.Groups(1),
			"backend: dispatch saxpy: binding 2 (y): size 10 is not a multiple of the element stride 4"},
		{"empty", saxpyArgs(1, 64, x.Slice(0, 0), y.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 1 (x): empty range (size 0)"},
		{"released", saxpyArgs(1, 64, gone.View(), y.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 1 (x): buffer was released"},
		{"device", saxpyArgs(1, 64, ob.View(), y.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 1 (x): buffer belongs to another device"},
		{"alias", saxpyArgs(1, 64, x.View(), x.View()), backend.Groups(1),
			"backend: dispatch saxpy: binding 2 (y): buffer is bound read_write here and read-only at binding 1 (x)"},
		{"groups", ok, backend.Groups(1 << 20),
			"backend: dispatch saxpy: workgroup count 1048576 in dimension x exceeds the device's 65535"},
	}
	before := d.Stats()
	for _, c := range cases {
		err := d.Dispatch(p, c.args, c.groups)
		var be *backend.BindError
		if !errors.As(err, &be) || err.Error() != c.msg {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.msg)
		}
	}
	if st := d.Stats().Since(before); st.Dispatches != 0 || st.Submits != 0 {
		t.Fatalf("refused dispatches recorded something: %v", st)
	}
	// The device still works.
	if err := d.Dispatch(p, ok, backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, y.View()); err != nil {
		t.Fatal(err)
	}
}

func TestBadShader(t *testing.T) {
	d := openDevice(t)
	_, err := d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte("@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }"), Entry: "main"})
	if err == nil || !strings.Contains(err.Error(), "naga") {
		t.Fatalf("invalid WGSL: %v, want naga's error", err)
	}
	t.Log(err)
	_, err = d.Load(ctx, &backend.Artifact{Target: backend.SPIRV, Words: []uint32{0x07230203, 0x10000, 0, 10, 0, 0xdead}, Entry: "main"})
	if err == nil {
		t.Fatal("invalid SPIR-V loaded")
	}
	t.Log(err)
}

func TestTime(t *testing.T) {
	d := openDevice(t)
	if !d.Info().Timestamps {
		t.Skip("adapter without timestamps")
	}
	p := loadSaxpy(t, d)
	n := 1 << 16
	x, _ := d.AllocZeroed(int64(4 * n))
	y, _ := d.AllocZeroed(int64(4 * n))
	ds, err := d.Time(ctx, p, saxpyArgs(1, n, x.View(), y.View()), groupsFor(n), 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 5 {
		t.Fatalf("%d samples", len(ds))
	}
	for _, s := range ds {
		if s <= 0 {
			t.Fatalf("sample %v: timestamps did not advance (%v)", s, ds)
		}
	}
	t.Logf("saxpy %d: %v", n, ds)
}
