package kernels_test

import (
	"fmt"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// decodeHalfTol is halfAttnTol for attention over a cache of type d in
// c's configuration: where the tensor-core kernel runs (up to 8 queries),
// P is rounded
// to d before it weights the values, up to half an ulp of d of Σp|v|/l
// <= 1 (inputs in [-1, 1]) absolute — for f16 halfAttnTol already allows
// it, for bf16 it adds 2^-8.
func decodeHalfTol(c *kernels.Context, d kernels.DType, tc flashCase) kctest.Tol {
	tl := halfAttnTol(d)
	if d == kernels.BF16 && tc.tq <= 8 && kernels.DecodeTCApplies(c, d, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh) {
		tl.Abs += 1.01 / 256
	}
	return tl
}

// decodeTCSweep is the 16-bit configurations that BenchmarkOps -sweep
// times with KC_DECODE_SWEEP=tc (beside the default) and TestDecodeSweep
// and TestDecodeTCDevice check: the tensor-core kernel's (TC) by
// subgroups a workgroup (Subgroups; TS in docs/PERF.md), tiles of 16 keys
// a subgroup per block (Tiles, TT), head columns (Columns, TN; 0: 8 for
// f16), loads (Loads, TL: 0 values staged) and workgroups, the first the
// tensor-core default; then decodelr.kc's with half a vector a lane
// (LR.HalfVector, HV; the 16-bit default where it applies is the first
// of them), which TestDecodeSweep checks. The H200 calls (docs/PERF.md)
// also timed TL 1 (keys and values straight from k and
// v), 2 (both staged), 3 (keys staged), 4 (each block's loads issued
// during the block before, into the same registers), a block's loads
// issued at the start of the block before into a second set of registers
// (eight configurations; removed), 8 subgroups, 16 head columns,
// workgroups of one subgroup (about 512, 1024 and 2048 of them, 1 and 2
// tiles), 4 subgroups with about 128, 512, 1024 and 2048 workgroups, and
// decodelr.kc's HV with 16 rows a batch, 8 subgroups, the values after
// the dots, about 512 workgroups, and a lane's half selected as it is
// loaded (removed): none faster than these.
var decodeTCSweep = []kernels.DecodeTuning{
	{Groups: 256, TC: kernels.TCTuning{On: true, Subgroups: 4, Tiles: 1}},
	{Groups: 512, TC: kernels.TCTuning{On: true, Subgroups: 2, Tiles: 1}},
	{Groups: 1024, LR: kernels.LRTuning{On: true, HalfVector: true, Subgroups: 4, Rows: 8}},
	{Groups: 2048, LR: kernels.LRTuning{On: true, HalfVector: true, Subgroups: 4, Rows: 8}},
	{Groups: 1024, LR: kernels.LRTuning{On: true, HalfVector: true, Subgroups: 4, Rows: 4}},
}

// TestDecodeTCDevice runs decode attention on the tensor-core kernel in
// each configuration of decodeTCSweep (beyond the first four, on the
// benchmark's shape only) against float64 where the device
// has cooperative matrices (not lavapipe: there the kernel is tested on
// the interpreter, TestDecodeTC): f16 and bf16 caches, heads per key/value
// head 1 to 8, head dimensions 32 to 256, a cache shorter than one block,
// caches not a multiple of 16 keys, and causal queries (tq 3), whose
// outputs must not change when only the last key and value do (but the
// last query's must).
func TestDecodeTCDevice(t *testing.T) {
	c := open(t, "vulkan")
	c.SetDecodeTuning(decodeTCSweep[0])
	if !kernels.DecodeTCApplies(c, kernels.F16, 1, 1024, 32, 8, 128) {
		t.Skip("the device has no KHR cooperative matrices of f16 with subgroups of 32: the kernel runs on the interpreter only (TestDecodeTC)")
	}
	rng := kctest.NewRand(t)
	cases := []struct {
		flashCase
		causal bool
	}{{flashCase{1, 1000, 32, 8, 128}, false}, {flashCase{3, 501, 8, 2, 128}, true}, {flashCase{1, 7, 4, 4, 64}, false},
		{flashCase{2, 300, 3, 1, 64}, false}, {flashCase{1, 200, 2, 2, 256}, false}, {flashCase{3, 333, 16, 2, 32}, true}, {flashCase{1, 100, 16, 1, 64}, false}}
	for n, tn := range decodeTCSweep {
		if !tn.TC.On {
			continue
		}
		tn.Groups = 8 // spans of several blocks at these sizes
		c.SetDecodeTuning(tn)
		for _, d := range halfTypes {
			for m, tc := range cases {
				if n >= 4 && m > 0 {
					break // the benchmark's shape only
				}
				if !kernels.DecodeTCApplies(c, d, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh) {
					if m == 0 && d == kernels.F16 {
						t.Fatalf("%s %+v %+v: the tensor-core kernel does not apply", d, tn, tc)
					}
					// e.g. bf16 (16 head columns) with two tiles a
					// subgroup, or heads of 256: more shared memory than
					// the device has (decode4h.kc runs)
					t.Logf("%s %+v %+v: the tensor-core kernel does not apply", d, tn, tc)
					continue
				}
				checkHalfAttention(t, c, rng, d, tc.flashCase, tc.causal, fmt.Sprintf("decodetc %s %+v %+v causal %v", d, tn, tc.flashCase, tc.causal))
			}
		}
	}
	c.SetDecodeTuning(kernels.DecodeTuning{})
}
