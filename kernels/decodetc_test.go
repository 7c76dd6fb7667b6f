package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// decodeTCCase is one run of the tensor-core decode kernel: the shapes,
// the keys a workgroup and whether the queries are causal.
type decodeTCCase struct {
	tq, s, hq, hkv, dh, span int
	causal                   bool
}

// decodeTCTol bounds |o - ref| for decodetc with the merge, the reference
// in float64 over the 16-bit inputs (values in [-1, 1], so outputs are
// convex combinations of such): rounding o to the cache's type costs up
// to half an ulp of it, 2^-11·|o| (f16) or 2^-8·|o| (bf16), rounding each
// p to that type before Vᵀ·Pᵀ up to as much of Σp|v|/l <= 1, and the f32
// scores, exponentials and sums far less.
func decodeTCTol(bf16 bool, ref float64) float64 {
	u := 0x1p-11
	if bf16 {
		u = 0x1p-8
	}
	return 1.01*u*(math.Abs(ref)+1) + 2e-5
}

// runDecodeTC runs the kernel's text src and decode4_merge16 on the
// interpreter as recordSplit records them (runSplitModule, with the
// interpreter's race check) and returns o.
func runDecodeTC(t *testing.T, src string, f decodeTCConfig, tc decodeTCCase, qb, kb, vb []byte) ([]float64, error) {
	t.Helper()
	m, err := parse.Load("decodetc.kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := F16
	if f.BF16 {
		d = BF16
	}
	return runSplitModule(t, m, "decodetc_partial", d, interp.Options{SubgroupSize: 32, Races: true}, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, tc.span, tc.causal, qb, kb, vb)
}

// decodeTCCheck runs f (its text mutated by mut, where given) on fresh
// inputs for tc and returns the first output outside decodeTCTol, or "".
func decodeTCCheck(t *testing.T, rng *rand.Rand, f decodeTCConfig, tc decodeTCCase, mut func(string) string) string {
	t.Helper()
	d := F16
	if f.BF16 {
		d = BF16
	}
	qb, q := randOf(rng, d, tc.tq*tc.hq*tc.dh)
	kb, k := randOf(rng, d, tc.s*tc.hkv*tc.dh)
	vb, v := randOf(rng, d, tc.s*tc.hkv*tc.dh)
	src, err := f.source()
	if err != nil {
		t.Fatal(err)
	}
	if mut != nil {
		src = mut(src)
	}
	got, err := runDecodeTC(t, src, f, tc, qb, kb, vb)
	if err != nil {
		return err.Error()
	}
	want := flash16Ref(q, k, v, tc.tq, tc.s, tc.hq, tc.hkv, tc.dh, tc.causal)
	for i := range want {
		if diff, tl := math.Abs(got[i]-want[i]), decodeTCTol(f.BF16, want[i]); !(diff <= tl) {
			return fmt.Sprintf("o[%d] = %g, want %g (|error| %.3g > %.3g)", i, got[i], want[i], diff, tl)
		}
	}
	return ""
}

// TestDecodeTC runs the tensor-core decode kernel and the merge on the
// interpreter (no driver here has cooperative matrices) against float64:
// f16 with 8 and 16 head columns, bf16 (16), heads per key/value head 1
// to 16 (3: a padded column), head dimensions 32 to 256, caches shorter
// than one block and not a multiple of 16 keys (the last block through
// shared memory), spans of one and several blocks with a last span cut
// short, causal queries whose spans end early or hold no key, and
// workgroups of 1, 2 and 4 subgroups with 1 and 2 tiles each; keys and
// values loaded straight from k and v or staged through shared memory.
func TestDecodeTC(t *testing.T) {
	rng := kctest.NewRand(t)
	type run struct {
		f  decodeTCConfig
		tc decodeTCCase
	}
	runs := []run{
		{decodeTCConfig{N: 8, NSG: 4, BT: 1}, decodeTCCase{1, 300, 8, 2, 128, 128, false}},
		{decodeTCConfig{N: 8, NSG: 2, BT: 1}, decodeTCCase{1, 5, 4, 2, 64, 32, false}},
		{decodeTCConfig{N: 8, NSG: 2, BT: 2}, decodeTCCase{3, 333, 8, 2, 64, 64, true}},
		{decodeTCConfig{N: 8, NSG: 1, BT: 2}, decodeTCCase{2, 77, 2, 2, 32, 32, true}},
		{decodeTCConfig{N: 8, NSG: 2, BT: 1}, decodeTCCase{1, 100, 16, 2, 64, 64, false}},
		{decodeTCConfig{N: 16, NSG: 2, BT: 1}, decodeTCCase{1, 100, 16, 2, 64, 32, false}},
		{decodeTCConfig{N: 16, NSG: 1, BT: 1}, decodeTCCase{1, 50, 16, 1, 32, 16, false}},
		{decodeTCConfig{N: 8, NSG: 4, BT: 1}, decodeTCCase{1, 70, 6, 2, 256, 64, false}},
		{decodeTCConfig{N: 16, NSG: 4, BT: 1, BF16: true}, decodeTCCase{1, 300, 8, 2, 128, 128, false}},
		{decodeTCConfig{N: 16, NSG: 2, BT: 2, BF16: true}, decodeTCCase{3, 200, 4, 1, 64, 64, true}},
		{decodeTCConfig{N: 16, NSG: 1, BT: 1, BF16: true}, decodeTCCase{1, 9, 2, 2, 32, 16, false}},
		// the default's shape for bf16 heads of 256 within 48 KiB
		// (subgroupsFor)
		{decodeTCConfig{N: 16, NSG: 2, BT: 1, BF16: true}, decodeTCCase{1, 90, 8, 2, 256, 64, false}},
	}
	if testing.Short() {
		runs = runs[:3]
	}
	for _, r := range runs {
		r.f.DH, r.f.G = r.tc.dh, r.tc.hq/r.tc.hkv
		// keys and values straight from k and v or staged
		// (with each block's loads issued during the block before: PF)
		for _, st := range [][3]bool{{false, false, false}, {false, true, false}, {true, true, false}, {true, false, false}, {false, true, true}} {
			r.f.SK, r.f.SV, r.f.PF = st[0], st[1], st[2]
			if msg := decodeTCCheck(t, rng, r.f, r.tc, nil); msg != "" {
				t.Errorf("%+v %+v: %s", r.f, r.tc, msg)
			}
		}
	}
}

// TestDecodeTCMutants: the checks of TestDecodeTC fail when the kernel
// drops the accumulators' rescale, the mask of keys past the cache or
// the subgroups' rescale at the end (keys and values direct, and staged).
func TestDecodeTCMutants(t *testing.T) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	tc := decodeTCCase{1, 150, 8, 2, 64, 64, false}
	for _, f := range []decodeTCConfig{{DH: 64, G: 4, N: 8, NSG: 2, BT: 1}, {DH: 64, G: 4, N: 8, NSG: 2, BT: 1, SK: true, SV: true}, {DH: 64, G: 4, N: 8, NSG: 2, BT: 1, SV: true, PF: true}} {
		for name, mut := range map[string]func(string) string{
			"no rescale":  func(s string) string { return strings.ReplaceAll(s, "of1 = of1 * cm", "") },
			"no key mask": func(s string) string { return strings.ReplaceAll(s, "jt + r < kend", "jt + r < kend + 8") },
			"no merge factor": func(s string) string {
				return strings.ReplaceAll(s, " * exp2(st[x * N + g] - mx)", "")
			},
		} {
			src, _ := f.source()
			if mut(src) == src {
				t.Fatalf("%s: the mutation changed nothing", name)
			}
			msg := decodeTCCheck(t, rng, f, tc, mut)
			if msg == "" {
				t.Errorf("%s: the mutant passed", name)
			}
			t.Logf("%s: %s", name, msg)
		}
	}
}

