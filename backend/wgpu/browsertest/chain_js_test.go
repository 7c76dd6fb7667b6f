package browsertest

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir/parse"
)

// TestDispatchChain records 1,000 dependent dispatches into one scope
// (one submit) and reads the result once: each adds its index to every
// element, so the sum must be exact. It logs the cost per dispatch, the
// browser's counterpart of the native dispatch-chain figures in
// docs/PERF.md.
func TestDispatchChain(t *testing.T) {
	d := device(t)
	m, err := parse.Load("chain.kc", []byte(`kernel bump(k u32, y read_write []u32) workgroup(64) {
	let i = global_id.x
	if i < len(y) {
		y[i] += k
	}
}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.LoadIR(ctx, m, "bump")
	if err != nil {
		t.Fatal(err)
	}
	const n, steps = 256, 1000
	y, err := d.AllocZeroed(4 * n)
	if err != nil {
		t.Fatal(err)
	}
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
	recorded := time.Since(t0)
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	out, err := d.Read(ctx, y.View())
	total := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if got := binary.LittleEndian.Uint32(out[4*i:]); got != steps*(steps+1)/2 {
			t.Fatalf("y[%d] = %d, want %d", i, got, steps*(steps+1)/2)
		}
	}
	st := d.Stats().Since(before)
	if st.Submits > 2 {
		t.Errorf("%d submits for one scope and one read; want at most 2", st.Submits)
	}
	t.Logf("%d dependent dispatches: recorded in %v (%.1f us each), recorded + run + read back in %v (%.1f us each); %+v",
		steps, recorded, float64(recorded.Microseconds())/steps, total, float64(total.Microseconds())/steps, st)
}
