package backendtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir/parse"
)

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

// testCanceled: a read under a canceled context either completes or
// returns an error wrapping context.Canceled; either way the recorded
// work runs exactly once and the device stays usable.
func testCanceled(t *testing.T, open Opener) {
	f := setup(t, open)
	y := f.upload(t, u32Bytes([]uint32{1, 2, 3, 4}))
	if err := f.d.Dispatch(f.addk, addkArgs(1, 4, y.View()), backend.Groups(1)); err != nil { // 4 7 10 13
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	want := []uint32{4, 7, 10, 13}
	got, err := f.d.Read(cctx, y.View())
	switch {
	case err == nil:
		equalU32(t, "y read under a canceled context", got, want)
	case !errors.Is(err, context.Canceled):
		t.Fatalf("read under a canceled context: %v, want the data or context.Canceled", err)
	}
	if got, err = f.d.Read(ctx, y.View()); err != nil {
		t.Fatalf("read after a canceled read: %v", err)
	}
	equalU32(t, "y", got, want)
	if err := f.d.Dispatch(f.addk, addkArgs(0, 4, y.View()), backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	if got, err = f.d.Read(ctx, y.View()); err != nil {
		t.Fatal(err)
	}
	equalU32(t, "y after another dispatch", got, []uint32{12, 21, 30, 39})
}
