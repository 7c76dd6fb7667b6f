package kernels_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// TestDecodeRowVariants: decodelr.kc through DecodeAttention and
// CausalAttention on the device's subgroups (lavapipe: 8 lanes) against
// float64 (TestDecodeSweep checks the H200 sweep's configurations), with
// spans of several batches and of one, values with the keys, after the
// dots and a batch ahead, half a 16-bit vector a lane: f32, f16 and bf16 caches (testDecodeTuning's shapes, where a
// group of 3 heads takes decode4.kc instead), and 1, 2, 4 and 8 query
// heads per key/value head at head dimensions 32 to 256 with key counts
// that are multiples of nothing, each checked to run decodelr.kc. On a
// CPU device one of the configurations a run, drawn afresh (sample).
func TestDecodeRowVariants(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	for _, tn := range sample(t, c, rng, decodeRowVariantTunings(), 1) {
		testDecodeTuning(t, c, tn)
		c.SetDecodeTuning(tn)
		for _, d := range []kernels.DType{kernels.F32, kernels.F16} {
			for _, tc := range []struct {
				flashCase
				causal bool
			}{{flashCase{1, 777, 16, 2, 128}, false}, {flashCase{2, 301, 4, 2, 32}, true}, {flashCase{1, 259, 2, 1, 256}, false},
				{flashCase{1, 130, 1, 1, 64}, false}, {flashCase{4, 203, 8, 8, 128}, true}} {
				if f := c.SplitKernel(d, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh); f != "decodelr.kc" {
					// f16 rows of 32 are 4 vectors: at most 4 heads a group
					if d == kernels.F16 && tc.dh == 32 && tc.hq/tc.hkv > 4 {
						continue
					}
					t.Fatalf("%+v %s %+v: split kernel %q, want decodelr.kc", tn, d, tc.flashCase, f)
				}
				qs, ks, vs := flashInputs(rng, tc.flashCase)
				tol := attnTol
				if d != kernels.F32 {
					roundAll(d, qs, ks, vs)
					tol = halfAttnTol(d)
				}
				got := runHalfFlash(t, c, d, tc.flashCase, qs, ks, vs, tc.causal)
				want := attnRef(qs, ks, vs, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, float64(float32(1/math.Sqrt(float64(tc.dh)))), tc.causal)
				kctest.Compare(t, fmt.Sprintf("decodelr %s %+v %+v causal %v", d, tn, tc.flashCase, tc.causal), got, want, tol)
			}
		}
		c.SetDecodeTuning(kernels.DecodeTuning{})
	}
}

// decodeRowVariantTunings are TestDecodeRowVariants' configurations.
func decodeRowVariantTunings() []kernels.DecodeTuning {
	return []kernels.DecodeTuning{
		{Groups: 4, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 4}},
		{Groups: 4, LR: kernels.LRTuning{On: true, Subgroups: 2, Rows: 8, ValuesAfter: true}},
		{Span: 16, LR: kernels.LRTuning{On: true, Subgroups: 1, Rows: 2}},
		{Groups: 4, LR: kernels.LRTuning{On: true, Subgroups: 2, Rows: 4, Prefetch: true}},
		{Groups: 4, LR: kernels.LRTuning{On: true, HalfVector: true, Subgroups: 4, Rows: 8}},
	}
}

// sweepRows are the sweep's decodelr.kc configurations (both caches).
func sweepRows() []kernels.DecodeTuning {
	return append(rowsOf(decode32Sweep), rowsOf(decode16Sweep)...)
}

// rowsOf is the decodelr.kc configurations of a sweep list.
func rowsOf(tns []kernels.DecodeTuning) []kernels.DecodeTuning {
	var out []kernels.DecodeTuning
	for _, tn := range tns {
		if tn.LR.On {
			out = append(out, tn)
		}
	}
	return out
}

// TestDecodeDefaultKernel: with the default tuning, f32 and 16-bit caches
// take decodelr.kc where a lane holds at most 4 vectors of the queries
// (the H200's measured configurations; 16-bit caches half a vector a
// lane) and another kernel elsewhere.
func TestDecodeDefaultKernel(t *testing.T) {
	c := open(t, "vulkan")
	sg := c.Device().Info().SubgroupSize
	for _, tc := range []struct {
		d          kernels.DType
		g, dh      int
		wantLR     bool
		whyNotLRSG string
	}{{kernels.F32, 4, 128, sg >= 32, "a lane holds 4 query vectors only with 32 lanes"}, {kernels.F32, 1, 128, true, ""},
		{kernels.F32, 8, 128, false, "8 query vectors a lane"}, {kernels.F32, 3, 128, false, "3 heads"}, {kernels.F32, 2, 32, true, ""},
		{kernels.F16, 4, 128, sg >= 32, "16-bit: a lane holds 4 query vectors (half a vector each) only with 32 lanes"},
		{kernels.BF16, 2, 64, true, ""}, {kernels.F16, 8, 128, false, "8 query vectors a lane"}} {
		f := c.SplitKernel(tc.d, 1, 1000, 8*tc.g, 8, tc.dh)
		if (f == "decodelr.kc") != tc.wantLR {
			t.Errorf("%s, %d heads a group, head dimension %d, subgroups of %d: split kernel %q (want decodelr.kc: %v; %s)", tc.d, tc.g, tc.dh, sg, f, tc.wantLR, tc.whyNotLRSG)
		}
	}
}
