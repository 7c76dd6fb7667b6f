package backendtest

import (
	"fmt"
	"testing"

	"github.com/kcgo/kc/backend"
)

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
	// early submits (backend.SetScopeFlush) of 3, 6, 12, ... dispatches:
	// the chain crosses several submits on every device
	defer f.d.SetScopeFlush(f.d.ScopeFlush())
	f.d.SetScopeFlush(3)
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
	// the scope's submits (its early ones: backend.SetScopeFlush), then
	// the read's; the values below check the order across them
	want := backend.ScopeSubmits(steps, f.d.ScopeFlush()) + 1
	if st := f.d.Stats().Since(before); st.Dispatches != steps || st.Submits != uint64(want) {
		t.Errorf("stats %v: want %d dispatches in %d submits (scope, read)", st, steps, want)
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
