package backendtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Opener opens a fresh device of the driver under test, closing it when t
// ends; it fails or skips t (kctest.Missing) when it cannot.
type Opener func(t testing.TB) *backend.Device

// contractKernels are the suite's kernels: saxpy (params and a read and a
// read_write buffer) and addk, whose result depends on every dispatch in
// order (y = 3y + k), so a missing barrier or params slot shows bit for bit.
const contractKernels = `
kernel saxpy(a f32, n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = a * x[i] + y[i]
	}
}

kernel addk(k u32, n u32, y read_write []u32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = y[i] * 3 + k
	}
}
`

var ctx = context.Background()

// Run runs the backend contract against the driver that open opens. Each
// case opens its own device.
func Run(t *testing.T, open Opener) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"Saxpy", testSaxpy},
		{"ScopesSubmitOnce", testScopes},
		{"ReadFlushes", testReadFlushes},
		{"ReadManyBatches", testReadMany},
		{"PoolReuseHazard", testPool},
		{"AllocZeroed", testZeroed},
		{"WritesAndCopies", testCopies},
		{"Persistent", testPersistent},
		{"StatsSince", testStats},
		{"GraphWithCopies", testGraph},
		{"Timing", testTiming},
		{"BindErrors", testBindErrors},
		{"WriteOrdering", testWriteOrdering},
		{"DependentChain", testChain},
		{"UploadsInsideScope", testUploadsInScope},
		{"ReleaseInFlight", testReleaseInFlight},
		{"Concurrent", testConcurrent},
		{"Closed", testClosed},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// fixture is a device with the suite's kernels loaded.
type fixture struct {
	d     *backend.Device
	m     *ir.Module
	saxpy *backend.Pipeline
	addk  *backend.Pipeline
	r     *rand.Rand
}

func setup(t *testing.T, open Opener) *fixture {
	t.Helper()
	d := open(t)
	m, err := parse.Load("contract.kc", []byte(contractKernels), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{d: d, m: m}
	if f.saxpy, err = d.LoadIR(ctx, m, "saxpy"); err != nil {
		t.Fatal(err)
	}
	if f.addk, err = d.LoadIR(ctx, m, "addk"); err != nil {
		t.Fatal(err)
	}
	seed := rand.Uint64()
	t.Logf("seed %d, device %s (%s)", seed, d.Info().Name, d.Info().Driver)
	f.r = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return f
}

func (f *fixture) randF32(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = f.r.Float32()*2 - 1
	}
	return xs
}

// smallInts are floats whose sums and small multiples below are exact.
func (f *fixture) smallInts(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(f.r.IntN(200) - 100)
	}
	return xs
}

func (f *fixture) upload(t *testing.T, data []byte) *backend.Buffer {
	t.Helper()
	b, err := f.d.Upload(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func saxpyArgs(a float32, n int, x, y backend.View) backend.Args {
	return backend.Args{Params: []uint32{math.Float32bits(a), uint32(n)}, Buffers: []backend.View{x, y}}
}

func addkArgs(k uint32, n int, y backend.View) backend.Args {
	return backend.Args{Params: []uint32{k, uint32(n)}, Buffers: []backend.View{y}}
}

func groupsFor(n int) [3]uint32 { return backend.Groups(uint32((n + 63) / 64)) }

// equalF32 requires got to hold want exactly (the suite's float cases
// are exact: small integers, or one a*x+y checked within half an ulp of
// a*x for fusion).
func equalF32(t *testing.T, what string, got []byte, want []float32) {
	t.Helper()
	g := backend.BytesF32(got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g[i], want[i])
		}
	}
}

func equalU32(t *testing.T, what string, got []byte, want []uint32) {
	t.Helper()
	g := bytesU32(got)
	if len(g) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(g), len(want))
	}
	for i := range want {
		if g[i] != want[i] {
			t.Fatalf("%s[%d] = %#x, want %#x (all: %v)", what, i, g[i], want[i], g)
		}
	}
}

