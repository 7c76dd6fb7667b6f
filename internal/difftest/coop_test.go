package difftest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestCoop runs irgen's cooperative-matrix kernels (GenerateCoop) from
// fresh seeds on the interpreter (subgroups of 32, race detection on)
// against the generator's float64 reference, emits each as SPIR-V in its
// flavour (the NV modules through spirv-val), and loads it on the Vulkan
// device: a device without cooperative matrices (lavapipe) must refuse it
// with an *ir.UnsupportedError. On a device with cooperative matrices,
// kernels restricted to the device's shapes and types (coopConfigs) run
// there too, against the interpreter (coopOnDevice).
func TestCoop(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	d := device(t, "vulkan")
	info := d.Info()
	hasCoop := len(info.CoopMat) > 0
	for _, cfg := range []irgen.CoopConfig{{BF16: true, Int8: true}, {NV: true, Int8: true}} {
		for _, seed := range seeds(t) {
			k, _, _, _, _ := coopInterp(t, seed, cfg)
			a := coopEmit(t, k)
			if !hasCoop {
				_, err := d.Load(context.Background(), a)
				var unsup *ir.UnsupportedError
				if !errors.As(err, &unsup) {
					t.Fatalf("seed %d: loading on %s (no cooperative matrices): %v, want an *ir.UnsupportedError", seed, info.Name, err)
				}
			}
		}
	}
	if !hasCoop {
		return
	}
	cfgs := coopConfigs(info)
	if len(cfgs) == 0 {
		t.Fatalf("%s offers cooperative matrices %v but none GenerateCoop can use with subgroups of %d", info.Name, info.CoopMat, info.SubgroupSize)
	}
	for _, cfg := range cfgs {
		for _, seed := range seeds(t) {
			coopOnDevice(t, d, seed, cfg)
		}
	}
}

// coopInterp generates the kernel of seed under cfg and runs it on the
// interpreter, which must be within the float64 reference's bound tol. It
// returns the kernel, its parameters, its input buffers (a copy taken
// before the run), the buffers the interpreter left and tol.
func coopInterp(t *testing.T, seed uint64, cfg irgen.CoopConfig) (*irgen.CoopKernel, map[string]ir.Value, map[string][]byte, map[string][]byte, map[string][]float64) {
	t.Helper()
	k, err := irgen.GenerateCoop(seed, cfg)
	if err != nil {
		t.Fatalf("seed %d %+v: %v\n%s", seed, cfg, err, k.Source)
	}
	params, bufs := k.Inputs()
	want, tol := k.Reference(params, bufs)
	in := map[string][]byte{}
	for n, b := range bufs {
		in[n] = bytes.Clone(b)
	}
	if err := interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: bufs}, interp.Options{SubgroupSize: 32, Races: true}); err != nil {
		t.Fatalf("seed %d %+v: interpreter: %v\n%s", seed, cfg, err, k.Source)
	}
	if err := irgen.CompareCoop(bufs, want, tol); err != nil {
		t.Fatalf("seed %d %+v: interpreter against the reference: %v\n%s", seed, cfg, err, k.Source)
	}
	return k, params, in, bufs, tol
}

// coopEmit emits k's module as SPIR-V in its config's flavour, the NV
// flavour through spirv-val.
func coopEmit(t *testing.T, k *irgen.CoopKernel) *emit.Artifact {
	t.Helper()
	flavor := spirv.CoopMatKHR
	if k.Config.NV {
		flavor = spirv.CoopMatNV
	}
	a, err := spirv.Emit(k.Module, spirv.Options{CoopMat: flavor})
	if err != nil {
		t.Fatalf("seed %d %+v: emit: %v\n%s", k.Seed, k.Config, err, k.Source)
	}
	if k.Config.NV {
		if err := spirv.ValidateArtifact(context.Background(), a); err != nil {
			t.Fatalf("seed %d %+v: %v\n%s", k.Seed, k.Config, err, k.Source)
		}
	}
	return a
}

// coopConfigs are the generator configs a device runs: one per flavour
// (KHR, NV) it lists subgroup shapes of, restricted to those shapes, with
// bf16 and 8-bit matrices where the device has the types. None for a
// device without cooperative matrices or without subgroups of 32 (the
// generated kernels give each 32 invocations a matrix).
func coopConfigs(info backend.AdapterInfo) []irgen.CoopConfig {
	if info.SubgroupSize != 32 {
		return nil
	}
	var out []irgen.CoopConfig
	for _, fl := range []string{"khr", "nv"} {
		cfg := irgen.CoopConfig{NV: fl == "nv", BF16: fl == "khr" && info.BF16, Int8: info.Int8, Shapes: coopShapes(info, fl)}
		if len(cfg.Shapes) > 0 {
			out = append(out, cfg)
		}
	}
	return out
}

// coopShapes are info's subgroup-scope shapes of flavour fl in irgen's
// terms: A and B of one type, the result of C's, no saturation.
func coopShapes(info backend.AdapterInfo, fl string) []irgen.CoopShape {
	names := map[string]string{"f16": "f16", "bf16": "bf16", "f32": "f32", "s8": "i8", "u8": "u8", "s32": "i32", "u32": "u32"}
	var out []irgen.CoopShape
	for _, s := range info.CoopMat {
		a, c := names[s.A], names[s.C]
		if s.Flavor != fl || s.Scope != "subgroup" || s.Saturating || s.A != s.B || s.C != s.Result || a == "" || c == "" {
			continue
		}
		out = append(out, irgen.CoopShape{M: s.M, N: s.N, K: s.K, A: a, C: c})
	}
	return out
}

