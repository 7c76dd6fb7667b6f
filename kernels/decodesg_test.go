package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestDecodeSG32 runs decodesg.kc and decode4_merge on the interpreter
// with subgroups of 32 (NVIDIA's; lavapipe, where the package's other
// tests run it, has 8) against float64: f32 and f16 caches, the lanes per
// key, subgroups and batch steps of the H200 sweep, spans that end inside
// a batch and a last span cut short.
func TestDecodeSG32(t *testing.T) {
	rng := kctest.NewRand(t)
	const tq, s, hq, hkv, dh, span = 1, 300, 8, 2, 128, 128
	// lanes per key, subgroups, steps a batch, f16 widened by integer ops
	cfgs := [][4]int{{4, 4, 2, 1}, {4, 4, 2, 0}, {8, 8, 1, 0}, {4, 8, 3, 0}, {8, 4, 4, 1}}
	if testing.Short() {
		cfgs = cfgs[:2]
	}
	for _, h16 := range []bool{false, true} {
		for _, cf := range cfgs {
			kl, ns, u, wid := cf[0], cf[1], cf[2], cf[3]
			e := 4
			if h16 {
				e = 8
			}
			dv := dh / e
			defs := map[string]string{"DH": strconv.Itoa(dh), "G": strconv.Itoa(hq / hkv), "SG": "32", "KL": strconv.Itoa(min(kl, min(32, dv))),
				"VL": strconv.Itoa(min(32, dv)), "NS": strconv.Itoa(ns), "H16": "0", "VE": strconv.Itoa(e / 4), "U": strconv.Itoa(u), "WID": strconv.Itoa(wid)}
			var q, k, v []float64
			var qb, kb, vb []byte
			if h16 {
				defs["H16"] = "1"
				qb, q = f16Rand(rng, tq*hq*dh, -1, 1)
				kb, k = f16Rand(rng, s*hkv*dh, -1, 1)
				vb, v = f16Rand(rng, s*hkv*dh, -1, 1)
			} else {
				qb, q = f32Rand(rng, tq*hq*dh)
				kb, k = f32Rand(rng, s*hkv*dh)
				vb, v = f32Rand(rng, s*hkv*dh)
			}
			got := runSplit(t, "decodesg.kc", "decodesg_partial", defs, F32, tq, s, hq, hkv, dh, span, false, qb, kb, vb)
			want := flash16Ref(q, k, v, tq, s, hq, hkv, dh, false)
			name := fmt.Sprintf("decodesg f16 %v KL %d NS %d U %d WID %d", h16, kl, ns, u, wid)
			for i := range want {
				if d, tl := math.Abs(got[i]-want[i]), 2e-5*(math.Abs(want[i])+1); !(d <= tl) {
					t.Fatalf("%s: o[%d] = %g, want %g (|error| %.3g > %.3g)", name, i, got[i], want[i], d, tl)
				}
			}
		}
	}
}

// f32Rand returns n random f32 values in [-1, 1) as bytes and as float64.
func f32Rand(rng *rand.Rand, n int) ([]byte, []float64) {
	b, x := make([]byte, 4*n), make([]float64, n)
	for i := range x {
		f := float32(rng.Float64()*2 - 1)
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		x[i] = float64(f)
	}
	return b, x
}

// TestDecode4Interp runs decode4h.kc and the merges on the interpreter
// against float64: f32, f16 and bf16 caches (the 16-bit results rounded
// by decode4_merge16), the configurations of the H200 sweep, head
// dimensions 32 to 256, spans of one and several rounds with a partial
// last round and span, and causal queries whose last span ends early.
func TestDecode4Interp(t *testing.T) {
	rng := kctest.NewRand(t)
	type cfg struct{ wg, ln, vb, pre, wid int }
	cfgs := []cfg{{256, 4, 4, 0, 1}, {256, 2, 4, 1, 0}, {256, 4, 4, 0, 0}, {256, 2, 8, 0, 1}, {256, 4, 4, 1, 0}, {256, 4, 8, 0, 0}, {128, 2, 4, 1, 1}, {256, 1, 8, 0, 0}}
	cases := []struct {
		tq, s, hq, hkv, dh, span int
		causal                   bool
	}{{1, 300, 8, 2, 128, 256, false}, {3, 333, 4, 2, 64, 512, true}, {1, 77, 2, 2, 256, 128, false}, {2, 1000, 3, 1, 32, 512, false}, {1, 1000, 32, 8, 128, 128, false}}
	if testing.Short() {
		cfgs, cases = cfgs[:2], cases[:2]
	}
	for _, d := range []DType{F32, F16, BF16} {
		for _, cf := range cfgs {
			for _, tc := range cases {
				e := 16 / d.Size()
				dv := tc.dh / e
				if dv%cf.ln != 0 || dv > cf.wg {
					continue
				}
				span := max(tc.span, cf.wg/cf.ln)
				g := tc.hq / tc.hkv
				defs := map[string]string{"DH": strconv.Itoa(tc.dh), "G": strconv.Itoa(g), "WG": strconv.Itoa(cf.wg),
					"LN": strconv.Itoa(cf.ln), "VB": strconv.Itoa(min(cf.vb, dv/cf.ln)), "RED": strconv.Itoa(max(g, e) * cf.wg),
					"H16": h16Def[d], "VE": strconv.Itoa(e / 4), "PRE": strconv.Itoa(cf.pre), "WID": strconv.Itoa(cf.wid)}
				qb, q := randOf(rng, d, tc.tq*tc.hq*tc.dh)
				kb, k := randOf(rng, d, tc.s*tc.hkv*tc.dh)
				vb, v := randOf(rng, d, tc.s*tc.hkv*tc.dh)
				got := runSplit(t, "decode4h.kc", "decode4h_partial", defs, d, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, span, tc.causal, qb, kb, vb)
				want := flash16Ref(q, k, v, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, tc.causal)
				// f32 work; 16-bit results rounded once (half an ulp)
				rel := map[DType]float64{F32: 2e-5, F16: 1.01 / 2048, BF16: 1.01 / 256}[d]
				for i := range want {
					if diff, tl := math.Abs(got[i]-want[i]), 2e-5+rel*math.Abs(want[i]); !(diff <= tl) {
						t.Fatalf("decode4h %s %+v %+v: o[%d] = %g, want %g (|error| %.3g > %.3g)", d, cf, tc, i, got[i], want[i], diff, tl)
					}
				}
			}
		}
	}
}

