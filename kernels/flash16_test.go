package kernels

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// flash16Only keeps TestFlash16 to the configurations whose %+v text
// contains it (e.g. "Lean:true").
var flash16Only = flag.String("flash16", "", "TestFlash16: only configurations whose %+v contains this")

// flash16Tol bounds |o - ref| for flash16, the reference in float64 over
// the f16 inputs: outputs are convex combinations of values in [-1, 1];
// rounding o to f16 costs up to 2^-11·|o|, rounding each p to f16 before
// P·v up to 2^-11 of Σp|v|/l <= 1, and the f32 scores, exps and sums
// (a few ulp of f32 each) far less: 2^-11·(|o| + 1) + 2e-5.
func flash16Tol(ref float64) float64 { return 0x1p-11*(math.Abs(ref)+1) + 2e-5 }

// f16Rand returns n random f16 values in [lo, hi) as bytes and as the
// float64 of each.
func f16Rand(rng *rand.Rand, n int, lo, hi float64) ([]byte, []float64) {
	b, x := make([]byte, 2*n), make([]float64, n)
	for i := range x {
		h := interp.F32ToF16Bits(float32(lo + rng.Float64()*(hi-lo)))
		binary.LittleEndian.PutUint16(b[2*i:], h)
		x[i] = float64(interp.F16BitsToF32(h))
	}
	return b, x
}

// runFlash16 runs flash16 on the interpreter and returns o as float64.
func runFlash16(t *testing.T, f flash16Config, tq, s, hq, hkv int, causal bool, qb, kb, vb []byte) []float64 {
	t.Helper()
	src, err := f.source()
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Load("flash16.kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var cz int64
	if causal {
		cz = 1
	}
	ob := interp.Poison(2 * tq * hq * f.DH)
	params := map[string]ir.Value{"tq": ir.IntVal(int64(tq)), "s": ir.IntVal(int64(s)), "hq": ir.IntVal(int64(hq)),
		"hkv": ir.IntVal(int64(hkv)), "causal": ir.IntVal(cz), "scale": ir.FloatVal(float64(float32(1 / math.Sqrt(float64(f.DH)))))}
	bq := 16 * f.NSG
	err = interp.Run(m, "flash16", [3]int{(tq + bq - 1) / bq, hq, 1},
		&interp.Args{Params: params, Buffers: map[string][]byte{"q": qb, "k": kb, "v": vb, "o": ob}}, interp.Options{SubgroupSize: f.SUB, Races: true})
	if err != nil {
		t.Fatalf("%+v: %v", f, err)
	}
	out := make([]float64, tq*hq*f.DH)
	for i := range out {
		out[i] = float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(ob[2*i:])))
	}
	return out
}

// AttnRow is the reference attention of query i, head h (of hq, sharing
// key head h/(hq/hkv)) over keys 0 .. end-1 in float64, the inputs read
// through f: the dh values of softmax(scale·q·kᵀ)·v. The external tests'
// references use it too.
func AttnRow[T float32 | float64](qs, ks, vs []T, f func(T) float64, i, h, end, hq, hkv, dh int, scale float64) []float64 {
	kh := h / (hq / hkv)
	sc := make([]float64, end)
	mx := math.Inf(-1)
	for j := range sc {
		for c := 0; c < dh; c++ {
			sc[j] += f(qs[(i*hq+h)*dh+c]) * f(ks[(j*hkv+kh)*dh+c])
		}
		sc[j] *= scale
		mx = math.Max(mx, sc[j])
	}
	var sum float64
	for j := range sc {
		sc[j] = math.Exp(sc[j] - mx)
		sum += sc[j]
	}
	out := make([]float64, dh)
	for c := range out {
		var acc float64
		for j := range sc {
			acc += sc[j] * f(vs[(j*hkv+kh)*dh+c])
		}
		out[c] = acc / sum
	}
	return out
}

// AttnRef is AttnRow for every query and head: q [tq, hq·dh], k, v [s,
// hkv·dh]; query i at position i+s-tq attends keys up to its position when
// causal, all keys otherwise.
func AttnRef[T float32 | float64](qs, ks, vs []T, f func(T) float64, tq, s, hq, hkv, dh int, scale float64, causal bool) []float64 {
	out := make([]float64, tq*hq*dh)
	for h := 0; h < hq; h++ {
		for i := 0; i < tq; i++ {
			end := s
			if causal {
				end = i + s - tq + 1
			}
			copy(out[(i*hq+h)*dh:], AttnRow(qs, ks, vs, f, i, h, end, hq, hkv, dh, scale))
		}
	}
	return out
}

// flash16Ref is attention in float64 at flash16's scale.
func flash16Ref(q, k, v []float64, tq, s, hq, hkv, dh int, causal bool) []float64 {
	scale := float64(float32(1 / math.Sqrt(float64(dh))))
	return AttnRef(q, k, v, func(x float64) float64 { return x }, tq, s, hq, hkv, dh, scale, causal)
}

