package browsertest

import (
	"syscall/js"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir/parse"
)

// TestResponsive checks that a blocking Read parks only its goroutine:
// while it waits for a long kernel, a JavaScript interval timer on the
// page keeps firing.
func TestResponsive(t *testing.T) {
	d := device(t)
	m, err := parse.Load("spin.kc", []byte(`kernel spin(n u32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= len(y) {
		return
	}
	var v = y[i]
	for k := u32(0); k < n; k++ {
		v = v * 0.999 + 0.5
	}
	y[i] = v
}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.LoadIR(ctx, m, "spin")
	if err != nil {
		t.Fatal(err)
	}
	y, err := d.AllocZeroed(4 * 64 * 256)
	if err != nil {
		t.Fatal(err)
	}
	g := js.Global()
	g.Set("kcTicks", 0)
	tick := g.Get("Function").New("globalThis.kcTicks++")
	id := g.Call("setInterval", tick, 5)
	defer g.Call("clearInterval", id)
	if err := d.Dispatch(p, backend.Args{Params: []uint32{2000}, Buffers: []backend.View{y.View()}}, backend.Groups(256)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := d.Read(ctx, y.View()); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(t0)
	ticks := g.Get("kcTicks").Int()
	t.Logf("Read waited %v; the page's 5 ms timer fired %d times meanwhile", waited, ticks)
	if want := int(waited / (50 * time.Millisecond)); ticks < max(want, 2) { // a blocked page: 0
		t.Errorf("the timer fired %d times in %v; want at least %d (the page was blocked)", ticks, waited, max(want, 2))
	}
}
