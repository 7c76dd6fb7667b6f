//go:build !js

package wgpu

import (
	"errors"
	"math"
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestGraphReplay: on wgpu a replay re-records the graph into one encoder
// (WebGPU has no compute bundles); params changes, rebinding, ordering and
// the released-buffer error behave as on Vulkan.
func TestGraphReplay(t *testing.T) {
	d := openDevice(t)
	r := rng(t)
	p := loadSaxpy(t, d)
	n := 64 + r.IntN(1000)
	x, y := randF32(r, n), randF32(r, n)
	xb, _ := d.Upload(bytesOf(x))
	yb, _ := d.Upload(bytesOf(y))
	const steps = 8
	as := make([]float32, steps)
	ops := make([]backend.Op, steps)
	for j := range ops {
		as[j] = r.Float32()
		ops[j] = &backend.DispatchOp{Pipeline: p, Args: saxpyArgs(as[j], n, xb.View(), yb.View()), Groups: groupsFor(n)}
	}
	g, err := d.Record(ops...)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	ref := func(y []float32, as ...float32) {
		for i := range y {
			for _, a := range as {
				y[i] = a*x[i] + y[i]
			}
		}
	}
	check := func(what string, got []byte, want []float32) {
		t.Helper()
		for i, v := range f32s(got) {
			if math.Abs(float64(v-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("%s: y[%d] = %v, want %v", what, i, v, want[i])
			}
		}
	}
	for rep := 0; rep < 3; rep++ {
		j := r.IntN(steps)
		as[j] = r.Float32()
		if err := g.SetParams(j, math.Float32bits(as[j]), uint32(n)); err != nil {
			t.Fatal(err)
		}
		before := d.Stats()
		if err := g.Replay(ctx); err != nil {
			t.Fatal(err)
		}
		if st := d.Stats().Since(before); st.Submits != 1 || st.Dispatches != steps || st.Replays != 1 {
			t.Errorf("replay: %v, want one submit of %d dispatches", st, steps)
		}
		got, err := d.Read(ctx, yb.View())
		if err != nil {
			t.Fatal(err)
		}
		ref(y, as...)
		check("replay", got, y)
	}
	z := randF32(r, n)
	zb, _ := d.Upload(bytesOf(z))
	if err := g.SetBuffers(0, xb.View(), zb.View()); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadMany(ctx, yb.View(), zb.View())
	if err != nil {
		t.Fatal(err)
	}
	ref(y, as[1:]...)
	ref(z, as[0])
	check("y after rebinding", got[0], y)
	check("z after rebinding", got[1], z)
	zb.Release()
	var be *backend.BindError
	if err := g.Replay(ctx); !errors.As(err, &be) {
		t.Errorf("replay with a released buffer: %v, want a BindError", err)
	}
}

// TestNoMappedBuffers: wgpu has no mapped storage buffers; asking is an
// error naming the driver, not a crash.
func TestNoMappedBuffers(t *testing.T) {
	d := openDevice(t)
	if b, err := d.AllocMapped(1024, backend.MapDevice); err == nil || b != nil {
		t.Fatalf("AllocMapped on wgpu: %v, %v", b, err)
	} else {
		t.Log(err)
	}
}
