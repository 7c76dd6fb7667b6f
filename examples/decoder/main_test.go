package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// TestRun runs the program as a user would and checks its report.
func TestRun(t *testing.T) {
	d := backendtest.Open(t, "vulkan")
	var out bytes.Buffer
	if err := run([]string{"-device", d.Info().Name, "-tokens", "4", "-layers", "1"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "tokens/s") {
		t.Errorf("no tokens/s in the output:\n%s", out.String())
	}
	// the warm-up compiled every kernel: none is built inside the timing
	if !strings.Contains(out.String(), ", 0.00 pipelines built") {
		t.Errorf("the timed decode steps built pipelines (or the step line is missing):\n%s", out.String())
	}
	t.Log(out.String())
}

// TestDecodeMatchesPrefill: the logits of the last decode step (KV cache,
// RoPE at an offset, attention of one query over the cache) equal those
// of one causal prefill of the whole sequence, within f32 rounding
// (1e-4 on logits of magnitude ~1-10, differently ordered sums).
func TestDecodeMatchesPrefill(t *testing.T) {
	for _, wdt := range []kernels.DType{kernels.F32, kernels.F16, kernels.BF16} {
		t.Run(wdt.String(), func(t *testing.T) { testDecodeMatchesPrefill(t, wdt) })
	}
}

// testDecodeMatchesPrefill with projection weights of type wdt: decode
// and prefill multiply by the same rounded weights in f32.
func testDecodeMatchesPrefill(t *testing.T, wdt kernels.DType) {
	d := backendtest.Open(t, "vulkan")
	c := kernels.New(d)
	defer c.Close()
	cfg := config{vocab: 64, dim: 48, layers: 2, heads: 4, kvHeads: 2, headDim: 8, ffn: 72, maxSeq: 40}
	ctx := context.Background()
	m, err := newModel(c, cfg, 7, wdt)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	toks, last, err := m.generate(ctx, prompt, 6)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := newModel(c, cfg, 7, wdt)
	if err != nil {
		t.Fatal(err)
	}
	seq := append(append([]int(nil), prompt...), toks[:len(toks)-1]...)
	want, _, err := m2.logits(ctx, seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := math.Abs(float64(last[i] - want[i])); !(d <= 1e-4+1e-5*math.Abs(float64(want[i]))) {
			t.Fatalf("logit %d: decode %g, prefill %g", i, last[i], want[i])
		}
	}
	if _, _, err := m.logits(ctx, make([]int, 30), 20); err == nil {
		t.Errorf("a sequence past the context: no error")
	}
}

// TestDrawMatchesPython: torch_decoder.py's pure-Python draw gives the
// weights of model.go's draw bit for bit (the torch form of the same
// arithmetic is checked on the device, where both programs must print
// the same tokens).
func TestDrawMatchesPython(t *testing.T) {
	py := kctest.Tool(t, "python3")
	for _, tc := range []struct {
		seed, t      uint32
		center, half float64
	}{{1, 0, 0, 1}, {7, 3, 1, 0.2}, {0xdeadbeef, 1234, 0, 1 / math.Sqrt(2048)}} {
		const n = 300
		out, err := exec.Command(py, "torch_decoder.py", "-draw", fmt.Sprint(tc.seed), fmt.Sprint(tc.t), fmt.Sprint(n), fmt.Sprint(tc.center), fmt.Sprint(tc.half)).CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		lines := strings.Fields(string(out))
		want := draw(tc.seed, tc.t, n, tc.center, tc.half)
		if len(lines) != n {
			t.Fatalf("python printed %d values, want %d", len(lines), n)
		}
		for i, w := range want {
			if got := fmt.Sprintf("%08x", math.Float32bits(w)); got != lines[i] {
				t.Fatalf("%+v [%d]: Go %s (%g), Python %s", tc, i, got, w, lines[i])
			}
		}
	}
}

// torchPython returns a python3 that imports torch (PATH's, else
// Debian's), or skips (fails in CI).
func torchPython(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import torch").Run() == nil {
			return p
		}
	}
	kctest.Missing(t, "no python3 with torch (Debian: apt-get install python3-torch; scripts/test.sh installs it)")
	return ""
}

