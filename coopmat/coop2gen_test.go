package coopmat

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/spirv"
)

// h200cm2 is h200 with VK_NV_cooperative_matrix2 as the H200's driver
// reports it (kc devices, 2026-12-01, driver 580.159.04; the f16 and bf16
// entries with f32 accumulate: granularity 16x16x16 at subgroup scope and
// at workgroup scope with 32 and 64 invocations, 32x16x16 with 128,
// 32x32x16 with 256).
func h200cm2() backend.AdapterInfo {
	info := h200()
	var flex []backend.CoopMatShape
	for _, t := range []string{"f16", "bf16"} {
		flex = append(flex, backend.CoopMatShape{M: 16, N: 16, K: 16, A: t, B: t, C: "f32", Result: "f32", Scope: "subgroup", Flavor: "flex"})
		for _, g := range [][4]int{{16, 16, 16, 32}, {16, 16, 16, 64}, {32, 16, 16, 128}, {32, 32, 16, 256}} {
			flex = append(flex, backend.CoopMatShape{M: g[0], N: g[1], K: g[2], A: t, B: t, C: "f32", Result: "f32", Scope: "workgroup", Flavor: "flex", Invocations: g[3]})
		}
	}
	info.CoopMat2 = &backend.CoopMat2{WorkgroupScope: true, FlexibleDimensions: true, TensorAddressing: true,
		MaxWorkgroupSize: 256, MaxDimension: 1024, ReservedShared: 8 << 10, Flexible: flex}
	return info
}

// TestCoop2Kernels runs the workgroup-scope kernels on the interpreter
// (whole-matrix semantics, one matrix per workgroup) against float64, for
// every input and output type and transposition, on ragged sizes (the
// staged edge path), exact ones (the direct path, no shared memory), a
// mixed one, and one whose rows of A (K = 44 halves, 88 bytes) and of C
// (N = 68) are not 16-byte aligned, so that every tile, inside C or not,
// takes the staged path (coop2Shape.Unaligned; the interpreter stops a
// misaligned coopLoad), rotating over the plans, some with a forced
// split-k.
func TestCoop2Kernels(t *testing.T) {
	coopRotation(t, [][3]int{{17, 33, 65}, {64, 64, 64}, {70, 64, 40}, {64, 68, 44}}, func(o Options) []Plan {
		var cs []Plan
		for _, p := range Coop2Candidates(h200cm2(), o) {
			if p.Tile.BM*p.Tile.BN <= 64*64 { // keep the interpreter's work small
				cs = append(cs, p)
			}
		}
		if len(cs) == 0 {
			t.Fatalf("%s: no small workgroup-scope plan", o)
		}
		return cs
	})
}

