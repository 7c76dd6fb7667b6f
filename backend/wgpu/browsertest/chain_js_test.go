package browsertest

import (
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// TestDispatchChain records 1,000 dependent dispatches into one scope
// (one submit) and reads the result once: each adds its index to every
// element, so the sum must be exact. It logs the cost per dispatch, the
// browser's counterpart of the native dispatch-chain figures in
// docs/PERF.md.
func TestDispatchChain(t *testing.T) {
	d := device(t)
	p := loadSrc(t, d, "bump", `kernel bump(k u32, y read_write []u32) workgroup(64) {
	let i = global_id.x
	if i < len(y) {
		y[i] += k
	}
}`)
	const n, steps = 256, 1000
	y, err := d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	// Five rounds; the fastest is the figure least disturbed by other
	// work on the machine.
	var rec, all []time.Duration
	for round := 1; round <= 5; round++ {
		args := backend.Args{Params: []uint32{0}, Buffers: []backend.View{y.View()}}
		before := d.Stats()
		t0 := time.Now()
		s := d.Begin()
		for k := 1; k <= steps; k++ {
			args.Params[0] = uint32(k)
			if err := d.Dispatch(p, args, backend.Groups(n/64)); err != nil {
				t.Fatal(err)
			}
		}
		rec = append(rec, time.Since(t0))
		if err := s.End(); err != nil {
			t.Fatal(err)
		}
		out, err := d.Read(ctx, y.View())
		all = append(all, time.Since(t0))
		if err != nil {
			t.Fatal(err)
		}
		want := uint32(round * steps * (steps + 1) / 2)
		for i := 0; i < n; i++ {
			if got := binary.LittleEndian.Uint32(out[4*i:]); got != want {
				t.Fatalf("round %d: y[%d] = %d, want %d", round, i, got, want)
			}
		}
		// the scope's submits (its early ones: backend.SetScopeFlush) and
		// at most one for the read
		if st, most := d.Stats().Since(before), backend.ScopeSubmits(steps, d.ScopeFlush())+1; st.Submits > uint64(most) || st.Dispatches != steps {
			t.Errorf("round %d: %d submits, %d dispatches for one scope of %d and one read; want at most %d submits", round, st.Submits, st.Dispatches, steps, most)
		}
	}
	slices.Sort(rec)
	slices.Sort(all)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / steps }
	t.Logf("%d dependent dispatches, 5 rounds: recording %.1f us per dispatch (fastest; median %.1f), recorded + run + read back %.1f us (fastest; median %.1f)",
		steps, us(rec[0]), us(rec[2]), us(all[0]), us(all[2]))
}