// TestMatchesPyTorch: torch_decoder.py on the CPU, the same model in
// PyTorch on the same weights, generates the same tokens as the Go
// program on lavapipe, and its last logits agree to the 4 decimals both
// print (f32 weights; with bf16 weights PyTorch also rounds the
// activations, so only f32 is compared exactly).
func TestMatchesPyTorch(t *testing.T) {
	py := torchPython(t)
	d := backendtest.Open(t, "vulkan")
	args := []string{"-vocab", "300", "-dim", "96", "-layers", "2", "-heads", "6", "-kv-heads", "2", "-head-dim", "16", "-ffn", "200", "-context", "64", "-tokens", "10", "-seed", "5"}
	var out bytes.Buffer
	if err := run(append([]string{"-device", d.Info().Name}, args...), &out); err != nil {
		t.Fatal(err)
	}
	pout, err := exec.Command(py, append([]string{"torch_decoder.py", "-device", "cpu"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("torch_decoder.py: %v\n%s", err, pout)
	}
	line := func(s, prefix string) []float64 {
		for _, l := range strings.Split(s, "\n") {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				var vs []float64
				for _, f := range strings.FieldsFunc(rest, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
					var v float64
					if _, err := fmt.Sscan(f, &v); err != nil {
						t.Fatalf("%q in %q: %v", f, l, err)
					}
					vs = append(vs, v)
				}
				return vs
			}
		}
		t.Fatalf("no %q line in:\n%s", prefix, s)
		return nil
	}
	gt, pt := line(out.String(), "tokens: "), line(string(pout), "tokens: ")
	if fmt.Sprint(gt) != fmt.Sprint(pt) {
		t.Errorf("tokens: Go %v, PyTorch %v", gt, pt)
	}
	gl, pl := line(out.String(), "last logits [0:4]: "), line(string(pout), "last logits [0:4]: ")
	for i := range gl {
		if i >= len(pl) || math.Abs(gl[i]-pl[i]) > 2e-4 {
			t.Errorf("last logits: Go %v, PyTorch %v", gl, pl)
			break
		}
	}
}

// TestProfile runs the program with -profile: the timed decode steps
// account for every dispatch of the untimed ones, and the kernels a
// decode step needs are in the table.
func TestProfile(t *testing.T) {
	d := backendtest.Open(t, "vulkan")
	if !d.Info().Timestamps {
		kctest.Missing(t, "%s has no GPU timestamps", d.Info().Name)
	}
	var out bytes.Buffer
	if err := run([]string{"-device", d.Info().Name, "-tokens", "4", "-layers", "2", "-profile"}, &out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	var steps, dispatches float64
	kernels := map[string]bool{}
	var sum float64
	for _, l := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(l, "a decode step (mean of "); ok {
			if _, err := fmt.Sscanf(rest[strings.Index(rest, "; ")+2:], "%g dispatches", &dispatches); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			fmt.Sscan(rest, &steps)
		}
		f := strings.Fields(l)
		if len(f) == 4 && strings.HasSuffix(f[1], "%") {
			var n float64
			if _, err := fmt.Sscan(f[2], &n); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			sum += n
			kernels[f[3]] = true
		}
	}
	if steps != 3 || dispatches == 0 {
		t.Fatalf("decode step line: %g steps, %g dispatches; want 3 steps", steps, dispatches)
	}
	if math.Abs(sum-dispatches) > 0.05 {
		t.Errorf("the profile's dispatches add up to %g a step, the untimed steps made %g", sum, dispatches)
	}
	for _, k := range []string{"gemv4f", "rmsnorm", "rope", "gather"} {
		if !kernels[k] {
			t.Errorf("kernel %s missing from the profile (have %v)", k, kernels)
		}
	}
}
