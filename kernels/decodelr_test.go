package kernels

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestDecodeLRInterp runs decodelr.kc and the merges on the interpreter
// against float64 with subgroups of 32 (NVIDIA's) and 8 (lavapipe's, where
// the package's other tests run it): f32, f16 and bf16 caches, rows per
// batch 1 to 16 and the default's choice, values loaded with or after the keys or a batch ahead,
// 16-bit vectors whole or half a lane (HV),
// loads and butterfly in the kernel or by functions (FN), 1 to 8 query
// heads per key/value head (so butterflies that end with several scores a
// lane, one, or one replicated), head dimensions 32 to 256 (a row over
// 4 to 64 lanes' vectors), spans that end inside a batch, and causal
// queries whose last span ends early.
func TestDecodeLRInterp(t *testing.T) {
	rng := kctest.NewRand(t)
	type cfg struct{ sg, rb, ns, va, pf, fn, hv int }
	cfgs := []cfg{{32, 0, 4, 0, 0, 0, 0}, {32, 8, 4, 0, 0, 0, 0}, {32, 4, 2, 1, 1, 0, 0}, {32, 4, 2, 1, 0, 0, 0}, {32, 1, 1, 0, 0, 0, 0}, {32, 16, 2, 0, 0, 0, 0}, {32, 2, 4, 0, 1, 0, 0},
		{32, 8, 4, 0, 0, 1, 0}, {32, 4, 2, 0, 1, 1, 0}, {32, 4, 2, 1, 0, 1, 0}, {8, 4, 4, 0, 0, 0, 0}, {8, 2, 2, 1, 0, 0, 0}, {8, 2, 4, 0, 1, 0, 0}, {8, 4, 2, 0, 0, 1, 0},
		// half a 16-bit vector a lane (HV; f32 caches ignore it)
		{32, 8, 4, 0, 0, 0, 1}, {32, 0, 4, 0, 0, 0, 1}, {32, 16, 2, 0, 0, 0, 1}, {32, 4, 2, 1, 1, 0, 1}, {32, 2, 2, 0, 0, 1, 1}, {8, 4, 4, 0, 0, 0, 1}, {8, 2, 2, 1, 0, 0, 1}, {8, 4, 2, 0, 0, 1, 1}, {8, 2, 4, 0, 1, 0, 1}}
	cases := []struct {
		tq, s, hq, hkv, dh, span int
		causal                   bool
	}{{1, 300, 8, 2, 128, 128, false}, {3, 333, 4, 2, 64, 256, true}, {1, 77, 2, 2, 256, 64, false}, {2, 203, 8, 1, 32, 512, false},
		{1, 150, 1, 1, 128, 64, false}, {1, 100, 16, 2, 128, 64, false}}
	if testing.Short() {
		cfgs, cases = cfgs[:2], cases[:3]
	}
	for _, d := range []DType{F32, F16, BF16} {
		for _, cf := range cfgs {
			for _, tc := range cases {
				defs := lrDefs(cf.sg, d, cf.rb, cf.ns, cf.va, cf.pf, cf.fn, cf.hv, tc.hq/tc.hkv, tc.dh)
				if defs == nil || d == F32 && cf.hv != 0 {
					continue
				}
				lr, _ := strconv.Atoi(defs["LR"])
				rb, _ := strconv.Atoi(defs["RB"])
				span := max(tc.span, cf.ns*cf.sg/lr*rb)
				qb, q := randOf(rng, d, tc.tq*tc.hq*tc.dh)
				kb, k := randOf(rng, d, tc.s*tc.hkv*tc.dh)
				vb, v := randOf(rng, d, tc.s*tc.hkv*tc.dh)
				got := runSplitSG(t, cf.sg, "decodelr.kc", "decodelr_partial", defs, d, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, span, tc.causal, qb, kb, vb)
				want := flash16Ref(q, k, v, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, tc.causal)
				// f32 work; 16-bit results rounded once (half an ulp)
				rel := map[DType]float64{F32: 2e-5, F16: 1.01 / 2048, BF16: 1.01 / 256}[d]
				name := fmt.Sprintf("decodelr %s %+v %+v", d, cf, tc)
				for i := range want {
					if diff, tl := math.Abs(got[i]-want[i]), 2e-5+rel*math.Abs(want[i]); !(diff <= tl) {
						t.Fatalf("%s: o[%d] = %g, want %g (|error| %.3g > %.3g)", name, i, got[i], want[i], diff, tl)
					}
				}
			}
		}
	}
}
