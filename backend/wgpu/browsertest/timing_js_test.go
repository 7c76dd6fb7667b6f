package browsertest

import (
	"slices"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

// TestTimestamps times a kernel with GPU timestamps (timestamp-query):
// Time's samples and a DispatchTimed inside a scope must be positive and
// no longer than the host's clock around them.
func TestTimestamps(t *testing.T) {
	d := device(t)
	if !d.Info().Timestamps {
		kctest.Missing(t, "adapter %q offers no timestamp-query", d.Info().Name)
	}
	p, args := loadSpin(t, d)
	t0 := time.Now()
	ds, err := d.Time(ctx, p, args, spinGroups, 1, 5)
	host := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Time: %v (host %v for warm-up and all samples)", ds, host)
	var sum time.Duration
	for _, x := range ds {
		if x <= 0 {
			t.Errorf("a sample of %v; want > 0", x)
		}
		sum += x
	}
	if sum > host {
		t.Errorf("samples sum to %v, more than the %v the host waited", sum, host)
	}

	s := d.Begin()
	tm, err := d.DispatchTimed(p, args, spinGroups)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, args, spinGroups); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, args.Buffers[0]); err != nil {
		t.Fatal(err)
	}
	host = time.Since(t0)
	if !tm.Done || tm.Duration <= 0 || tm.Duration > host {
		t.Errorf("DispatchTimed: done %v, %v; want done and in (0, %v]", tm.Done, tm.Duration, host)
	}
	med := slices.Clone(ds)
	slices.Sort(med)
	t.Logf("DispatchTimed: %v; Time's median %v", tm.Duration, med[len(med)/2])
}

// spinSrc is a kernel that takes a while: n iterations of a dependent
// chain per invocation.
const spinSrc = `kernel spin(n u32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= len(y) {
		return
	}
	var v = y[i]
	for k := u32(0); k < n; k++ {
		v = v * 0.999 + 0.5
	}
	y[i] = v
}`

// spinGroups is the grid loadSpin's buffer is sized for.
var spinGroups = backend.Groups(256)

// loadSpin loads spin on d and returns it with its arguments: n = 2000 and
// a zeroed y for spinGroups.
func loadSpin(t *testing.T, d *backend.Device) (*backend.Pipeline, backend.Args) {
	t.Helper()
	p := loadSrc(t, d, "spin", spinSrc)
	y, err := d.AllocZeroed(4 * 64 * 256)
	if err != nil {
		t.Fatal(err)
	}
	return p, backend.Args{Params: []uint32{2000}, Buffers: []backend.View{y.View()}}
}