// TestFlash16 runs the cooperative-matrix attention on the interpreter
// (no driver here has cooperative matrices) against float64: prefill and
// continued sequences, causal and not, sizes 1, 3, 17 and others across
// the 16·NSG-query and BK-key tiles, head dimensions 16 to 128, both
// layouts in six configurations each (keys per block below, equal to and above the queries
// per workgroup); then causality (a changed last key changes no earlier
// query, bit for bit, and does change the last).
func TestFlash16(t *testing.T) {
	rng := kctest.NewRand(t)
	type tc struct {
		tq, s, hq, hkv, dh int
		causal             bool
	}
	cases := []tc{{1, 1, 1, 1, 16, true}, {3, 3, 2, 1, 16, true}, {17, 17, 4, 2, 32, true}, {3, 40, 2, 1, 16, true},
		{70, 70, 2, 2, 16, true}, {5, 33, 2, 1, 32, false}, {9, 20, 4, 1, 128, true},
		// whole query tiles that see whole key blocks (Unmask's path)
		{130, 200, 2, 1, 16, true}, {128, 100, 1, 1, 32, false}}
	if testing.Short() {
		cases = cases[:3]
	}
	var cfgs []flash16Config
	for _, lay := range [][2]bool{{false, false}, {true, false}, {false, true}} {
		for _, nb := range [][2]int{{2, 16}, {4, 32}, {4, 16}, {2, 64}, {8, 32}, {4, 64}} {
			cfgs = append(cfgs, flash16Config{NSG: nb[0], SUB: 32, BK: nb[1], Direct: lay[0], Packed: lay[1]})
		}
	}
	// the lean layout (blocks of a multiple of 32 keys), with both ways of
	// reading the rescale factors, and with its other options (letters
	// as SetFlash16's: u Unmask, n Near, 1 Single, p Pipe; configurations
	// an option does not apply to are left out)
	for _, o := range []string{"", "0", "0u", "u", "0n", "0un", "n", "0n1", "0un1", "n1", "0np", "0unp"} {
		for _, nb := range [][2]int{{4, 32}, {8, 32}, {2, 64}, {1, 32}, {4, 64}} {
			f := flash16Config{NSG: nb[0], SUB: 32, BK: nb[1], Packed: true, Lean: true,
				Bcast0: strings.Contains(o, "0"), Unmask: strings.Contains(o, "u"), Near: strings.Contains(o, "n"),
				Single: strings.Contains(o, "1"), Pipe: strings.Contains(o, "p")}
			if f.Pipe && 16*f.NSG > 3*f.BK {
				continue // the query tile must fit kv's three stages
			}
			cfgs = append(cfgs, f)
		}
	}
	if *flash16Only != "" {
		var keep []flash16Config
		for _, f := range cfgs {
			if strings.Contains(fmt.Sprintf("%+v", f), *flash16Only) {
				keep = append(keep, f)
			}
		}
		cfgs = keep
	}
	for _, f := range cfgs {
		for _, c := range cases {
			f.DH = c.dh
			qb, q := f16Rand(rng, c.tq*c.hq*c.dh, -1, 1)
			kb, k := f16Rand(rng, c.s*c.hkv*c.dh, -1, 1)
			vb, v := f16Rand(rng, c.s*c.hkv*c.dh, -1, 1)
			got := runFlash16(t, f, c.tq, c.s, c.hq, c.hkv, c.causal, qb, kb, vb)
			want := flash16Ref(q, k, v, c.tq, c.s, c.hq, c.hkv, c.dh, c.causal)
			name := fmt.Sprintf("%+v %+v", f, c)
			for i := range want {
				if d, tl := math.Abs(got[i]-want[i]), flash16Tol(want[i]); !(d <= tl) {
					t.Fatalf("%s: o[%d] = %g, want %g (|error| %.3g > %.3g)", name, i, got[i], want[i], d, tl)
				}
			}
			if !c.causal || c.tq < 2 {
				continue
			}
			row := c.hkv * c.dh
			kb2, vb2 := append([]byte(nil), kb...), append([]byte(nil), vb...)
			for i := (c.s - 1) * row; i < c.s*row; i++ {
				binary.LittleEndian.PutUint16(kb2[2*i:], interp.F32ToF16Bits(float32(rng.Float64()*4-2)))
				binary.LittleEndian.PutUint16(vb2[2*i:], interp.F32ToF16Bits(float32(rng.Float64()*4-2)))
			}
			after := runFlash16(t, f, c.tq, c.s, c.hq, c.hkv, c.causal, qb, kb2, vb2)
			CheckCausal(t, name, got, after, c.tq, c.hq*c.dh)
		}
	}
}

// CheckCausal fails tb unless after, causal attention's output (rows of
// row values, tq queries) once only the last key and value changed, keeps
// every query's output but the last's bit for bit and changes the last's.
func CheckCausal[T float32 | float64](tb testing.TB, name string, before, after []T, tq, row int) {
	tb.Helper()
	last := (tq - 1) * row
	for i := 0; i < last; i++ {
		if before[i] != after[i] {
			tb.Fatalf("%s: o[%d] (query %d) changed from %g to %g when only the last key changed", name, i, i/row, before[i], after[i])
		}
	}
	changed := false
	for i := last; i < len(after); i++ {
		changed = changed || before[i] != after[i]
	}
	if !changed {
		tb.Errorf("%s: the last query ignores the last key", name)
	}
}
