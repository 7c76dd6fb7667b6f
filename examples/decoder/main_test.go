package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/backendtest"
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
	d := backendtest.Open(t, "vulkan")
	c := kernels.New(d)
	defer c.Close()
	cfg := config{vocab: 64, dim: 48, layers: 2, heads: 4, kvHeads: 2, headDim: 8, ffn: 72, maxSeq: 40}
	ctx := context.Background()
	m, err := newModel(c, cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	prompt := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	toks, last, err := m.generate(ctx, prompt, 6)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := newModel(c, cfg, 7)
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
