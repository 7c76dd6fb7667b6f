//go:build !js

package wgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestGraphWithCopies runs producer -> copy -> consumer in one encoder and
// one submit: y1 = a*x + y1; y2 <- y1 (copy); y2 = b*x + y2.
func TestGraphWithCopies(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 64 + r.IntN(1000)
	a, b := r.Float32()*2-1, r.Float32()*2-1
	x, y := randF32(r, n), randF32(r, n)
	xb, _ := d.Upload(bytesOf(x))
	y1, _ := d.Upload(bytesOf(y))
	y2, _ := d.Alloc(int64(4 * n))
	before := d.Stats()
	err := d.Run(
		&backend.DispatchOp{Pipeline: p, Args: saxpyArgs(a, n, xb.View(), y1.View()), Groups: groupsFor(n)},
		&backend.CopyOp{Dst: y2.View(), Src: y1.View()},
		&backend.DispatchOp{Pipeline: p, Args: saxpyArgs(b, n, xb.View(), y2.View()), Groups: groupsFor(n)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Stats().Since(before); st.Submits != 1 || st.Dispatches != 2 || st.Copies != 1 {
		t.Fatalf("graph: %v, want one submit", st)
	}
	got, err := d.Read(ctx, y2.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = a*x[i] + y[i]
	}
	checkSaxpy(t, got, b, x, y)
}

// TestPersistentViews binds views into the persistent region (at aligned
// offsets inside one shared buffer) as kernel inputs.
func TestPersistentViews(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 100 + r.IntN(200)
	w1, w2 := randF32(r, n), randF32(r, n)
	v1, err := d.Persist(bytesOf(w1))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := d.Persist(bytesOf(w2))
	if err != nil {
		t.Fatal(err)
	}
	if v1.Buf != v2.Buf || v2.Off == 0 {
		t.Fatalf("persistent views not packed: %v %v", v1, v2)
	}
	y, _ := d.AllocZeroed(int64(4 * n))
	s := d.Begin()
	d.Dispatch(p, saxpyArgs(1, n, v1, y.View()), groupsFor(n))
	d.Dispatch(p, saxpyArgs(2, n, v2, y.View()), groupsFor(n))
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	got, _ := d.Read(ctx, y.View())
	want := make([]float32, n)
	for i := range want {
		want[i] = w1[i] + 2*w2[i]
	}
	checkSaxpy(t, got, 0, w1, want)
}

// TestAllocZeroed: a zeroed buffer is zero even when the pool holds a dirty
// buffer of the same size.
func TestAllocZeroed(t *testing.T) {
	d := openDevice(t)
	dirty, _ := d.Alloc(1024)
	ones := make([]byte, 1024)
	for i := range ones {
		ones[i] = 0xff
	}
	dirty.Write(0, ones)
	dirty.Release()
	z, _ := d.AllocZeroed(1024)
	got, _ := d.Read(ctx, z.View())
	for i, b := range got {
		if b != 0 {
			t.Fatalf("byte %d = %#x", i, b)
		}
	}
}

// TestHostTiming runs the timing oracle on an adapter without timestamps
// (wgpu's OpenGL adapter on llvmpipe), which times on the host.
func TestHostTiming(t *testing.T) {
	openDevice(t)
	as, _ := backend.Adapters(ctx)
	var gl *backend.AdapterInfo
	for i := range as {
		if as[i].Driver == "wgpu" && !as[i].Timestamps {
			gl = &as[i]
		}
	}
	if gl == nil {
		t.Skip("no wgpu adapter without timestamps here")
	}
	d, err := backend.OpenAdapter(ctx, *gl)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := loadSaxpy(t, d)
	x, _ := d.AllocZeroed(4096)
	y, _ := d.AllocZeroed(4096)
	ds, err := d.Time(ctx, p, saxpyArgs(1, 1024, x.View(), y.View()), groupsFor(1024), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ds {
		if s <= 0 {
			t.Fatalf("host samples %v", ds)
		}
	}
}

func TestMissingEntryPoint(t *testing.T) {
	d := openDevice(t)
	_, err := d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "nosuch", Layout: saxpyLayout})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("missing entry point: %v", err)
	}
	// Layout disagreeing with the shader (binding 2 declared read-only).
	l := saxpyLayout
	l.Buffers = []backend.BufferSlot{l.Buffers[0], {Name: "y", Binding: 2, ReadOnly: true, Stride: 4}}
	_, err = d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "saxpy", Layout: l})
	if err == nil {
		t.Fatal("a layout that contradicts the shader loaded")
	}
	t.Log(err)
}

// TestConcurrentUse dispatches and reads from several goroutines on one
// device (the Device serialises them).
func TestConcurrentUse(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	const workers = 4
	errs := make(chan error, workers)
	seeds := make([]uint64, workers)
	for i := range seeds {
		seeds[i] = r.Uint64()
	}
	for w := 0; w < workers; w++ {
		go func(seed uint64) {
			errs <- func() error {
				r := rand.New(rand.NewPCG(seed, seed))
				n := 64 + r.IntN(500)
				x, y := randF32(r, n), randF32(r, n)
				xb, err := d.UploadF32(x)
				if err != nil {
					return err
				}
				yb, err := d.UploadF32(y)
				if err != nil {
					return err
				}
				for it := 0; it < 10; it++ {
					if err := d.Dispatch(p, saxpyArgs(1, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
						return err
					}
					for i := range y {
						y[i] += x[i]
					}
					got, err := d.ReadF32(ctx, yb.View())
					if err != nil {
						return err
					}
					for i := range y {
						if math.Abs(float64(got[i]-y[i])) > 1e-5 {
							return fmt.Errorf("seed %d iteration %d: y[%d] = %v, want %v", seed, it, i, got[i], y[i])
						}
					}
				}
				return nil
			}()
		}(seeds[w])
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDispatchTimed brackets dispatches of a scope with GPU timestamps.
func TestDispatchTimed(t *testing.T) {
	d := openDevice(t)
	if !d.Info().Timestamps {
		t.Skip("adapter without timestamps")
	}
	p := loadSaxpy(t, d)
	n := 1 << 15
	x, _ := d.AllocZeroed(int64(4 * n))
	y, _ := d.AllocZeroed(int64(4 * n))
	args := saxpyArgs(1, n, x.View(), y.View())
	s := d.Begin()
	t1, err := d.DispatchTimed(p, args, groupsFor(n))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args, groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	t2, err := d.DispatchTimed(p, args, groupsFor(n))
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
		if !tm.Done || tm.Duration <= 0 || tm.Name != "saxpy" {
			t.Fatalf("timing %+v", *tm)
		}
	}
	t.Logf("saxpy %d: %v, %v", n, t1.Duration, t2.Duration)
}