func testSaxpy(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 1000 + f.r.IntN(3000)
	a := f.r.Float32()*4 - 2
	x, y := f.randF32(n), f.randF32(n)
	xb, yb := f.upload(t, backend.F32Bytes(x)), f.upload(t, backend.F32Bytes(y))
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(a, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.ReadF32(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		// Fused or not: within half an ulp of a*x (|a*x| < 2) plus one
		// rounding of the result.
		want := float64(a)*float64(x[i]) + float64(y[i])
		if d := math.Abs(float64(got[i]) - want); d > 0x1p-23+0x1p-24*math.Abs(want) {
			t.Fatalf("y[%d] = %v, want %v (diff %g)", i, got[i], want, d)
		}
	}
}

// testScopes: nested scopes record without submitting; only the outermost
// End submits, once; a second End of a closed scope is harmless.
func testScopes(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 256
	x, y := f.smallInts(n), f.smallInts(n)
	xb, yb := f.upload(t, backend.F32Bytes(x)), f.upload(t, backend.F32Bytes(y))
	before := f.d.Stats()
	outer := f.d.Begin()
	for i := 0; i < 3; i++ {
		inner := f.d.Begin()
		if err := f.d.Dispatch(f.saxpy, saxpyArgs(2, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
			t.Fatal(err)
		}
		if err := inner.End(); err != nil {
			t.Fatal(err)
		}
		if s := f.d.Stats().Since(before); s.Submits != 0 {
			t.Fatalf("inner End submitted: %v", s)
		}
	}
	if err := outer.End(); err != nil {
		t.Fatal(err)
	}
	if s := f.d.Stats().Since(before); s.Submits != 1 || s.Dispatches != 3 {
		t.Fatalf("after outer End: %v, want 1 submit and 3 dispatches", s)
	}
	got, err := f.d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] += 6 * x[i]
	}
	equalF32(t, "y", got, y)
	if err := outer.End(); err != nil {
		t.Fatalf("second End: %v", err)
	}
}

// testReadFlushes: a read inside a scope submits the recorded work with the
// read, in one submit; work after it in the same scope is still seen.
func testReadFlushes(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 300
	x, y := f.smallInts(n), f.smallInts(n)
	xb, yb := f.upload(t, backend.F32Bytes(x)), f.upload(t, backend.F32Bytes(y))
	s := f.d.Begin()
	defer s.End()
	before := f.d.Stats()
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(3, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] += 3 * x[i]
	}
	equalF32(t, "y after the first read", got, y)
	if st := f.d.Stats().Since(before); st.Submits != 1 {
		t.Fatalf("read inside a scope: %v, want the dispatch and the read in 1 submit", st)
	}
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, err = f.d.Read(ctx, yb.View()); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] += x[i]
	}
	equalF32(t, "y after Flush and a second read", got, y)
}

// testReadMany: many regions (whole buffers and inner slices) come back in
// one submit.
func testReadMany(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 64 + f.r.IntN(64)
	var views []backend.View
	var want [][]byte
	for i := 0; i < n; i++ {
		data := backend.F32Bytes(f.randF32(1 + f.r.IntN(300)))
		b := f.upload(t, data)
		if i%2 == 1 && b.Size() >= 8 {
			views = append(views, b.Slice(4, b.Size()-4))
			want = append(want, data[4:])
		} else {
			views = append(views, b.View())
			want = append(want, data)
		}
	}
	before := f.d.Stats()
	got, err := f.d.ReadMany(ctx, views...)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.d.Stats().Since(before); st.Submits != 1 || st.Readbacks != 1 {
		t.Fatalf("ReadMany of %d regions: %v, want 1 submit", n, st)
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("region %d (%v) differs", i, views[i])
		}
	}
}

