package kernels

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
)

// TestSkinnyMatch: a layout picks its own plan among coopmat's candidates
// for an H200-like device (prefetching, staged or neither; a·bᵀ, and a·b
// where nn is set); a prefetching or staged layout where b's rows are not
// 16-byte aligned (no such plan) takes the same layout without either, and
// a layout the device lacks none.
func TestSkinnyMatch(t *testing.T) {
	info := backend.AdapterInfo{Name: "H200-like", SubgroupSize: 32, F16: true,
		CoopMat: []backend.CoopMatShape{{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}},
		Limits:  backend.Limits{MaxSharedMemory: 48 << 10, MaxInvocationsPerWorkgroup: 1024, MaxWorkgroupsPerDimension: 65535}}
	pf := skinnyLayout{S: 4, TN: 2, KS: 512, Prefetch: 8}
	for _, c := range []struct {
		k        int // b's row length (k, or n with nn)
		l        skinnyLayout
		ok, want bool // found, and the plan prefetches
		nn       bool
	}{
		{4096, pf, true, true, false},
		{4096, skinnyLayout{S: 4, TN: 2, KS: 512}, true, false, false},
		{4100, pf, true, false, false},
		{4096, skinnyLayout{S: 3, TN: 2, KS: 512, Prefetch: 8}, false, false, false},
		{4096, skinnyLayout{S: 4, TN: 2, KS: 512, Prefetch: 3}, true, false, false}, // no such depth listed
		{4096, skinnyLayout{S: 8, TN: 1, KS: 512, Whole: true, StageB: true}, true, false, false},
		{4100, skinnyLayout{S: 8, TN: 1, KS: 512, Whole: true, StageB: true}, true, false, false}, // rows not 16-byte aligned: not staged
		{4096, skinnyLayout{S: 4, TN: 1, KS: 512, Whole: true, StageB: true}, true, false, true},
		{4096, skinnyLayout{S: 8, TN: 1, KS: 256, Whole: true, StageB: true}, true, false, true},
		{4100, skinnyLayout{S: 4, TN: 1, KS: 512, Whole: true, StageB: true}, true, false, true},
		{4096, skinnyLayout{S: 8, TN: 1, KS: 512, Whole: true, Prefetch: 4}, true, true, true},
	} {
		o := coopmat.Options{M: 16, N: 4096, K: c.k, DType: "f16", TransB: true}
		if c.nn {
			o = coopmat.Options{M: 16, N: c.k, K: 4096, DType: "f16"}
		}
		cs, err := coopmat.Candidates(info, o)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := skinnyMatch(cs, c.l)
		if ok != c.ok || ok && ((p.Prefetch > 0) != c.want || p.StageB != (c.l.StageB && c.k%8 == 0) || p.Subgroups[0] != c.l.S || p.Tile.TN != c.l.TN || p.Tile.BK != c.l.KS) {
			t.Errorf("k %d, layout %+v: plan %s, %v; want found %v, prefetch %v", c.k, c.l, p, ok, c.ok, c.want)
		}
	}
}
