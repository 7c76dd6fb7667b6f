package kernels

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// variants are the library's kernel files with the specialisations the
// ops use, at their extremes.
var variants = []struct {
	file string
	defs map[string]string
}{
	{"elementwise.kc", nil},
	{"elementwise4.kc", nil},
	{"rows.kc", nil},
	{"rowsreg.kc", map[string]string{"WG": "256", "PER": "1"}},
	{"rowsreg.kc", map[string]string{"WG": "256", "PER": "128"}},
	{"rowsreg.kc", map[string]string{"WG": "1024", "PER": "32"}},
	{"rowsreg4.kc", map[string]string{"WG": "256", "PER": "1"}},
	{"rowsreg4.kc", map[string]string{"WG": "256", "PER": "32"}},
	{"rowsreg4.kc", map[string]string{"WG": "1024", "PER": "8"}},
	{"rowsreg4.kc", map[string]string{"WG": "512", "PER": "16", "SH": "4", "SHN": "2048", "PF": "4", "PFN": "4", "ST": "1"}},
	{"rowssg4.kc", map[string]string{"WG": "1024", "SG": "32", "PER": "8", "SH": "1", "SHN": "1024", "PF": "2", "PFN": "2"}},
	{"rowssg4.kc", map[string]string{"WG": "512", "SG": "8", "PER": "16", "ST": "1"}},
	{"shape.kc", nil},
	{"attention.kc", map[string]string{"DH": "1"}},
	{"attention.kc", map[string]string{"DH": "256"}},
	{"decode.kc", map[string]string{"DH": "1"}},
	{"decode.kc", map[string]string{"DH": "256"}},
	{"decode4.kc", map[string]string{"DH": "32", "G": "1", "WG": "128", "LN": "4", "VB": "2", "RED": "512"}},
	{"decode4.kc", map[string]string{"DH": "256", "G": "4", "WG": "256", "LN": "1", "VB": "8", "RED": "1024"}},
	{"decode4.kc", map[string]string{"DH": "128", "G": "8", "WG": "256", "LN": "2", "VB": "4", "RED": "2048"}},
	{"decode4.kc", map[string]string{"DH": "64", "H16": "2"}},
	{"decode4h.kc", map[string]string{"DH": "32", "G": "1", "WG": "128", "LN": "4", "VB": "1", "RED": "1024", "H16": "1", "VE": "2"}},
	{"decode4h.kc", map[string]string{"DH": "128", "G": "4", "WG": "256", "LN": "4", "VB": "4", "RED": "2048", "H16": "1", "VE": "2", "WID": "1"}},
	{"decode4h.kc", map[string]string{"DH": "256", "G": "16", "WG": "256", "LN": "1", "VB": "8", "RED": "4096", "H16": "2", "VE": "2", "PRE": "1"}},
	{"decode4h.kc", map[string]string{"DH": "128", "G": "4", "WG": "256", "LN": "2", "VB": "4", "RED": "1024"}},
	{"decodesg.kc", map[string]string{"DH": "32", "G": "1", "SG": "8", "KL": "8", "VL": "8", "NS": "4"}},
	{"decodesg.kc", map[string]string{"DH": "256", "G": "16", "SG": "32", "KL": "4", "VL": "32", "NS": "8"}},
	{"decodesg.kc", map[string]string{"DH": "128", "G": "4", "SG": "32", "KL": "8", "VL": "16", "NS": "8", "H16": "1", "VE": "2"}},
	{"decodesg.kc", map[string]string{"DH": "128", "G": "4", "SG": "32", "KL": "4", "VL": "16", "NS": "4", "H16": "1", "VE": "2", "U": "2", "WID": "1"}},
	{"decodesg.kc", map[string]string{"DH": "64", "G": "2", "SG": "8", "KL": "8", "VL": "8", "NS": "4", "H16": "2", "VE": "2"}},
	// decodelr.kc: the default, f16 rows side by side, several vectors a
	// lane (subgroups of 8), a batch ahead, values after the dots, the
	// array functions, one head with replicated scores
	{"decodelr.kc", lrDefs(32, F32, 8, 4, 0, 0, 0, 0, 4, 128)},
	{"decodelr.kc", lrDefs(32, F16, 4, 4, 0, 1, 0, 0, 8, 64)},
	{"decodelr.kc", lrDefs(8, F32, 2, 2, 1, 0, 0, 0, 8, 256)},
	{"decodelr.kc", lrDefs(8, BF16, 4, 8, 0, 0, 1, 0, 2, 32)},
	{"decodelr.kc", lrDefs(32, F32, 1, 1, 0, 0, 0, 0, 1, 256)},
	{"decodelr.kc", lrDefs(32, F16, 8, 4, 0, 0, 0, 1, 4, 128)},
	{"decodelr.kc", lrDefs(32, BF16, 8, 4, 0, 1, 0, 1, 4, 128)},
	{"half.kc", nil},
	{"half.kc", map[string]string{"BF": "1"}},
	{"half4.kc", nil},
	{"half4.kc", map[string]string{"BF": "1"}},
	{"gemv.kc", nil},
	{"gemv.kc", map[string]string{"M": "16", "R": "1", "TEAM": "256", "BF": "1"}},
	{"gemv.kc", map[string]string{"M": "1", "R": "4", "TEAM": "32"}},
	{"gemv.kc", map[string]string{"M": "8", "R": "2", "TEAM": "64", "WID": "1"}},
	{"gemv.kc", map[string]string{"M": "1", "R": "2", "TEAM": "128", "U": "4"}},
	{"gemvsg.kc", nil},
	{"gemvsg.kc", map[string]string{"M": "16", "R": "2", "TEAM": "64", "SG": "32", "BF": "1"}},
	{"gemvsg.kc", map[string]string{"M": "4", "R": "8", "TEAM": "128", "SG": "8"}},
	{"gemvsg.kc", map[string]string{"M": "1", "R": "4", "TEAM": "128", "SG": "32", "WID": "1"}},
	{"gemvsg.kc", map[string]string{"M": "8", "R": "4", "TEAM": "64", "SG": "32", "U": "2", "BF": "1"}},
	{"gemvt.kc", nil},
	{"gemvt.kc", map[string]string{"M": "4", "BF": "1"}},
	{"gemvtsg.kc", nil},
	{"gemvtsg.kc", map[string]string{"M": "4", "WG": "1024", "CT": "4", "U": "2", "XH": "1", "OUT": "1"}},
	{"gemvtsg.kc", map[string]string{"M": "16", "WG": "256", "CT": "8", "U": "4", "SG": "8", "BF": "1", "XH": "1", "OUT": "2"}},
}

