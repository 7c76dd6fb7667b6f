package browsertest

import (
	"syscall/js"
	"testing"
	"time"
)

// TestResponsive checks that a blocking Read parks only its goroutine:
// while it waits for a long kernel, a JavaScript interval timer on the
// page keeps firing.
func TestResponsive(t *testing.T) {
	d := device(t)
	p, args := loadSpin(t, d)
	g := js.Global()
	g.Set("kcTicks", 0)
	tick := g.Get("Function").New("globalThis.kcTicks++")
	id := g.Call("setInterval", tick, 5)
	defer g.Call("clearInterval", id)
	if err := d.Dispatch(p, args, spinGroups); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := d.Read(ctx, args.Buffers[0]); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(t0)
	ticks := g.Get("kcTicks").Int()
	t.Logf("Read waited %v; the page's 5 ms timer fired %d times meanwhile", waited, ticks)
	if want := int(waited / (50 * time.Millisecond)); ticks < max(want, 2) { // a blocked page: 0
		t.Errorf("the timer fired %d times in %v; want at least %d (the page was blocked)", ticks, waited, max(want, 2))
	}
}