// randOf returns n random values in [-1, 1) of type d as bytes and as
// float64.
func randOf(rng *rand.Rand, d DType, n int) ([]byte, []float64) {
	switch d {
	case F16:
		return f16Rand(rng, n, -1, 1)
	case BF16:
		b, x := make([]byte, 2*n), make([]float64, n)
		for i := range x {
			h := math.Float32bits(float32(rng.Float64()*2-1)) >> 16 // truncation: any bf16 will do
			binary.LittleEndian.PutUint16(b[2*i:], uint16(h))
			x[i] = float64(math.Float32frombits(h << 16))
		}
		return b, x
	}
	return f32Rand(rng, n)
}

// mustLoad parses the embedded file with defs; an error ends the test.
func mustLoad(t *testing.T, file string, defs map[string]string) *ir.Module {
	t.Helper()
	m, err := loadSource(file, defs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runSplit runs a split-key partial kernel and the merge for output type
// d on the interpreter as splitKeys records them and returns o.
func runSplit(t *testing.T, file, kernel string, defs map[string]string, d DType, tq, s, hq, hkv, dh, span int, causal bool, qb, kb, vb []byte) []float64 {
	t.Helper()
	return runSplitSG(t, 32, file, kernel, defs, d, tq, s, hq, hkv, dh, span, causal, qb, kb, vb)
}

// runSplitSG runs split-key partial kernel `kernel` of file (specialised
// with defs) on the interpreter with subgroups of sg lanes, then the merge
// (runSplitModule).
func runSplitSG(t *testing.T, sg int, file, kernel string, defs map[string]string, d DType, tq, s, hq, hkv, dh, span int, causal bool, qb, kb, vb []byte) []float64 {
	t.Helper()
	out, err := runSplitModule(t, mustLoad(t, file, defs), kernel, d, interp.Options{SubgroupSize: sg}, tq, s, hq, hkv, dh, span, causal, qb, kb, vb)
	if err != nil {
		t.Fatalf("%v: %v", defs, err)
	}
	return out
}

// runSplitModule runs a split-key partial kernel of m on the interpreter under
// opt (q, k, v as bytes of the cache's type d; every workgroup of the
// hkv x spans x tq grid, the partial results poisoned first), then
// decode4.kc's merge into d (mergeSpec), and returns the output widened
// to float64. The partial kernel's error is returned (mutant tests expect
// some); the merge's ends the test.
func runSplitModule(t *testing.T, m *ir.Module, kernel string, d DType, opt interp.Options, tq, s, hq, hkv, dh, span int, causal bool, qb, kb, vb []byte) ([]float64, error) {
	t.Helper()
	nch := (s + span - 1) / span
	part := interp.Poison(4 * tq * hq * nch * (dh + 2))
	iv := func(x int) ir.Value { return ir.IntVal(int64(x)) }
	cz := 0
	if causal {
		cz = 1
	}
	params := map[string]ir.Value{"tq": iv(tq), "s": iv(s), "hq": iv(hq), "hkv": iv(hkv), "causal": iv(cz),
		"scale": ir.FloatVal(float64(float32(1 / math.Sqrt(float64(dh))))), "span": iv(span)}
	err := interp.Run(m, kernel, [3]int{hkv, nch, tq},
		&interp.Args{Params: params, Buffers: map[string][]byte{"q": qb, "k": kb, "v": vb, "part": part}}, opt)
	if err != nil {
		return nil, err
	}
	merge, md := mergeSpec(dh, d)
	ob := interp.Poison(d.Size() * tq * hq * dh)
	err = interp.Run(mustLoad(t, "decode4.kc", md), merge, [3]int{hq, tq, dh / 32},
		&interp.Args{Params: map[string]ir.Value{"hq": iv(hq), "nch": iv(nch)}, Buffers: map[string][]byte{"part": part, "o": ob}}, interp.Options{SubgroupSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, tq*hq*dh)
	for i := range out {
		switch d {
		case F16:
			out[i] = float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(ob[2*i:])))
		case BF16:
			out[i] = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(ob[2*i:])) << 16))
		default:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(ob[4*i:])))
		}
	}
	return out, nil
}
