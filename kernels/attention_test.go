package kernels_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// attnRef is multi-head attention in float64: q [tq, hq·dh], k, v [s,
// hkv·dh]; query i at position i+s-tq attends keys up to its position when
// causal, all keys otherwise.
func attnRef(qs, ks, vs []float32, tq, s, hq, hkv, dh int, scale float64, causal bool) []float64 {
	return kernels.AttnRef(qs, ks, vs, func(x float32) float64 { return float64(x) }, tq, s, hq, hkv, dh, scale, causal)
}

// attnTol: outputs are convex combinations of v in [-1, 1]; f32 scores,
// exp and sums over s <= a few hundred keys stay within 2e-5.
var attnTol = kctest.Tol{Abs: 2e-5, Rel: 1e-5}

func TestAttention(t *testing.T) { testAttention(t, open(t, "vulkan")) }

func testAttention(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, tc := range []struct{ tq, s, d, dv int }{{1, 1, 1, 1}, {3, 17, 5, 3}, {17, 3, 16, 17}, {5, 1000, 8, 4}} {
		qs, ks, vs := kctest.Randn(rng, tc.tq*tc.d, -1, 1), kctest.Randn(rng, tc.s*tc.d, -1, 1), kctest.Randn(rng, tc.s*tc.dv, -1, 1)
		scale := 1 / math.Sqrt(float64(tc.d))
		o, err := c.Attention(upload(t, c, qs, tc.tq, tc.d), upload(t, c, ks, tc.s, tc.d), upload(t, c, vs, tc.s, tc.dv), float32(scale))
		if err != nil {
			t.Fatal(err)
		}
		// with dv != d the reference runs per output column block: use
		// hq = hkv = 1 and dh = d for scores, then mix v by hand
		want := make([]float64, tc.tq*tc.dv)
		for i := 0; i < tc.tq; i++ {
			sc := make([]float64, tc.s)
			mx := math.Inf(-1)
			for j := range sc {
				for p := 0; p < tc.d; p++ {
					sc[j] += float64(qs[i*tc.d+p]) * float64(ks[j*tc.d+p])
				}
				sc[j] *= float64(float32(scale))
				mx = math.Max(mx, sc[j])
			}
			var sum float64
			for j := range sc {
				sc[j] = math.Exp(sc[j] - mx)
				sum += sc[j]
			}
			for cc := 0; cc < tc.dv; cc++ {
				for j := range sc {
					want[i*tc.dv+cc] += sc[j] / sum * float64(vs[j*tc.dv+cc])
				}
			}
		}
		kctest.Compare(t, "attention", host(t, o), want, attnTol)
	}
}

type flashCase struct{ tq, s, hq, hkv, dh int }

func flashInputs(rng *rand.Rand, tc flashCase) (qs, ks, vs []float32) {
	return kctest.Randn(rng, tc.tq*tc.hq*tc.dh, -1, 1), kctest.Randn(rng, tc.s*tc.hkv*tc.dh, -1, 1), kctest.Randn(rng, tc.s*tc.hkv*tc.dh, -1, 1)
}

func runFlash(t *testing.T, c *kernels.Context, tc flashCase, qs, ks, vs []float32, causal bool) []float32 {
	t.Helper()
	return runHalfFlash(t, c, kernels.F32, tc, qs, ks, vs, causal)
}

// TestCausalAttention covers prefill (tq = s) and a continued sequence
// (tq < s) with grouped-query heads, sequence lengths across the 32-query
// and 16-key tiles, and head dimensions 1 to 64.
func TestCausalAttention(t *testing.T) { testCausalAttention(t, open(t, "vulkan")) }