// TestCoop2Plans: workgroup-scope plans exist only where the device has
// workgroup scope, follow its granularity and invocations, leave the
// driver's shared reserve free, and carry edge code only where needed;
// every kernel emits as SPIR-V 1.6 with SPV_NV_cooperative_matrix2 and
// disassembles (spirv-val 2023.1 knows neither the KHR matrix type nor the
// extension: the H200 runs them).
func TestCoop2Plans(t *testing.T) {
	o := Options{M: 8192, N: 8192, K: 8192, DType: "f16"}
	if cs := Coop2Candidates(h200(), o); len(cs) != 0 {
		t.Errorf("H200 without cooperative_matrix2: %d workgroup-scope plans, want none", len(cs))
	}
	info := h200cm2()
	for _, sz := range [][3]int{{8192, 8192, 8192}, {1000, 1000, 1000}, {1, 4096, 4096}, {17, 33, 65}} {
		for _, dt := range []string{"f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, TransB: tb}
				cs := Coop2Candidates(info, o)
				if len(cs) == 0 {
					t.Fatalf("%s: no workgroup-scope plan", o)
				}
				all, err := Candidates(info, o)
				if err != nil {
					t.Errorf("%s: Candidates: %v", o, err)
				}
				for _, p := range all {
					if p.Generator == "coop2" {
						t.Errorf("%s: Candidates lists the workgroup-scope plan %s, want only subgroup-scope and skinny ones", o, p)
					}
				}
				if cs[0].Threads != 256 || cs[len(cs)-1].Threads != 32 {
					t.Errorf("%s: plans from %d to %d invocations, want 256 first and 32 last", o, cs[0].Threads, cs[len(cs)-1].Threads)
				}
				for _, p := range cs {
					s, err := p.coop2Shape()
					if err != nil {
						t.Fatal(err)
					}
					g := p.Shape
					if p.Threads != g.Invocations || p.Tile.BM%g.M != 0 || p.Tile.BN%g.N != 0 || p.Tile.BK%g.K != 0 {
						t.Errorf("%s %s: %d invocations, tile off the %dx%dx%d granularity of %d", o, p, p.Threads, g.M, g.N, g.K, g.Invocations)
					}
					if p.Tile.BM*p.Tile.BN > 128*p.Threads {
						t.Errorf("%s %s: %d accumulator elements per invocation, more than 128", o, p, p.Tile.BM*p.Tile.BN/p.Threads)
					}
					exact := o.M%p.Tile.BM == 0 && o.N%p.Tile.BN == 0 && o.K%p.Tile.BK == 0 && p.KS%p.Tile.BK == 0
					if s.Edges == exact || (p.Shared == 0) != (exact && s.Out != "bf16") { // bf16 C: through Cs
						t.Errorf("%s %s: edges %v, shared %d; the sizes are exact: %v", o, p, s.Edges, p.Shared, exact)
					}
					if p.Shared > 40<<10 {
						t.Errorf("%s %s: %d bytes of shared memory, more than 48 KiB less the 8 KiB reserve", o, p, p.Shared)
					}
					_, _, a := emitPlan(t, p)
					if spirv.VersionOf(a.Words) != spirv.V1_6 {
						t.Errorf("%s %s: SPIR-V %s, want 1.6", o, p, spirv.VersionOf(a.Words))
					}
					text, err := spirv.Disassemble(a.Words)
					if err != nil {
						t.Fatalf("%s %s: %v", o, p, err)
					}
					if !strings.Contains(text, `OpExtension "SPV_NV_cooperative_matrix2"`) {
						t.Errorf("%s %s: no SPV_NV_cooperative_matrix2 in the module", o, p)
					}
				}
			}
		}
	}
}

// TestCoop2Cache: a workgroup-scope plan the tuner found fastest is what
// Choose returns for its problem on its device, and is ignored on a device
// without that flexible entry.
func TestCoop2Cache(t *testing.T) {
	t.Setenv(EnvCacheDir, t.TempDir())
	info := h200cm2()
	o := Options{M: 4096, N: 4096, K: 4096, DType: "bf16"}
	if p, err := Choose(info, o); err != nil || p.Generator != "coopmat" {
		t.Fatalf("untuned default %v (%v), want the subgroup kernel", p, err)
	}
	want := Coop2Candidates(info, o)[0]
	if err := Remember(info, Tuned{Plan: want, TFLOPS: 1}); err != nil {
		t.Fatal(err)
	}
	if p, err := Choose(info, o); err != nil || p.Generator != "coop2" || p.Tile != want.Tile || *p.Shape != *want.Shape {
		t.Errorf("Choose after tuning = %v (%v), want %s", p, err, want)
	}
	without := info
	without.CoopMat2 = &backend.CoopMat2{WorkgroupScope: true, FlexibleDimensions: true, MaxWorkgroupSize: 128, Flexible: info.CoopMat2.Flexible}
	if p, _ := Choose(without, o); p.Generator == "coop2" {
		t.Errorf("a device without 256-invocation workgroup scope chose %s", p)
	}
	if err := want.check(h200()); err == nil {
		t.Error("a workgroup-scope plan passes the check of a device without cooperative_matrix2")
	}
}