// TestDecodeTCSubgroups: the default takes 4 subgroups a workgroup where
// they fit the shared memory and halves them until the kernel fits, so
// that bf16 caches with heads of 256 still run on the tensor cores within
// the H200's 48 KiB.
func TestDecodeTCSubgroups(t *testing.T) {
	const limit = 48 << 10
	for _, f := range []decodeTCConfig{
		{DH: 128, G: 4, N: 8, BT: 1, SV: true},
		{DH: 256, G: 4, N: 8, BT: 1, SV: true},
		{DH: 128, G: 4, N: 16, BT: 1, SV: true, BF16: true},
		{DH: 256, G: 4, N: 16, BT: 1, SV: true, BF16: true},
	} {
		n := f.subgroupsFor(limit)
		f.NSG = n
		if f.shared() > limit {
			t.Errorf("%+v: %d subgroups need %d bytes of shared memory, more than %d", f, n, f.shared(), limit)
		}
		if n < 4 {
			f.NSG = 2 * n
			if f.shared() <= limit {
				t.Errorf("%+v: %d subgroups chosen, but %d fit (%d bytes)", f, n, 2*n, f.shared())
			}
		}
		if f.DH == 256 && f.BF16 && n == 4 {
			t.Errorf("%+v: 4 subgroups (%d bytes) were expected not to fit %d", f, f.shared(), limit)
		}
	}
}