func testCausalAttention(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	// tq <= 8 takes the split-key kernels (chunks of 256 keys), larger tq the
	// query-parallel one (tiles of 32 queries, 16 keys)
	for _, tc := range []flashCase{{1, 1, 1, 1, 1}, {3, 3, 2, 1, 4}, {17, 17, 4, 2, 8}, {40, 40, 3, 3, 5}, {5, 70, 4, 1, 64},
		{33, 33, 8, 2, 16}, {8, 600, 2, 1, 8}, {9, 300, 2, 2, 4}, {1, 513, 4, 4, 16},
		{3, 1100, 8, 8, 128}, {6, 300, 4, 2, 32}} {
		qs, ks, vs := flashInputs(rng, tc)
		got := runFlash(t, c, tc, qs, ks, vs, true)
		want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), true)
		kctest.Compare(t, "causalattention", got, want, attnTol)
	}
}

// TestAttentionLoopBudget: on lavapipe, whose loops stop after 65535
// iterations in all (docs/lavapipe.md), the query-parallel kernel left
// outputs unwritten from 248 keys at head dimension 128 (tq = s = 256:
// every query of the last workgroup but column 0 of its last 16); the ops
// now take the chunked kernels past the budget. Cases at the budget's
// edge (the largest s the query-parallel kernel takes, and one more), the
// reported size, and a longer cache at head dimension 256 without the
// mask, through both drivers.
func TestAttentionLoopBudget(t *testing.T) {
	for _, drv := range []string{"vulkan", "wgpu"} {
		t.Run(drv, func(t *testing.T) {
			c := open(t, drv)
			rng := kctest.NewRand(t)
			edge := 9
			for kernels.FlashLoops(edge+1, 128) <= c.LoopBudget() && edge < 600 {
				edge++
			}
			if edge < 600 {
				t.Logf("%s: loop budget %d: attention.kc up to %d keys at head dimension 128", drv, c.LoopBudget(), edge)
			}
			for _, tc := range []struct {
				flashCase
				causal bool
			}{{flashCase{edge, edge, 2, 1, 128}, true}, {flashCase{edge + 1, edge + 1, 2, 1, 128}, true},
				{flashCase{256, 256, 2, 1, 128}, true}, {flashCase{40, 300, 2, 2, 256}, false}} {
				qs, ks, vs := flashInputs(rng, tc.flashCase)
				got := runFlash(t, c, tc.flashCase, qs, ks, vs, tc.causal)
				want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), tc.causal)
				kctest.Compare(t, fmt.Sprintf("%+v causal=%v", tc.flashCase, tc.causal), got, want, attnTol)
			}
		})
	}
}

// TestCausality: changing the last key and value changes no output but
// the last query's (bit for bit), and does change the last query's; for
// both kernels (40 queries: query-parallel; 5 queries at the end of 600
// keys: split keys).
func TestCausality(t *testing.T) { testCausality(t, open(t, "vulkan")) }

func testCausality(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, tc := range []flashCase{{40, 40, 4, 2, 8}, {5, 600, 4, 2, 8}, {3, 500, 4, 2, 64}} {
		qs, ks, vs := flashInputs(rng, tc)
		before := runFlash(t, c, tc, qs, ks, vs, true)
		row := tc.hkv * tc.dh
		for i := (tc.s - 1) * row; i < tc.s*row; i++ {
			ks[i] = float32(rng.Float64()*4 - 2)
			vs[i] = float32(rng.Float64()*4 - 2)
		}
		after := runFlash(t, c, tc, qs, ks, vs, true)
		kernels.CheckCausal(t, fmt.Sprintf("%+v", tc), before, after, tc.tq, tc.hq*tc.dh)
	}
}

// TestDecodeAttention: one query against KV caches of 1 to 1000 keys
// (1 to 4 chunks of the split-key kernels), and more queries (the
// query-parallel kernel without a mask).
func TestDecodeAttention(t *testing.T) { testDecodeAttention(t, open(t, "vulkan")) }

func testDecodeAttention(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, tc := range []flashCase{{1, 1, 1, 1, 4}, {1, 3, 4, 2, 8}, {1, 17, 6, 3, 16}, {1, 300, 8, 2, 64}, {3, 20, 2, 1, 4}, {1, 1000, 2, 1, 8}, {20, 40, 2, 1, 4},
		{1, 1000, 8, 2, 128}, {2, 700, 6, 3, 32}, {1, 5, 4, 1, 64}, {4, 1500, 32, 8, 128}, {1, 333, 2, 2, 256}} {
		qs, ks, vs := flashInputs(rng, tc)
		got := runFlash(t, c, tc, qs, ks, vs, false)
		want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), false)
		kctest.Compare(t, "decodeattention", got, want, attnTol)
	}
}

