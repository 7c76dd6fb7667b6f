package coopmat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// h200 is the adapter as the Vulkan driver reports the H200 (driver
// 580.159.04; docs/PERF.md's `kc devices` listing and cooperative_matrix2
// section): f16 with f16 or f32 accumulate and 8-bit integers in both
// flavours, bf16 only through VK_KHR_cooperative_matrix and only with f32
// accumulate.
func h200() backend.AdapterInfo {
	var shapes []backend.CoopMatShape
	for _, fl := range []string{"khr", "nv"} {
		for _, acc := range []string{"f16", "f32"} {
			for _, mnk := range [][3]int{{16, 16, 16}, {16, 8, 16}, {16, 8, 8}} {
				shapes = append(shapes, backend.CoopMatShape{M: mnk[0], N: mnk[1], K: mnk[2], A: "f16", B: "f16", C: acc, Result: acc, Scope: "subgroup", Flavor: fl})
			}
		}
		for _, t := range []string{"u8", "s8"} {
			for _, n := range []int{16, 8} {
				shapes = append(shapes, backend.CoopMatShape{M: 16, N: n, K: 32, A: t, B: t, C: t[:1] + "32", Result: t[:1] + "32", Scope: "subgroup", Flavor: fl})
			}
		}
		if fl == "khr" {
			shapes = append(shapes, backend.CoopMatShape{M: 16, N: 16, K: 16, A: "bf16", B: "bf16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: fl})
		}
	}
	return backend.AdapterInfo{Name: "NVIDIA H200", Driver: "vulkan", API: "Vulkan 1.4.312", DriverInfo: "NVIDIA 580.159.04",
		SubgroupSize: 32, CoopMat: shapes, Timestamps: true, F16: true, BF16: true, Int8: true,
		Limits: backend.Limits{MaxSharedMemory: 48 << 10, MaxInvocationsPerWorkgroup: 1024, MaxWorkgroupSize: [3]int{1024, 1024, 64}, MaxWorkgroupsPerDimension: 65535}}
}

func lavapipe() backend.AdapterInfo {
	return backend.AdapterInfo{Name: "llvmpipe", Driver: "vulkan", API: "Vulkan 1.3.230", DriverInfo: "Mesa 22.3.6", SubgroupSize: 8,
		Limits: backend.Limits{MaxSharedMemory: 32 << 10, MaxInvocationsPerWorkgroup: 1024, MaxWorkgroupSize: [3]int{1024, 1024, 1024}, MaxWorkgroupsPerDimension: 65535}}
}

func TestCoopShape(t *testing.T) {
	for _, dt := range []string{"f16", "bf16"} {
		s, ok := CoopShape(h200(), dt)
		want := backend.CoopMatShape{M: 16, N: 16, K: 16, A: dt, B: dt, C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}
		if !ok || s != want {
			t.Errorf("CoopShape(h200, %s) = %v, %v; want %v", dt, s, ok, want)
		}
	}
	if s, ok := CoopShape(h200(), "f32"); ok {
		t.Errorf("CoopShape(h200, f32) = %v, want none", s)
	}
	if s, ok := CoopShape(lavapipe(), "f16"); ok {
		t.Errorf("CoopShape(lavapipe, f16) = %v, want none", s)
	}
}

func TestCoopCandidates(t *testing.T) {
	o := Options{M: 8192, N: 8192, K: 8192, DType: "f16"}
	h := h200()
	cs := CoopCandidates(h, o)
	want := len(coopLayouts) // packed, and element staging and Interior where a layout asks
	for _, l := range coopLayouts {
		if l.Elements {
			want++
		}
		if l.Interior && !l.Direct && l.Swizzle <= 1 {
			want++ // variants are listed with interior fetches only
		}
	}
	if len(cs) != want {
		t.Fatalf("%d candidates on the H200, want all %d plans of the %d layouts", len(cs), want, len(coopLayouts))
	}
	if cs[0].Tile.BM != 128 || cs[0].Tile.BN != 128 || cs[0].Tile.BK != 32 || cs[0].Tile.Stages != 1 || cs[0].Threads != 128 || cs[0].Subgroups != [2]int{2, 2} || cs[0].Splits != 1 || !cs[0].Packed || !cs[0].Interior || cs[0].Swizzle != 8 {
		t.Errorf("first H200 plan %s (%d threads, %d splits), want a packed interior 128x128x32 tile of 4 subgroups in one stage, swizzled in bands of 8, no split", cs[0], cs[0].Threads, cs[0].Splits)
	}
	// On 32 KiB (lavapipe's limit) the plans over it are left out, in
	// order; the one-stage 128x128x32 plan still comes first.
	h.Limits.MaxSharedMemory = 32 << 10
	c32 := CoopCandidates(h, o)
	var fit []Plan
	for _, p := range cs {
		if p.Shared <= 32<<10 {
			fit = append(fit, p)
		}
	}
	if len(c32) != len(fit) || len(c32) >= len(cs) || c32[0].Tile.BK != 32 || c32[0].Tile.Stages != 1 || c32[0].Subgroups != [2]int{2, 2} {
		t.Fatalf("32 KiB: candidates %v; want the %d of 48 KiB that fit, a one-stage 128x128x32 plan first", c32, len(fit))
	}
	for i := range c32 {
		if c32[i].String() != fit[i].String() {
			t.Errorf("32 KiB: candidate %d is %s, want %s", i, c32[i], fit[i])
		}
	}
	for _, p := range c32 {
		if p.Shared > 32<<10 {
			t.Errorf("plan %s uses %d bytes of a 32 KiB limit", p, p.Shared)
		}
	}
	for _, p := range cs {
		if p.Shared > 48<<10 || p.Tile.BK%16 != 0 || p.Tile.BM%(p.Tile.TM*16) != 0 {
			t.Errorf("plan %s: shared %d, tile not a multiple of the 16x16x16 shape", p, p.Shared)
		}
	}
	// A smaller shared memory leaves out the plans that do not fit.
	h.Limits.MaxSharedMemory = 20 << 10
	for _, p := range CoopCandidates(h, o) {
		if p.Shared > 20<<10 {
			t.Errorf("plan %s uses %d bytes of a 20 KiB limit", p, p.Shared)
		}
	}
	if _, err := Candidates(lavapipe(), o); !isUnsupported(err) {
		t.Errorf("f16 candidates on lavapipe: err = %v, want *ir.UnsupportedError", err)
	}
	for _, p := range cs {
		if _, _, err := buildCoop(p); err != nil {
			t.Errorf("plan %s: %v", p, err)
		}
	}
}

func isUnsupported(err error) bool {
	var u *ir.UnsupportedError
	return errors.As(err, &u)
}

func TestSplitK(t *testing.T) {
	for _, o := range []Options{{M: 1, N: 4096, K: 4096}, {M: 16, N: 4096, K: 4096}, {M: 1, N: 130, K: 3001}} {
		p, err := f32Default(h200(), o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Splits < 2 || p.KS%p.Tile.BK != 0 || p.Splits*p.KS < o.K || (p.Splits-1)*p.KS >= o.K || p.KS < minSplitK {
			t.Errorf("%s: plan %s, KS %d: want a split covering K exactly, slices of at least %d", o, p, p.KS, minSplitK)
		}
	}
	for _, o := range []Options{{M: 8192, N: 8192, K: 8192}, {M: 1, N: 4096, K: 200}} {
		p, err := f32Default(h200(), o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Splits != 1 || p.KS < o.K {
			t.Errorf("%s: plan %s splits k (KS %d)", o, p, p.KS)
		}
	}
}

func TestF32CandidatesFit(t *testing.T) {
	o := Options{M: 1000, N: 1000, K: 1000}
	l := lavapipe()
	cs, err := Candidates(l, o)
	if err != nil || len(cs) != len(f32Tiles) {
		t.Fatalf("lavapipe: %d candidates, %v; want all %d", len(cs), err, len(f32Tiles))
	}
	l.Limits.MaxInvocationsPerWorkgroup = 128
	l.Limits.MaxSharedMemory = 8 << 10
	cs, _ = Candidates(l, o)
	for _, p := range cs {
		if p.Threads > 128 || p.Shared > 8<<10 {
			t.Errorf("plan %s: %d threads, %d bytes of shared memory over the limits", p, p.Threads, p.Shared)
		}
	}
	l.Limits.MaxInvocationsPerWorkgroup = 16
	_, err = Candidates(l, o)
	if err == nil || !strings.Contains(err.Error(), "no f32 matmul tile fits llvmpipe") {
		t.Errorf("16 invocations: err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o   Options
		err string
	}{
		{Options{M: 0, N: 1, K: 1}, "coopmat: matmul sizes must be positive (M=0 N=1 K=1)"},
		{Options{M: 1, N: 1, K: 1, DType: "f64"}, `coopmat: unknown element type "f64" (want f32, f16 or bf16)`},
		{Options{M: 1 << 17, N: 4, K: 1 << 15}, "coopmat: a 131072x4x32768 product has more than 2^32 elements per matrix"},
		{Options{M: 1, N: 1, K: 1, CType: "f16"}, "coopmat: an f32 product writes f32, not f16"},
		{Options{M: 1, N: 1, K: 1, DType: "bf16", CType: "f64"}, `coopmat: unknown element type "f64" for C (want f32, f16 or bf16)`},
	} {
		if err := c.o.Validate(); err == nil || err.Error() != c.err {
			t.Errorf("Validate(%+v) = %v, want %s", c.o, err, c.err)
		}
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{M: 2, N: 3, K: 4}, "f32 nn 2x3x4"},
		{Options{M: 2, N: 3, K: 4, DType: "f16", TransB: true}, "f16 nt 2x3x4"},
		{Options{M: 2, N: 3, K: 4, DType: "bf16", CType: "bf16"}, "bf16 nn 2x3x4"},
		{Options{M: 2, N: 3, K: 4, DType: "bf16", CType: "f32"}, "bf16>f32 nn 2x3x4"},
	} {
		if got := c.o.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q (the tune cache's key)", c.o, got, c.want)
		}
	}
}

// TestGeneratedKernels builds every candidate tile in every structural
// variant, emits SPIR-V and WGSL, and validates the SPIR-V with spirv-val.
func TestGeneratedKernels(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for _, o := range []Options{{M: 64, N: 64, K: 64}, {M: 63, N: 65, K: 67, TransB: true}, {M: 64, N: 64, K: 64, TransB: true}, {M: 9, N: 10, K: 11}} {
		for _, tile := range f32Tiles {
			p := f32Plan(o, tile)
			m, name, err := buildF32(p)
			if err != nil {
				t.Fatalf("%s %s: %v", o, p, err)
			}
			if _, err := backend.Emit(m, name, backend.WGSL); err != nil {
				t.Errorf("%s %s: WGSL: %v", o, p, err)
			}
			a, err := backend.Emit(m, name, backend.SPIRV)
			if err != nil {
				t.Fatalf("%s %s: SPIR-V: %v", o, p, err)
			}
			if got := a.Entries[0].Reflection.SharedBytes(); got != p.Shared {
				t.Errorf("%s %s: kernel declares %d bytes of shared memory, plan says %d", o, p, got, p.Shared)
			}
			if err := spirv.Validate(context.Background(), a.Words, "vulkan1.1"); err != nil {
				t.Errorf("%s %s: %v", o, p, err)
			}
		}
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	info := h200()
	o := Options{M: 512, N: 256, K: 128}
	if _, ok := lookupTuned(info, o); ok {
		t.Fatal("empty cache has a plan")
	}
	p := f32Plan(o, f32Tiles[3])
	if err := Remember(info, Tuned{Plan: p, TFLOPS: 1}); err != nil {
		t.Fatal(err)
	}
	got, ok := lookupTuned(info, o)
	if !ok || got.Tile != p.Tile {
		t.Fatalf("lookup after Remember = %v, %v; want %s", got, ok, p)
	}
	if c, _ := Choose(info, o); c.Tile != p.Tile {
		t.Errorf("Choose ignores the tuned plan: %s", c)
	}
	other := info
	other.DriverInfo = "NVIDIA 590.1"
	if _, ok := lookupTuned(other, o); ok {
		t.Error("a new driver version reuses the old tuning")
	}
	small := info
	small.Limits.MaxSharedMemory = 1024
	if _, ok := lookupTuned(small, o); ok {
		t.Error("a cached plan over the device's limits is used")
	}
	if err := ClearCache(); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookupTuned(info, o); ok {
		t.Error("plan survives ClearCache")
	}
	if err := ClearCache(); err != nil {
		t.Errorf("clearing an empty cache: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, cacheFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookupTuned(info, o); ok {
		t.Error("damaged cache yields a plan")
	}
	if err := Remember(info, Tuned{Plan: p}); err != nil {
		t.Errorf("Remember over a damaged cache: %v", err)
	}
}

// TestCoopDefaults: untuned, Choose picks on the H200 the plans measured
// fastest there on 2026-12-01 (docs/PERF.md): packed 128x128x32 tiles in
// one stage with interior fetches, swizzled in bands of 8, from 2048³ up, 64x64 tiles at 1024³,
// 32x32 at 512³, the skinny kernel for one row.
func TestCoopDefaults(t *testing.T) {
	t.Setenv(EnvCacheDir, t.TempDir())
	for _, tc := range []struct {
		m, n, k int
		want    string
	}{
		{8192, 8192, 8192, "coopmat 128x128x32/4x4+1 packed interior swizzle 8"},
		{4096, 4096, 4096, "coopmat 128x128x32/4x4+1 packed interior swizzle 8"},
		{2048, 2048, 2048, "coopmat 128x128x32/4x4+1 packed interior swizzle 8"},
		{1024, 1024, 1024, "coopmat 64x64x32/2x2+1 s2 packed"},
		{512, 512, 512, "coopmat 32x32x32/2x2+1 s2 packed"},
		{1, 4096, 4096, "gemv 1x256x256/1x8 split-k 16"},
	} {
		for _, dt := range []string{"f16", "bf16"} {
			o := Options{M: tc.m, N: tc.n, K: tc.k, DType: dt}
			if p, err := Choose(h200(), o); err != nil || p.String() != tc.want {
				t.Errorf("Choose(%s) = %s, %v; want %s", o, p, err, tc.want)
			}
		}
	}
}
