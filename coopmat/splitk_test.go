package coopmat

import (
	"strings"
	"testing"
)

// TestCheckSplits: a split-k plan whose scratch (Splits·M·N partial
// products) a u32 index cannot reach, or the device cannot bind, or whose
// reduction needs more workgroups than a dimension allows, is refused with
// an error saying which; one just inside every limit passes.
func TestCheckSplits(t *testing.T) {
	h := h200()
	lp := lavapipe()
	lp.Limits.MaxStorageBufferBindingSize = 128 << 20
	plan := func(m, n, splits int) Plan {
		p := f32Plan(Options{M: m, N: n, K: 1 << 20}, f32Tiles[0])
		p.Splits, p.KS = splits, (1<<20)/splits
		return p
	}
	// The premise: at 257 slices of a 4096x4095 product, the u32 index
	// of slice 256's last element, z·M·N + M·N - 1, wraps into the scratch's
	// first slices, where another workgroup writes.
	const m, n = 4096, 4095
	z, mn := uint32(256), uint32(m*n)
	if idx := z*mn + mn - 1; uint64(idx) >= uint64(mn)*uint64(z) {
		t.Fatalf("u32 index %d does not wrap", idx)
	}
	for _, tc := range []struct {
		p    Plan
		dev  string
		want string // a substring of the error; "" for none
	}{
		{plan(m, n, 257), "h200", "past the 2^32 a kernel's u32 index reaches"},
		{plan(m, n, 256), "h200", ""},
		{plan(4096, 4097, 2), "h200", "its split-k reduction needs 65552 workgroups; NVIDIA H200 allows 65535 per dimension"},
		{plan(4096, 4096, 2), "h200", "its split-k reduction needs 65536 workgroups"},
		{plan(4096, 4080, 2), "h200", ""},
		{plan(2048, 4096, 4), "lavapipe", ""}, // 128 MiB: at the limit
		{plan(2048, 4096, 5), "lavapipe", "its split-k scratch of 167772160 bytes exceeds llvmpipe's storage binding limit 134217728"},
		{plan(1<<20, 1<<20, 1), "lavapipe", ""}, // no split, no scratch
	} {
		info := h
		if tc.dev == "lavapipe" {
			info = lp
		}
		err := tc.p.checkSplits(info)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s on %s: %v", tc.p.Options, tc.p, tc.dev, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s on %s: %v, want an error with %q", tc.p.Options, tc.p, tc.dev, err, tc.want)
		}
	}
}

// TestCandidatesFitSplits: on a device whose storage bindings are too small
// for a product's split-k scratch, the candidates run unsplit (the same
// product splits where the binding is large enough), and every candidate
// passes checkSplits.
func TestCandidatesFitSplits(t *testing.T) {
	o := Options{M: 256, N: 256, K: 1 << 16}
	big := lavapipe()
	small := lavapipe()
	small.Limits.MaxStorageBufferBindingSize = 256 << 10 // C's 256x256 f32, no more
	split := false
	for _, p := range f32Candidates(big, o) {
		split = split || p.Splits > 1
	}
	if !split {
		t.Fatalf("no candidate of %s splits k: the test tests nothing", o)
	}
	cs := f32Candidates(small, o)
	if len(cs) == 0 {
		t.Fatal("no candidates")
	}
	for _, p := range cs {
		if err := p.checkSplits(small); err != nil || p.Splits != 1 || p.KS < o.K {
			t.Errorf("%s: splits %d, ks %d: %v", p, p.Splits, p.KS, err)
		}
	}
	hs := h200()
	hs.Limits.MaxStorageBufferBindingSize = 256 << 10
	ccs := CoopCandidates(hs, Options{M: 256, N: 256, K: 1 << 16, DType: "f16"})
	if len(ccs) == 0 {
		t.Fatal("no cooperative-matrix candidates")
	}
	for _, p := range ccs {
		if err := p.checkSplits(hs); err != nil || p.Splits != 1 {
			t.Errorf("coopmat %s: splits %d: %v", p, p.Splits, err)
		}
	}
}

// TestTunedSplitsChecked: a cached plan whose split-k the device cannot
// hold (a damaged or foreign cache) is not used.
func TestTunedSplitsChecked(t *testing.T) {
	t.Setenv(EnvCacheDir, t.TempDir())
	info := h200()
	o := Options{M: 4096, N: 4095, K: 1 << 20}
	p := f32Plan(o, f32Tiles[0])
	p.Splits, p.KS = 257, 4096
	if err := Remember(info, Tuned{Plan: p, TFLOPS: 1}); err != nil {
		t.Fatal(err)
	}
	if got, ok := lookupTuned(info, o); ok {
		t.Errorf("a cached plan with %d·%d·%d partial products is used: %s", p.Splits, o.M, o.N, got)
	}
	p.Splits, p.KS = 256, 4096
	if err := Remember(info, Tuned{Plan: p, TFLOPS: 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookupTuned(info, o); !ok {
		t.Error("a cached plan inside the limits is not used")
	}
}
