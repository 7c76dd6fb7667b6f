package backendtest

import (
	"errors"
	"testing"

	"github.com/kcgo/kc/backend"
)

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
