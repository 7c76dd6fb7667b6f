package difftest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// FuzzCompile: for any input that parses and checks, every emitter either
// emits its kernels or reports an *ir.UnsupportedError (never panics or
// fails otherwise), and the SPIR-V passes spirv-val. The seed corpus is the
// test-kernel corpus, a few generated kernels and the crashers kept in
// testdata/fuzz/FuzzCompile.
func FuzzCompile(f *testing.F) {
	kctest.Tool(f, "spirv-val")
	files, _ := filepath.Glob(filepath.Join(kctest.Root(f), "testdata", "kernels", "*.kc"))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for seed := uint64(1); seed <= 8; seed++ {
		k, err := irgen.Generate(seed, irgen.Config{Subgroups: seed%2 == 0, Stmts: 12})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ir.Print(k.Module))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := parse.File("fuzz.kc", src)
		if err != nil {
			return
		}
		if ir.Check(m) != nil {
			return
		}
		compileAll(t, m)
	})
}

// compileAll emits every target for every kernel of m and validates the
// SPIR-V.
func compileAll(t *testing.T, m *ir.Module) {
	ctx := context.Background()
	for _, k := range m.Kernels {
		_, err := wgsl.Emit(m, wgsl.Options{Kernel: k.Name})
		checkEmitErr(t, "wgsl", k, err)
		_, err = hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
		checkEmitErr(t, "hlsl", k, err)
		opts := spirv.Options{Kernel: k.Name}
		if k.Features&ir.FeatureCoopMat != 0 {
			// The default KHR flavour must emit too, but spirv-val 2023.1
			// validates only the NV one.
			_, err := spirv.Emit(m, opts)
			checkEmitErr(t, "spirv", k, err)
			opts.CoopMat = spirv.CoopMatNV
		}
		mod, err := spirv.Emit(m, opts)
		checkEmitErr(t, "spirv", k, err)
		// spirv-val 2023.1 does not know SPV_KHR_bfloat16.
		if err == nil && k.Features&ir.FeatureBF16 == 0 {
			if err := spirv.ValidateArtifact(ctx, mod); err != nil {
				t.Fatalf("kernel %s: SPIR-V does not validate: %v\n%s", k.Name, err, ir.Print(m))
			}
		}
	}
}

func checkEmitErr(t *testing.T, target string, k *ir.Kernel, err error) {
	t.Helper()
	var unsup *ir.UnsupportedError
	if err != nil && !errors.As(err, &unsup) {
		t.Fatalf("%s: kernel %s: %v", target, k.Name, err)
	}
}
