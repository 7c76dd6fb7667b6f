package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/internal/kctest"
)

func TestBenchUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench"}, "usage: kc bench matmul"},
		{[]string{"bench", "conv"}, "usage: kc bench matmul"},
		{[]string{"bench", "matmul", "-sizes", "3x4"}, `size "3x4": want MxNxK`},
		{[]string{"bench", "matmul", "-sizes", "3x4x-1"}, `size "3x4x-1": "-1" is not a positive integer`},
		{[]string{"bench", "matmul", "-m", "0"}, "coopmat: matmul sizes must be positive (M=0 N=1024 K=1024)"},
		{[]string{"bench", "matmul", "-dtype", "f64"}, `unknown element type "f64"`},
		{[]string{"bench", "matmul", "-ctype", "f16"}, "coopmat: an f32 product writes f32, not f16"},
		{[]string{"bench", "matmul", "-dtype", "f16", "-ctype", "i8"}, `unknown element type "i8" for C`},
		{[]string{"bench", "matmul", "extra"}, "usage: kc bench matmul"},
	} {
		_, errs, code := kc(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.msg) {
			t.Errorf("kc %v: exit %d, stderr %q; want %d and %q", c.args, code, errs, exitUsage, c.msg)
		}
	}
}

// TestBenchMatmul tunes two small products on the Vulkan driver (lavapipe
// here): progress on stderr, a table with a checked result on stdout, and
// the tuned plans in the cache, which -clear removes.
func TestBenchMatmul(t *testing.T) {
	mesaEnv(t)
	dir := t.TempDir()
	t.Setenv(coopmat.EnvCacheDir, dir)
	out, errs, code := kc(t, "", "bench", "matmul", "-device", "vulkan", "-sizes", "33x20x17,8x12x16", "-samples", "1")
	if code != exitOK {
		if strings.Contains(errs, "no adapter") || strings.Contains(errs, "no GPU adapters") {
			kctest.Missing(t, "no Vulkan adapter (install mesa-vulkan-drivers for lavapipe): %s", errs)
		}
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"tuning f32 nn 33x20x17", "[1/"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	for _, want := range []string{"TFLOP/s", "f32 nn 33x20x17", "f32 nn 8x12x16"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// f16 needs cooperative matrices: lavapipe has none.
	if _, errs, code := kc(t, "", "bench", "matmul", "-device", "vulkan", "-dtype", "f16", "-m", "16", "-n", "16", "-k", "16"); code != exitInput || !strings.Contains(errs, "f16 matmul (no cooperative matrix with f16 inputs and f32 accumulate) is not supported by target llvmpipe") {
		t.Errorf("-dtype f16 on lavapipe: exit %d, %s", code, errs)
	}
	cache := filepath.Join(dir, "matmul-tune.json")
	b, err := os.ReadFile(cache)
	if err != nil || !strings.Contains(string(b), "f32 nn 33x20x17") {
		t.Fatalf("cache after tuning: %v\n%s", err, b)
	}
	if _, errs, code := kc(t, "", "bench", "matmul", "-device", "vulkan", "-clear", "-tune=false", "-m", "5", "-n", "6", "-k", "7", "-samples", "1"); code != exitOK {
		t.Fatalf("-clear: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("cache still there after -clear -tune=false: %v", err)
	}
	// -stats prints a line per pipeline of the timed plan: its statistics,
	// or (lavapipe of Mesa 22.3 lacks VK_KHR_pipeline_executable_properties)
	// why there are none.
	out, errs, code = kc(t, "", "bench", "matmul", "-device", "vulkan", "-stats", "-tune=false", "-m", "5", "-n", "6", "-k", "7", "-samples", "1")
	if code != exitOK || !regexp.MustCompile(`(?m)^stats f32 nn 5x6x7 .*: matmul_f32\S*: (\S+=\S+|backend: no pipeline statistics)`).MatchString(out) {
		t.Errorf("-stats: exit %d, stdout lacks a stats line:\n%s%s", code, out, errs)
	}
}