// testPool: Alloc reuses a released buffer of the same size (a pool hit);
// a host write into it is ordered after recorded work that read its old
// contents; Upload never takes a pooled buffer.
func testPool(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 512
	x, x2, y := f.smallInts(n), f.smallInts(n), f.smallInts(n)
	yb := f.upload(t, backend.F32Bytes(y))
	s := f.d.Begin()
	xb, err := f.d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	if err := xb.Write(0, backend.F32Bytes(x)); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	xb.Release()
	before := f.d.Stats()
	xb2, err := f.d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	if st := f.d.Stats().Since(before); st.PoolHits != 1 {
		t.Fatalf("Alloc of a released size: %v, want a pool hit", st)
	}
	if err := xb2.Write(0, backend.F32Bytes(x2)); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, xb2.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] += x[i] + x2[i]
	}
	equalF32(t, "y", got, y)
	xb2.Release()
	before = f.d.Stats()
	if _, err := f.d.Upload(backend.F32Bytes(x)); err != nil {
		t.Fatal(err)
	}
	if st := f.d.Stats().Since(before); st.PoolHits != 0 {
		t.Fatalf("Upload used the pool: %v", st)
	}
}

// testZeroed: AllocZeroed is zero even when the pool holds a dirty buffer
// of the same size, and a zeroed buffer made inside a scope is zero too.
func testZeroed(t *testing.T, open Opener) {
	f := setup(t, open)
	const size = 1024
	dirty, err := f.d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]byte, size)
	for i := range ones {
		ones[i] = 0xff
	}
	if err := dirty.Write(0, ones); err != nil {
		t.Fatal(err)
	}
	dirty.Release()
	z, err := f.d.AllocZeroed(size)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, z.View())
	if err != nil {
		t.Fatal(err)
	}
	equalU32(t, "zeroed", got, make([]uint32, size/4))
}

// testCopies: host writes at offsets, a device copy between slices at
// offsets, and reads of slices, one batched read for several regions.
func testCopies(t *testing.T, open Opener) {
	f := setup(t, open)
	const n = 4096
	a, err := f.d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]uint32, n)
	for i := range src {
		src[i] = f.r.Uint32()
	}
	if err := a.Write(0, u32Bytes(src)); err != nil {
		t.Fatal(err)
	}
	patch := []uint32{f.r.Uint32(), f.r.Uint32(), f.r.Uint32(), f.r.Uint32()}
	if err := a.Write(4*100, u32Bytes(patch)); err != nil {
		t.Fatal(err)
	}
	copy(src[100:], patch)
	b, err := f.d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.d.Copy(b.Slice(16, 4*n-16), a.Slice(0, 4*n-16)); err != nil {
		t.Fatal(err)
	}
	rs, err := f.d.ReadMany(ctx, a.Slice(4*10, 4*7), b.Slice(16, 4*(n-4)), a.View())
	if err != nil {
		t.Fatal(err)
	}
	equalU32(t, "a[10:17]", rs[0], src[10:17])
	equalU32(t, "b[4:]", rs[1], src[:n-4])
	equalU32(t, "a", rs[2], src)
}

// testPersistent binds views of the persistent region (packed into one
// buffer at aligned offsets) as kernel inputs.
func testPersistent(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 100 + f.r.IntN(200)
	w1, w2 := f.smallInts(n), f.smallInts(n)
	v1, err := f.d.Persist(backend.F32Bytes(w1))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := f.d.Persist(backend.F32Bytes(w2))
	if err != nil {
		t.Fatal(err)
	}
	if v1.Buf != v2.Buf || v2.Off == 0 || v2.Off%f.d.Info().Limits.MinStorageBufferOffsetAlignment != 0 {
		t.Fatalf("persistent views not packed at aligned offsets: %v %v", v1, v2)
	}
	if f.d.PersistentBytes() < int64(8*n) {
		t.Fatalf("PersistentBytes %d < %d", f.d.PersistentBytes(), 8*n)
	}
	y, err := f.d.AllocZeroed(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	s := f.d.Begin()
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, v1, y.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(2, n, v2, y.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, y.View())
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, n)
	for i := range want {
		want[i] = w1[i] + 2*w2[i]
	}
	equalF32(t, "y", got, want)
	// ClearPersistent frees the region: its views no longer bind.
	f.d.ClearPersistent()
	if b := f.d.PersistentBytes(); b != 0 {
		t.Fatalf("PersistentBytes after ClearPersistent: %d", b)
	}
	var be *backend.BindError
	if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, v1, y.View()), groupsFor(n)); !errors.As(err, &be) {
		t.Fatalf("dispatch of a cleared persistent view: %v, want a *backend.BindError", err)
	}
}