// TestDecodeVariants: decode4.kc in every configuration the host may
// choose (invocations per workgroup, per key, value rows per step, values
// loaded with the keys or after them) with spans of one round and of
// several, a partial last round and span, head dimensions 32 to 256,
// f32, f16 and bf16 caches, and causal queries (tq = 3) whose last span
// ends early; then decodesg.kc's. On a CPU device a sample of 6 of the
// 90 configurations a run (sample).
func TestDecodeVariants(t *testing.T) {
	c := open(t, "vulkan")
	for _, tn := range sample(t, c, kctest.NewRand(t), decodeVariantTunings(), 6) {
		testDecodeTuning(t, c, tn)
	}
}

// decodeVariantTunings are TestDecodeVariants' configurations.
func decodeVariantTunings() []kernels.DecodeTuning {
	var tns []kernels.DecodeTuning
	for _, wg := range []int{128, 256} {
		for _, ln := range []int{1, 2, 4} {
			for _, vb := range []int{1, 4} {
				for _, span := range []int{0, wg / ln, 4 * wg / ln} {
					tns = append(tns, kernels.DecodeTuning{Span: span, Groups: 4, D4: kernels.D4Tuning{Invocations: wg, KeyLanes: ln, ValueRows: vb}})
				}
				tns = append(tns, kernels.DecodeTuning{Span: 4 * wg / ln, Groups: 4, D4: kernels.D4Tuning{Invocations: wg, KeyLanes: ln, ValueRows: vb, PreloadValues: true}},
					kernels.DecodeTuning{Groups: 4, D4: kernels.D4Tuning{Invocations: wg, KeyLanes: ln, ValueRows: 2 * vb, PreloadValues: true}})
			}
		}
	}
	// decodesg.kc (lavapipe's subgroups are 8 lanes: KL 16 becomes 8)
	for _, kl := range []int{4, 8, 16} {
		for _, ns := range []int{4, 8} {
			tns = append(tns, kernels.DecodeTuning{Span: 64, Groups: 4, SG: kernels.SGTuning{On: true, KeyLanes: kl, Subgroups: ns}})
			// batches of 1 to 4 steps (3: spans end inside a batch)
			for u := 1; u <= 4; u++ {
				tns = append(tns, kernels.DecodeTuning{Groups: 4, SG: kernels.SGTuning{On: true, KeyLanes: kl, Subgroups: ns, Steps: u}})
			}
		}
	}
	return tns
}

// TestDecodeSweep: the configurations BenchmarkOps -sweep times, as
// TestDecodeVariants tests its own (f32, f16 and bf16 caches, head
// dimensions 32 to 256, causal queries), so that each is checked before
// it is timed on a device (every one on a GPU; on a CPU device a sample
// of 4 a run).
func TestDecodeSweep(t *testing.T) {
	c := open(t, "vulkan")
	tns := append(append(append(append([]kernels.DecodeTuning{}, decode16Sweep...), decode32Sweep...), decodeWidenSweep[1], decodeWidenSweep[3]), decodeTCSweep...)
	// KC_DECODE_SWEEP=widen (a device call on a budget): only the
	// configurations that widen f16 by integer ops
	if os.Getenv("KC_DECODE_SWEEP") == "widen" {
		tns = []kernels.DecodeTuning{decodeWidenSweep[1], decodeWidenSweep[3]}
	}
	// KC_DECODE_SWEEP=row: only decodelr.kc's (the sweep's -rows)
	if os.Getenv("KC_DECODE_SWEEP") == "row" {
		tns = sweepRows()
	}
	// KC_DECODE_SWEEP=tc: only the tc sweep's configurations that
	// TestDecodeTCDevice does not check (decodelr.kc's)
	if os.Getenv("KC_DECODE_SWEEP") == "tc" {
		tns = nil
		for _, tn := range decodeTCSweep {
			if !tn.TC.On {
				tns = append(tns, tn)
			}
		}
	}
	for _, tn := range sample(t, c, kctest.NewRand(t), tns, 4) {
		tn.Groups = 4 // spans of several rounds at these sizes
		testDecodeTuning(t, c, tn)
	}
}