func loadVariants(t *testing.T) []*ir.Module {
	t.Helper()
	var ms []*ir.Module
	for _, v := range variants {
		m, err := loadSource(v.file, v.defs)
		if err != nil {
			t.Fatalf("%s %v: %v", v.file, v.defs, err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestEmbeddedFiles: every .kc file of the package is one the variants
// cover, so none goes unvalidated.
func TestEmbeddedFiles(t *testing.T) {
	ents, err := sources.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		found := false
		for _, v := range variants {
			found = found || v.file == e.Name()
		}
		if !found {
			t.Errorf("%s is not in the validated variants", e.Name())
		}
	}
}

// TestCanonicalSources: every kernel source is as `kc fmt` prints it (the
// library's .kc files are read by people as examples of the language).
func TestCanonicalSources(t *testing.T) {
	ents, err := sources.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		src, err := sources.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		m, err := parse.File(e.Name(), src)
		if err != nil {
			t.Fatal(err)
		}
		if out := ir.Print(m); !bytes.Equal(out, src) {
			t.Errorf("%s is not in canonical form: run kc fmt -w kernels/%s", e.Name(), e.Name())
		}
	}
}

// TestSPIRVValid runs spirv-val on every kernel of every variant, for
// SPIR-V 1.3 (Vulkan 1.1) and 1.6 (Vulkan 1.3).
func TestSPIRVValid(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for _, m := range loadVariants(t) {
		for _, k := range m.Kernels {
			for _, v := range []spirv.Version{spirv.V1_3, spirv.V1_6} {
				a, err := spirv.Emit(m, spirv.Options{Kernel: k.Name, Version: v})
				if err != nil {
					t.Fatalf("%s %s: %v", m.File, k.Name, err)
				}
				if err := spirv.ValidateArtifact(context.Background(), a); err != nil {
					t.Errorf("%s %s (%v): %v", m.File, k.Name, v, err)
				}
			}
		}
	}
}

// TestWGSLValid validates the WGSL of every kernel (of each file's first
// variant; specialisation changes constants only) with naga
// (tools/tint/check.mjs -validators naga), one kernel per file as the
// device receives it. Tint is left to emit/wgsl's TestTint, which covers
// the emitter's constructs: on these kernels Dawn's Node binding crashes on
// elementwise.kc's twelve entry points in one module (each passes alone;
// naga accepts the module) and, kernel by kernel, hangs into check.mjs's
// 15-second retries, 30-40 s a run on this machine (2026-12-01).
func TestWGSLValid(t *testing.T) {
	node := kctest.Tool(t, "node")
	dir := filepath.Join(kctest.Root(t), "tools", "tint")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "webgpu")); err != nil {
		kctest.Missing(t, "tools/tint/node_modules is missing: run scripts/test.sh or npm ci in tools/tint")
	}
	tmp := t.TempDir()
	var files []string
	seen := map[string]bool{}
	for i, m := range loadVariants(t) {
		// one variant per file: specialisation changes constants only
		if seen[m.File] {
			continue
		}
		seen[m.File] = true
		for _, k := range m.Kernels {
			a, err := wgsl.Emit(m, wgsl.Options{Kernel: k.Name})
			if err != nil {
				t.Fatalf("%s %s: %v", m.File, k.Name, err)
			}
			p := filepath.Join(tmp, fmt.Sprintf("%s_%d_%s.wgsl", strings.TrimSuffix(m.File, ".kc"), i, k.Name))
			if err := os.WriteFile(p, a.Code, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "check.mjs"), "-validators", "naga"}, files...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, out.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(l, ": error: ") {
			t.Error(l)
		}
	}
}
