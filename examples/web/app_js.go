package main

// The page's half (GOOS=js GOARCH=wasm): open the browser's WebGPU device
// through package backend, run the mandelbrot kernel (its launcher comes
// from kc gen), read the pixels back and put them on the canvas.
//
// The backend's calls block (Open, Load, Read wait on JavaScript
// promises); they are made from main and from goroutines, never from
// inside a JavaScript callback, which must return before any promise can
// settle: the click handler starts a goroutine.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
	"syscall/js"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/wgpu"
)

var (
	doc = js.Global().Get("document")
	ctx = context.Background()
)

// app is the page's state; mu serialises frames.
type app struct {
	mu     sync.Mutex
	dev    *backend.Device
	pixels *backend.Buffer
	cur    view
	frames int
}

func main() {
	a := &app{cur: home}
	if err := a.open(); err != nil {
		fail(err)
		select {}
	}
	a.frame(home)
	click := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ev := args[0]
		f := 0.25
		if ev.Get("shiftKey").Bool() {
			f = 4
		}
		v := a.cur.zoom(ev.Get("offsetX").Int(), ev.Get("offsetY").Int(), f)
		go a.frame(v) // not here: a callback must not block
		return nil
	})
	doc.Call("getElementById", "view").Call("addEventListener", "click", click)
	select {}
}

func (a *app) open() error {
	t0 := time.Now()
	dev, err := backend.Open(ctx, "")
	if err != nil {
		return err
	}
	i := dev.Info()
	set("device", fmt.Sprintf("%s — %s, %s; f16 %v, subgroups %v, timestamps %v (opened in %v)", i.Name, i.API, i.Type, i.F16, i.Subgroups, i.Timestamps, ms(time.Since(t0))))
	a.dev = dev
	a.pixels, err = dev.Alloc(int64(4 * home.Width * home.Height))
	return err
}

// frame draws v: dispatch, read back, put the bytes on the canvas, then
// time the kernel alone.
func (a *app) frame(v view) {
	a.mu.Lock()
	defer a.mu.Unlock()
	set("status", "drawing…")
	t0 := time.Now()
	if err := Mandelbrot(ctx, a.dev, v.groups(), v.Width, v.Height, v.CX, v.CY, v.Scale, v.MaxIter, a.pixels.View()); err != nil {
		fail(err)
		return
	}
	px, err := a.dev.Read(ctx, a.pixels.View())
	if err != nil {
		fail(err)
		return
	}
	draw(px, v)
	took := time.Since(t0)
	a.frames++
	a.cur = v
	if a.frames == 1 {
		set("first", fmt.Sprintf("%v (includes compiling the WGSL: Tint and the driver)", ms(took)))
	}
	set("frame", fmt.Sprintf("%v: dispatch, wait and read back %d KiB", ms(took), len(px)>>10))
	set("where", fmt.Sprintf("%d×%d at (%.6g, %.6g), %.3g per pixel, %d iterations", v.Width, v.Height, v.CX, v.CY, v.Scale, v.MaxIter))
	body := doc.Get("body")
	vj, _ := json.Marshal(v)
	body.Get("dataset").Set("view", string(vj))
	body.Get("dataset").Set("frames", a.frames)
	body.Get("dataset").Set("state", "done")
	set("status", "done")
	a.timeKernel(v)
}

// timeKernel measures the kernel without the readback: 5 samples after a
// warm-up, with GPU timestamps where the adapter offers timestamp-query,
// else each submitted and waited for on the host's clock.
func (a *app) timeKernel(v view) {
	p, err := MandelbrotKernel.Pipeline(ctx, a.dev)
	if err != nil {
		fail(err)
		return
	}
	args := backend.Args{Params: params(v), Buffers: []backend.View{a.pixels.View()}}
	ds, err := a.dev.Time(ctx, p, args, v.groups(), 1, 5)
	if err != nil {
		set("kernel", err.Error())
		return
	}
	slices.Sort(ds)
	mp := float64(v.Width*v.Height) / 1e6
	how := "host clock around submit and wait"
	if a.dev.Info().Timestamps {
		how = "GPU timestamps"
	}
	set("kernel", fmt.Sprintf("%v median of %d (%.3g Mpixel/s; %s)", ms(ds[len(ds)/2]), len(ds), mp/ds[len(ds)/2].Seconds(), how))
}

// params packs v as the kernel's params block, in the launcher's order.
func params(v view) []uint32 {
	f := math.Float32bits
	return []uint32{v.Width, v.Height, f(v.CX), f(v.CY), f(v.Scale), v.MaxIter}
}

// draw puts the RGBA bytes on the canvas.
func draw(px []byte, v view) {
	u8 := js.Global().Get("Uint8ClampedArray").New(len(px))
	js.CopyBytesToJS(u8, px)
	img := js.Global().Get("ImageData").New(u8, v.Width, v.Height)
	doc.Call("getElementById", "view").Call("getContext", "2d").Call("putImageData", img, 0, 0)
}

func set(id, text string) { doc.Call("getElementById", id).Set("textContent", text) }

func fail(err error) {
	msg := err.Error()
	if !js.Global().Get("navigator").Get("gpu").Truthy() {
		msg = "This browser offers no WebGPU. Chrome and Edge 113 or later have it on Windows, macOS " +
			"and ChromeOS; on Linux start them with --enable-unsafe-webgpu --enable-features=Vulkan.\n(" + msg + ")"
	}
	s := doc.Call("getElementById", "status")
	s.Set("textContent", msg)
	s.Set("className", "error")
	doc.Get("body").Get("dataset").Set("state", "error")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