func testDecodeTuning(t *testing.T, c *kernels.Context, tn kernels.DecodeTuning) {
	rng := kctest.NewRand(t)
	c.SetDecodeTuning(tn)
	defer c.SetDecodeTuning(kernels.DecodeTuning{})
	for _, tc := range []flashCase{{1, 2500, 8, 2, 128}, {2, 1100, 4, 4, 64}, {1, 333, 3, 1, 32}, {1, 300, 2, 2, 256}} {
		qs, ks, vs := flashInputs(rng, tc)
		got := runFlash(t, c, tc, qs, ks, vs, false)
		want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), false)
		kctest.Compare(t, fmt.Sprintf("decodeattention %+v %+v", tn, tc), got, want, attnTol)
	}
	tc := flashCase{3, 700, 4, 2, 64}
	qs, ks, vs := flashInputs(rng, tc)
	got := runFlash(t, c, tc, qs, ks, vs, true)
	want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), true)
	kctest.Compare(t, fmt.Sprintf("causalattention %+v %+v", tn, tc), got, want, attnTol)
	// 16-bit caches (8 elements a vector) in the same configuration: every
	// head dimension where the configuration's span is chosen, else one
	cases := []flashCase{{1, 900, 8, 2, 128}, {2, 300, 3, 1, 64}, {1, 200, 2, 2, 256}, {3, 333, 4, 2, 32}}
	if tn.Span != 0 {
		cases = cases[:1]
	}
	// (on a CPU device one of the two types a configuration, drawn afresh)
	for _, d := range sample(t, c, rng, halfTypes, 1) {
		for _, tc := range cases {
			qs, ks, vs := flashInputs(rng, tc)
			roundAll(d, qs, ks, vs)
			got := runHalfFlash(t, c, d, tc, qs, ks, vs, false)
			want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), false)
			kctest.Compare(t, fmt.Sprintf("decodeattention %s %+v %+v", d, tn, tc), got, want, decodeHalfTol(c, d, tc))
		}
	}
}

// halfAttnTol: a result rounded once to d after f32 work (half an ulp of
// d relative) and, for f16 on cooperative matrices (flash16), the
// probabilities rounded to f16 before they weight the values: up to 2^-11
// of Σp|v|/l <= 1 more, absolute.
func halfAttnTol(d kernels.DType) kctest.Tol {
	if d == kernels.BF16 {
		return kctest.Tol{Abs: 2e-5, Rel: 1.01 / 256}
	}
	return kctest.Tol{Abs: 1.0/2048 + 2e-5, Rel: 1.01 / 2048}
}

// TestHalfAttention: causal and decode attention of f16 and bf16 tensors
// against float64 over the rounded inputs (on lavapipe through the f32
// kernels between casts; on a device with f16 cooperative matrices f16
// with more than 8 queries takes flash16), and causality.
func TestHalfAttention(t *testing.T) { testHalfAttention(t, open(t, "vulkan")) }

func testHalfAttention(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, d := range halfTypes {
		for _, tc := range []struct {
			flashCase
			causal bool
		}{{flashCase{17, 17, 4, 2, 32}, true}, {flashCase{40, 40, 4, 1, 64}, true}, {flashCase{3, 500, 8, 2, 128}, true},
			{flashCase{100, 130, 32, 8, 128}, true}, {flashCase{1, 1000, 32, 8, 128}, false}, {flashCase{20, 40, 2, 1, 16}, false}} {
			checkHalfAttention(t, c, rng, d, tc.flashCase, tc.causal, fmt.Sprintf("attention %s %+v causal %v", d, tc.flashCase, tc.causal))
		}
	}
}