// testStats: counters, Since, and the pipeline cache (a second Load of one
// artifact is a hit; another specialisation is a new pipeline).
func testStats(t *testing.T, open Opener) {
	d := open(t)
	m, err := parse.Load("contract.kc", []byte(contractKernels), nil)
	if err != nil {
		t.Fatal(err)
	}
	s0 := d.Stats()
	p1, err := d.LoadIR(ctx, m, "saxpy")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := d.LoadIR(ctx, m, "saxpy")
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 || d.Pipelines() != 1 {
		t.Fatalf("one artifact loaded twice: %p %p, %d cached", p1, p2, d.Pipelines())
	}
	a, err := backend.Emit(m, "saxpy", p1.Target())
	if err != nil {
		t.Fatal(err)
	}
	a.Spec = "N=2"
	if _, err := d.Load(ctx, a); err != nil {
		t.Fatal(err)
	}
	if d.Pipelines() != 2 {
		t.Fatalf("a new specialisation shares a cache entry: %d cached", d.Pipelines())
	}
	b, _ := d.Alloc(400)
	b.Release()
	b, _ = d.Alloc(400)
	if _, err := d.Read(ctx, b.View()); err != nil {
		t.Fatal(err)
	}
	st := d.Stats().Since(s0)
	want := backend.Stats{Compiles: 2, CacheHits: 1, PoolHits: 1, PoolMisses: 1, Readbacks: 1, Submits: 1, BytesDown: 400}
	if st != want {
		t.Fatalf("stats\n got %v\nwant %v", st, want)
	}
	if got := st.Since(st); got != (backend.Stats{}) {
		t.Fatalf("s.Since(s) = %v", got)
	}
	up := d.Stats()
	if _, err := d.Upload(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Since(up); st.Uploads != 1 || st.BytesUp != 64 {
		t.Fatalf("Upload of 64 bytes: %v", st)
	}
}

// testGraph runs producer -> copy -> consumer as one graph in one submit:
// y1 = a*x + y1; y2 <- y1; y2 = b*x + y2.
func testGraph(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 64 + f.r.IntN(1000)
	x, y := f.smallInts(n), f.smallInts(n)
	xb, y1 := f.upload(t, backend.F32Bytes(x)), f.upload(t, backend.F32Bytes(y))
	y2, err := f.d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	before := f.d.Stats()
	err = f.d.Run(
		&backend.DispatchOp{Pipeline: f.saxpy, Args: saxpyArgs(2, n, xb.View(), y1.View()), Groups: groupsFor(n)},
		&backend.CopyOp{Dst: y2.View(), Src: y1.View()},
		&backend.DispatchOp{Pipeline: f.saxpy, Args: saxpyArgs(-3, n, xb.View(), y2.View()), Groups: groupsFor(n)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.d.Stats().Since(before); st.Submits != 1 || st.Dispatches != 2 || st.Copies != 1 {
		t.Fatalf("graph: %v, want one submit", st)
	}
	rs, err := f.d.ReadMany(ctx, y1.View(), y2.View())
	if err != nil {
		t.Fatal(err)
	}
	w1, w2 := make([]float32, n), make([]float32, n)
	for i := range y {
		w1[i] = 2*x[i] + y[i]
		w2[i] = -3*x[i] + w1[i]
	}
	equalF32(t, "y1", rs[0], w1)
	equalF32(t, "y2", rs[1], w2)
}

// testTiming: the timing oracle gives positive samples (GPU timestamps, or
// the host clock on devices without them), and DispatchTimed resolves its
// timings at the scope's submit.
func testTiming(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 1 << 16
	y, err := f.d.AllocZeroed(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	args := addkArgs(1, n, y.View())
	ds, err := f.d.Time(ctx, f.addk, args, groupsFor(n), 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 5 {
		t.Fatalf("%d samples, want 5", len(ds))
	}
	for _, s := range ds {
		if s <= 0 || s > 10*time.Second {
			t.Fatalf("sample %v out of range (%v)", s, ds)
		}
	}
	t.Logf("addk %d: %v (timestamps %v)", n, ds, f.d.Info().Timestamps)
	if !f.d.Info().Timestamps {
		return
	}
	s := f.d.Begin()
	t1, err := f.d.DispatchTimed(f.addk, args, groupsFor(n))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.addk, args, groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	t2, err := f.d.DispatchTimed(f.addk, args, groupsFor(n))
	if err != nil {
		t.Fatal(err)
	}
	if t1.Done || t2.Done {
		t.Fatal("timings done before the submit")
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	for _, tm := range []*backend.Timing{t1, t2} {
		if !tm.Done || tm.Duration <= 0 || tm.Name != "addk" {
			t.Fatalf("timing %+v", *tm)
		}
	}
}

// testBindErrors: every bad binding is a *backend.BindError with an exact
// message, checked on the host before anything is recorded; the device
// still works afterwards.
func testBindErrors(t *testing.T, open Opener) {
	f := setup(t, open)
	d := f.d
	x, _ := d.Alloc(256)
	y, _ := d.Alloc(256)
	gone, _ := d.AllocZeroed(256)
	gone.Release()
	other := open(t)
	ob, _ := other.Alloc(256)
	ok := saxpyArgs(1, 64, x.View(), y.View())
	lim := d.Info().Limits
	align := lim.MinStorageBufferOffsetAlignment
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
		{"groups", ok, backend.Groups(uint32(lim.MaxWorkgroupsPerDimension) + 1),
			fmt.Sprintf("backend: dispatch saxpy: workgroup count %d in dimension x exceeds the device's %d", lim.MaxWorkgroupsPerDimension+1, lim.MaxWorkgroupsPerDimension)},
	}
	if align > 4 {
		cases = append(cases, struct {
			name   string
			args   backend.Args
			groups [3]uint32
			msg    string
		}{"align", saxpyArgs(1, 64, x.Slice(4, 128), y.View()), backend.Groups(1),
			fmt.Sprintf("backend: dispatch saxpy: binding 1 (x): offset 4 is not a multiple of %d", align)})
	}
	before := d.Stats()
	for _, c := range cases {
		err := d.Dispatch(f.saxpy, c.args, c.groups)
		var be *backend.BindError
		if !errors.As(err, &be) || err.Error() != c.msg {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.msg)
		}
	}
	if st := d.Stats().Since(before); st.Dispatches != 0 || st.Submits != 0 {
		t.Fatalf("refused dispatches recorded something: %v", st)
	}
	if err := d.Dispatch(f.saxpy, ok, backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, y.View()); err != nil {
		t.Fatal(err)
	}
}

// testWriteOrdering: a host write after recorded work lands after it and
// before the work recorded next (write-after-read and read-after-write
// between dispatches and host writes).
func testWriteOrdering(t *testing.T, open Opener) {
	f := setup(t, open)
	b := f.upload(t, u32Bytes([]uint32{1, 2, 3, 4}))
	args := addkArgs(5, 4, b.View())
	for _, scoped := range []bool{false, true} {
		if err := b.Write(0, u32Bytes([]uint32{1, 2, 3, 4})); err != nil {
			t.Fatal(err)
		}
		var s *backend.Scope
		if scoped {
			s = f.d.Begin()
		}
		if err := f.d.Dispatch(f.addk, args, backend.Groups(1)); err != nil { // 8 11 14 17
			t.Fatal(err)
		}
		if err := b.Write(4, u32Bytes([]uint32{100})); err != nil { // 8 100 14 17
			t.Fatal(err)
		}
		if err := f.d.Dispatch(f.addk, args, backend.Groups(1)); err != nil { // 29 305 47 56
			t.Fatal(err)
		}
		if s != nil {
			if err := s.End(); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.d.Read(ctx, b.View())
		if err != nil {
			t.Fatal(err)
		}
		equalU32(t, fmt.Sprintf("y (scope %v)", scoped), got, []uint32{29, 305, 47, 56})
	}
}

// testChain records many dependent dispatches with different params in
// one scope: each reads what the previous one wrote.
func testChain(t *testing.T, open Opener) {
	f := setup(t, open)
	n := 256 + f.r.IntN(1024)
	y := make([]uint32, n)
	for i := range y {
		y[i] = f.r.Uint32()
	}
	b := f.upload(t, u32Bytes(y))
	const steps = 200
	ks := make([]uint32, steps)
	before := f.d.Stats()
	s := f.d.Begin()
	for j := range ks {
		ks[j] = f.r.Uint32()
		if err := f.d.Dispatch(f.addk, addkArgs(ks[j], n, b.View()), groupsFor(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, b.View())
	if err != nil {
		t.Fatal(err)
	}
	if st := f.d.Stats().Since(before); st.Dispatches != steps || st.Submits != 2 {
		t.Errorf("stats %v: want %d dispatches in 2 submits (scope, read)", st, steps)
	}
	for i := range y {
		for _, k := range ks {
			y[i] = y[i]*3 + k
		}
	}
	equalU32(t, "y", got, y)
}

// testUploadsInScope creates, zero-fills and writes buffers while a scope
// holds recorded work: the uploads land before the later dispatches that
// use them.
func testUploadsInScope(t *testing.T, open Opener) {
	f := setup(t, open)
	a := f.upload(t, u32Bytes([]uint32{1, 2, 3, 4}))
	s := f.d.Begin()
	if err := f.d.Dispatch(f.addk, addkArgs(1, 4, a.View()), backend.Groups(1)); err != nil { // a = 4 7 10 13
		t.Fatal(err)
	}
	z, err := f.d.AllocZeroed(16)
	if err != nil {
		t.Fatal(err)
	}
	w := f.upload(t, u32Bytes([]uint32{5, 6, 7, 8}))
	if err := w.Write(4, u32Bytes([]uint32{60})); err != nil { // w = 5 60 7 8
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.addk, addkArgs(2, 4, z.View()), backend.Groups(1)); err != nil { // z = 2 2 2 2
		t.Fatal(err)
	}
	if err := f.d.Dispatch(f.addk, addkArgs(0, 4, w.View()), backend.Groups(1)); err != nil { // w = 15 180 21 24
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	rs, err := f.d.ReadMany(ctx, a.View(), z.View(), w.View())
	if err != nil {
		t.Fatal(err)
	}
	equalU32(t, "a", rs[0], []uint32{4, 7, 10, 13})
	equalU32(t, "z", rs[1], []uint32{2, 2, 2, 2})
	equalU32(t, "w", rs[2], []uint32{15, 180, 21, 24})
}

// testReleaseInFlight releases buffers while work using them may still
// run, inside and outside scopes; the device stays usable.
func testReleaseInFlight(t *testing.T, open Opener) {
	f := setup(t, open)
	for round := 0; round < 20; round++ {
		var s *backend.Scope
		if round%2 == 1 {
			s = f.d.Begin()
		}
		b, err := f.d.AllocZeroed(1 << 16)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.d.Dispatch(f.addk, addkArgs(1, 1<<14, b.View()), backend.Groups(256)); err != nil {
			t.Fatal(err)
		}
		b.Release()
		p, err := f.d.Alloc(1 << 16) // may take b's memory back from the pool
		if err != nil {
			t.Fatal(err)
		}
		p.Release()
		if s != nil {
			if err := s.End(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	y := f.upload(t, u32Bytes([]uint32{1, 2, 3, 4}))
	if err := f.d.Dispatch(f.addk, addkArgs(1, 4, y.View()), backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	got, err := f.d.Read(ctx, y.View())
	if err != nil {
		t.Fatal(err)
	}
	equalU32(t, "y", got, []uint32{4, 7, 10, 13})
}

// testConcurrent dispatches and reads from several goroutines on one
// device (the Device serialises them).
func testConcurrent(t *testing.T, open Opener) {
	f := setup(t, open)
	const workers = 4
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		seed := f.r.Uint64()
		go func() {
			errs <- func() error {
				r := rand.New(rand.NewPCG(seed, seed))
				n := 64 + r.IntN(500)
				x, y := make([]float32, n), make([]float32, n)
				for i := range x {
					x[i], y[i] = float32(r.IntN(100)), float32(r.IntN(100))
				}
				xb, err := f.d.UploadF32(x)
				if err != nil {
					return err
				}
				yb, err := f.d.UploadF32(y)
				if err != nil {
					return err
				}
				for it := 0; it < 10; it++ {
					if err := f.d.Dispatch(f.saxpy, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
						return err
					}
					for i := range y {
						y[i] += x[i]
					}
					got, err := f.d.ReadF32(ctx, yb.View())
					if err != nil {
						return err
					}
					for i := range y {
						if got[i] != y[i] {
							return fmt.Errorf("seed %d iteration %d: y[%d] = %v, want %v", seed, it, i, got[i], y[i])
						}
					}
				}
				return nil
			}()
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// testClosed: once a device is gone (closed here; a lost device reports
// backend.ErrDeviceLost the same way, from the call that notices it),
// every call returns an error and none panics.
func testClosed(t *testing.T, open Opener) {
	f := setup(t, open)
	b := f.upload(t, u32Bytes([]uint32{1, 2, 3, 4}))
	s := f.d.Begin()
	if err := f.d.Dispatch(f.addk, addkArgs(1, 4, b.View()), backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Close(); err != nil {
		t.Fatal(err)
	}
	checks := map[string]error{}
	_, checks["Upload"] = f.d.Upload(make([]byte, 16))
	_, checks["Alloc"] = f.d.Alloc(16)
	_, checks["AllocZeroed"] = f.d.AllocZeroed(16)
	_, checks["Persist"] = f.d.Persist(make([]byte, 16))
	_, checks["LoadIR"] = f.d.LoadIR(ctx, f.m, "saxpy")
	checks["Dispatch"] = f.d.Dispatch(f.addk, addkArgs(1, 4, b.View()), backend.Groups(1))
	_, checks["Read"] = f.d.Read(ctx, b.View())
	_, checks["ReadMany"] = f.d.ReadMany(ctx, b.View(), b.View())
	checks["Wait"] = f.d.Wait(ctx)
	checks["Flush"] = f.d.Flush()
	_, checks["Time"] = f.d.Time(ctx, f.addk, addkArgs(1, 4, b.View()), backend.Groups(1), 0, 1)
	for name, err := range checks {
		if !errors.Is(err, backend.ErrClosed) {
			t.Errorf("%s on a closed device: %v, want backend.ErrClosed", name, err)
		}
	}
	if err := s.End(); !errors.Is(err, backend.ErrClosed) && err != nil {
		t.Errorf("End of a scope across Close: %v", err)
	}
	b.Release()
	if err := f.d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func u32Bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesU32(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}