// coopOnDevice runs the kernel of seed under cfg on the interpreter and
// on d and compares. Tolerance: the interpreter is within Reference's
// bound tol of the float64 reference (checked), the device must be within
// DeviceReference's dtol, which adds what tensor cores may do differently
// (their own summation order, fused or not, in the accumulator's
// precision: 2(K+1) ulp of the accumulator at the largest sum of |terms|
// per multiply-add, propagated through the later operations); so device
// and interpreter may differ by tol + dtol per element, no more.
func coopOnDevice(t *testing.T, d *backend.Device, seed uint64, cfg irgen.CoopConfig) {
	t.Helper()
	k, params, onDev, bufs, tol := coopInterp(t, seed, cfg)
	dwant, dtol := k.DeviceReference(params, onDev)
	ctx := context.Background()
	pl, err := d.Load(ctx, coopEmit(t, k))
	if err != nil {
		t.Fatalf("seed %d %+v: load on %s: %v\n%s", seed, cfg, d.Info().Name, err, k.Source)
	}
	got := backendtest.Dispatch(t, d, pl, k.Module.Kernel(k.Name), params, onDev, [3]int{k.Groups, 1, 1})
	both := map[string][]float64{}
	for name, b := range tol {
		both[name] = make([]float64, len(b))
		for i := range b {
			both[name][i] = b[i] + dtol[name][i]
		}
	}
	interpOut := map[string][]byte{}
	for name := range tol {
		interpOut[name] = bufs[name]
	}
	if err := irgen.CompareCoop(got, interpOut, both); err != nil {
		t.Fatalf("seed %d %+v: %s against the interpreter: %v\n%s", seed, cfg, d.Info().Name, err, k.Source)
	}
	if err := irgen.CompareCoop(got, dwant, dtol); err != nil {
		t.Fatalf("seed %d %+v: %s against the reference: %v\n%s", seed, cfg, d.Info().Name, err, k.Source)
	}
}

// h200 is the adapter as the Vulkan driver reports the H200 (coopmat's
// test helper of the same name: shapes from docs/PERF.md's `kc devices`
// listing), with bf16 and 8-bit types on.
func h200() backend.AdapterInfo {
	var shapes []backend.CoopMatShape
	for _, fl := range []string{"nv", "khr"} {
		for _, t := range []string{"f16", "bf16"} {
			for _, mnk := range [][3]int{{16, 8, 8}, {16, 8, 16}, {16, 16, 16}} {
				shapes = append(shapes, backend.CoopMatShape{M: mnk[0], N: mnk[1], K: mnk[2], A: t, B: t, C: "f32", Result: "f32", Scope: "subgroup", Flavor: fl})
				shapes = append(shapes, backend.CoopMatShape{M: mnk[0], N: mnk[1], K: mnk[2], A: t, B: t, C: t, Result: t, Scope: "subgroup", Flavor: fl})
			}
		}
		shapes = append(shapes, backend.CoopMatShape{M: 16, N: 16, K: 32, A: "s8", B: "s8", C: "s32", Result: "s32", Scope: "subgroup", Flavor: fl})
	}
	return backend.AdapterInfo{Name: "NVIDIA H200", Driver: "vulkan", SubgroupSize: 32, CoopMat: shapes, F16: true, BF16: true, Int8: true}
}

// TestCoopConfigs: TestCoop's device half is reached only for a device
// with cooperative matrices and subgroups of 32; for the H200's shapes it
// makes a KHR and an NV config whose kernels emit (NV through spirv-val)
// and run on the interpreter within the reference's bounds, and whose
// device bounds are at least the interpreter's. The device run itself
// needs the H200.
func TestCoopConfigs(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	if c := coopConfigs(backend.AdapterInfo{Name: "llvmpipe", SubgroupSize: 8}); c != nil {
		t.Fatalf("coopConfigs(lavapipe) = %+v, want none", c)
	}
	noSG := h200()
	noSG.SubgroupSize = 64
	if c := coopConfigs(noSG); c != nil {
		t.Fatalf("coopConfigs(subgroups of 64) = %+v, want none", c)
	}
	cfgs := coopConfigs(h200())
	if len(cfgs) != 2 || cfgs[0].NV || !cfgs[1].NV || !cfgs[0].BF16 || cfgs[1].BF16 || len(cfgs[0].Shapes) != 13 || len(cfgs[1].Shapes) != 13 {
		t.Fatalf("coopConfigs(h200) = %+v, want KHR (bf16) and NV configs of 13 shapes each", cfgs)
	}
	for _, cfg := range cfgs {
		for _, seed := range seeds(t) {
			k, params, in, _, tol := coopInterp(t, seed, cfg)
			_, dtol := k.DeviceReference(params, in)
			for name := range tol {
				for i := range tol[name] {
					if dtol[name][i] < tol[name][i] {
						t.Fatalf("seed %d: %s[%d]: device bound %g below the interpreter's %g", seed, name, i, dtol[name][i], tol[name][i])
					}
				}
			}
			coopEmit(t, k)
		}
	}
}
