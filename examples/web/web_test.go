//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/kcgo/kc/internal/browser"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// TestPage opens the example in headless Chromium, waits for the first
// picture, compares a screenshot of the canvas with the interpreter's run
// of mandelbrot.kc over the same view, then clicks to zoom and checks the
// second picture the same way. KC_SCREENSHOT=DIR keeps the screenshots.
func TestPage(t *testing.T) {
	b := browser.Start(t)
	h, err := handler(browser.BuildWasm(t, ".", false))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(b.Context(), 4*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	m := module(t)
	v := waitFrame(t, b, ctx, 1)
	check(t, ctx, m, v, "home")
	// A click zooms in 4x about the point clicked: here the seahorse
	// valley near -0.745 + 0.11i.
	x, y := (-0.745-float64(v.CX))/float64(v.Scale)+float64(v.Width)/2, float64(v.Height)/2-(0.11-float64(v.CY))/float64(v.Scale)
	left, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(r => [r.left, r.top])(document.getElementById("view").getBoundingClientRect())`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(left[0]+x, left[1]+y)); err != nil {
		t.Fatal(err)
	}
	z := waitFrame(t, b, ctx, 2)
	if z.Scale >= v.Scale {
		t.Errorf("after a click the scale is %g, want less than %g", z.Scale, v.Scale)
	}
	check(t, ctx, m, z, "zoomed")
	if dir := os.Getenv("KC_SCREENSHOT"); dir != "" {
		page, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "web-page.png"), page, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if c := b.Console(); len(c) > 0 {
		t.Errorf("the page's console has warnings or errors:\n%s", strings.Join(c, "\n"))
	}
	for _, id := range []string{"device", "first", "kernel"} {
		text, _ := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`(t => t !== "–" && t)(document.getElementById(%q).textContent)`, id), chromedp.WithPollingTimeout(time.Minute)))
		t.Logf("%s: %s", id, text)
	}
	noWebGPU(t, ctx, srv.URL)
}

// noWebGPU reloads the page in a document whose navigator has no gpu (a
// browser without WebGPU) and checks that it says so instead of failing
// silently.
func noWebGPU(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	added, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `Object.defineProperty(Navigator.prototype, "gpu", {get: () => undefined, configurable: true});`,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer chromedp.Call(ctx, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: added.Identifier})
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Poll[string](`document.body.dataset.state === "error" && document.getElementById("status").textContent`,
		chromedp.WithPollingTimeout(time.Minute)))
	if err != nil {
		t.Fatalf("without navigator.gpu the page shows no error: %v", err)
	}
	if !strings.Contains(msg, "navigator.gpu is undefined") || !strings.Contains(msg, "docs/browser.md") {
		t.Errorf("without navigator.gpu the page says %q; want it to name navigator.gpu and docs/browser.md", msg)
	}
	t.Logf("without WebGPU: %s", msg)
}

func module(t *testing.T) *ir.Module {
	src, err := os.ReadFile("mandelbrot.kc")
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Load("mandelbrot.kc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// waitFrame waits until the page has drawn n frames and returns the view
// it published.
func waitFrame(t *testing.T, b *browser.Browser, ctx context.Context, n int) view {
	t.Helper()
	state, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(
		`(d => d.state === "error" ? "error" : +d.frames >= %d && "done")(document.body.dataset)`, n),
		chromedp.WithPollingTimeout(0)))
	if err != nil {
		t.Fatalf("waiting for frame %d: %v", n, err)
	}
	if state == "error" {
		msg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").textContent`))
		t.Fatalf("the page reports an error: %s\nconsole: %q", msg, b.Console())
	}
	js, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.view`))
	if err != nil {
		t.Fatal(err)
	}
	var v view
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("data-view %q: %v", js, err)
	}
	return v
}

// check compares a screenshot of the canvas with the interpreter's pixels
// for v: every pixel must match exactly. (kc's semantics let a target
// contract a*b + c into an fma, which would move the escape time of some
// boundary points; SwiftShader, the browser tests' adapter, does not.)
func check(t *testing.T, ctx context.Context, m *ir.Module, v view, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("view")))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("KC_SCREENSHOT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "web-"+name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	w, h := int(v.Width), int(v.Height)
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s: screenshot is %v, want %dx%d", name, b, w, h)
	}
	want := reference(t, m, v)
	bad, first := 0, ""
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := want[4*(y*w+x):]
			r, g, b, _ := img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
			if uint8(r>>8) == p[0] && uint8(g>>8) == p[1] && uint8(b>>8) == p[2] {
				continue
			}
			if bad == 0 {
				first = fmt.Sprintf("(%d, %d) is %d,%d,%d, want %d,%d,%d", x, y, r>>8, g>>8, b>>8, p[0], p[1], p[2])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d pixels differ; first %s", name, bad, w*h, first)
	}
}

// reference runs mandelbrot.kc in the interpreter over v.
func reference(t *testing.T, m *ir.Module, v view) []byte {
	t.Helper()
	out := make([]byte, 4*v.Width*v.Height)
	for i := 0; i < len(out); i += 4 {
		binary.LittleEndian.PutUint32(out[i:], 0xdeadbeef) // poison
	}
	args := &interp.Args{
		Params: map[string]ir.Value{
			"width": ir.IntVal(int64(v.Width)), "height": ir.IntVal(int64(v.Height)),
			"cx": ir.FloatVal(float64(v.CX)), "cy": ir.FloatVal(float64(v.CY)),
			"scale": ir.FloatVal(float64(v.Scale)), "max_iter": ir.IntVal(int64(v.MaxIter)),
		},
		Buffers: map[string][]byte{"pixels": out},
	}
	g := v.groups()
	t0 := time.Now()
	if err := interp.Run(m, "mandelbrot", [3]int{int(g[0]), int(g[1]), int(g[2])}, args, interp.Options{MaxSteps: math.MaxInt64}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	t.Logf("interpreter: %v", time.Since(t0).Round(time.Millisecond))
	for i := 0; i < len(out); i += 4 {
		if binary.LittleEndian.Uint32(out[i:]) == 0xdeadbeef {
			t.Fatalf("the interpreter left pixel %d unwritten", i/4)
		}
	}
	return out
}

// TestGenerated checks that kernels_kc.go is what go generate writes.
func TestGenerated(t *testing.T) {
	cmd := exec.Command("go", "run", "github.com/kcgo/kc/cmd/kc", "gen", "-check", "-pkg", "main", "-o", "kernels_kc.go", "mandelbrot.kc")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kernels_kc.go is stale (run go generate in examples/web): %v\n%s", err, out)
	}
}
