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
	want, err := m2.logits(ctx, seq, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := math.Abs(float64(last[i] - want[i])); !(d <= 1e-4+1e-5*math.Abs(float64(want[i]))) {
			t.Fatalf("logit %d: decode %g, prefill %g", i, last[i], want[i])
		}
	}
	if _, err := m.logits(ctx, make([]int, 30), 20); err == nil {
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