// checkHalfAttention runs attention over q, k and v of the 16-bit type d
// (fresh inputs, rounded to d) against float64 within decodeHalfTol, and
// for causal runs of several queries checks that changing the last key
// and value changes the last query's output and no other.
func checkHalfAttention(t *testing.T, c *kernels.Context, rng *rand.Rand, d kernels.DType, tc flashCase, causal bool, name string) {
	t.Helper()
	qs, ks, vs := flashInputs(rng, tc)
	roundAll(d, qs, ks, vs)
	got := runHalfFlash(t, c, d, tc, qs, ks, vs, causal)
	want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), causal)
	kctest.Compare(t, name, got, want, decodeHalfTol(c, d, tc))
	if !causal || tc.tq < 2 {
		return
	}
	row := tc.hkv * tc.dh
	for i := (tc.s - 1) * row; i < tc.s*row; i++ {
		ks[i] = round(d, float32(rng.Float64()*4-2))
		vs[i] = round(d, float32(rng.Float64()*4-2))
	}
	after := runHalfFlash(t, c, d, tc, qs, ks, vs, true)
	kernels.CheckCausal(t, name, got, after, tc.tq, tc.hq*tc.dh)
}

func runHalfFlash(t *testing.T, c *kernels.Context, d kernels.DType, tc flashCase, qs, ks, vs []float32, causal bool) []float32 {
	t.Helper()
	q := uploadOf(t, c, d, qs, tc.tq, tc.hq*tc.dh)
	k := uploadOf(t, c, d, ks, tc.s, tc.hkv*tc.dh)
	v := uploadOf(t, c, d, vs, tc.s, tc.hkv*tc.dh)
	run := c.DecodeAttention
	if causal {
		run = c.CausalAttention
	}
	o, err := run(q, k, v, tc.hq, tc.hkv)
	if err != nil {
		t.Fatal(err)
	}
	if o.DType() != d {
		t.Fatalf("%s attention returned %s", d, o.DType())
	}
	return host(t, o)
}

// flash16Layouts are the flash16 configurations the device tests and the
// benchmark sweep run: subgroups, keys per block, layout (SetFlash16's
// names: "lean0un1" is the lean layout with Bcast0, Unmask, Near and
// Single).
var flash16Layouts = []struct {
	NSG, BK int
	Layout  string
}{{4, 32, "packed"}, {4, 32, "lean0"}, {4, 32, "lean0un"}, {4, 32, "lean0unp"}, {4, 64, "lean0un1"}, {4, 64, "lean0n1"},
	{4, 32, "lean0un1"}, {8, 32, "lean0un1"}}

// TestFlash16Layouts: every flash16 configuration of the sweep through
// CausalAttention against float64, on a device that runs flash16 (f16
// cooperative matrices, subgroups of 32: the H200); elsewhere the
// interpreter's TestFlash16 covers the kernels. Sizes cross the query
// tiles (a last tile partly past tq) and the key blocks, prefill and a
// continued sequence.
func TestFlash16Layouts(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	defer c.SetFlash16(0, 0, "")
	ran := 0
	for _, f := range flash16Layouts {
		c.SetFlash16(f.NSG, f.BK, f.Layout)
		if !kernels.Flash16Fits(c, 128) {
			t.Logf("flash16 %+v does not run on this device", f)
			continue
		}
		ran++
		for _, tc := range []flashCase{{100, 130, 32, 8, 128}, {300, 300, 4, 1, 128}, {9, 9, 2, 2, 128}} {
			qs, ks, vs := flashInputs(rng, tc)
			roundAll(kernels.F16, qs, ks, vs)
			got := runHalfFlash(t, c, kernels.F16, tc, qs, ks, vs, true)
			want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), true)
			kctest.Compare(t, fmt.Sprintf("flash16 %+v %+v", f, tc), got, want, halfAttnTol(kernels.F16))
		}
	}
	if ran == 0 {
		t.Skip("flash16 does not run on this device (no f16 cooperative matrices or subgroups of 32, or too little shared memory)")
	}
}
