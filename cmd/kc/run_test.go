package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

func mesaEnv(t *testing.T) {
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		dir := t.TempDir()
		os.Chmod(dir, 0o700)
		t.Setenv("XDG_RUNTIME_DIR", dir)
	}
}

func TestDevicesJSON(t *testing.T) {
	mesaEnv(t)
	out, errs, code := kc(t, "", "devices", "-json")
	var got devicesJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("devices -json: %v\n%s", err, out)
	}
	if len(got.Adapters) == 0 {
		kctest.Missing(t, "no GPU adapters (install mesa-vulkan-drivers for lavapipe): %s", errs)
	}
	if code != exitOK || got.Selected < 0 || got.Selected >= len(got.Adapters) {
		t.Fatalf("exit %d, selected %d of %d\n%s", code, got.Selected, len(got.Adapters), errs)
	}
	text, _, _ := kc(t, "", "devices")
	if !strings.Contains(text, "* ") {
		t.Fatalf("kc devices marks no adapter:\n%s", text)
	}
}

// TestRunSaxpyFiles runs saxpy with inputs from files and -o, and checks the
// output file against a Go reference.
func TestRunSaxpyFiles(t *testing.T) {
	mesaEnv(t)
	if out, _, _ := kc(t, "", "devices", "-json"); !strings.Contains(out, `"Driver"`) {
		kctest.Missing(t, "no GPU adapters (install mesa-vulkan-drivers for lavapipe)")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	n := 100 + r.IntN(400)
	x, y := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(r.Float32()))
		binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(r.Float32()))
	}
	dir := t.TempDir()
	xf, yf, of := filepath.Join(dir, "x"), filepath.Join(dir, "y"), filepath.Join(dir, "out")
	os.WriteFile(xf, x, 0o644)
	os.WriteFile(yf, y, 0o644)
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "saxpy.kc")
	out, errs, code := kc(t, "", "run", "-n", itoa(n), "-p", "a=2.5", "-in", "x="+xf, "-in", "y="+yf, "-o", "y="+of, src)
	if code != exitOK {
		t.Fatalf("kc run: exit %d\n%s%s", code, out, errs)
	}
	got, err := os.ReadFile(of)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		xv := math.Float32frombits(binary.LittleEndian.Uint32(x[4*i:]))
		yv := math.Float32frombits(binary.LittleEndian.Uint32(y[4*i:]))
		g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:]))
		if want := 2.5*xv + yv; math.Abs(float64(g-want)) > 1e-6 {
			t.Fatalf("y[%d] = %v, want %v", i, g, want)
		}
	}
	if !strings.Contains(out, "y: ") || !strings.Contains(out, "fnv64a") {
		t.Fatalf("no checksum line:\n%s", out)
	}
	_, errs, code = kc(t, "", "run", "-p", "nosuch=1", src)
	if code != exitInput || !strings.Contains(errs, `kernel saxpy has no scalar parameter "nosuch"`) {
		t.Fatalf("bad -p: exit %d, %s", code, errs)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRunInterpMatchesDevice: kc run -interp and kc run on the Vulkan driver
// print the same checksums for integer kernels and exactly-rounded float
// kernels given the same seed (interp uses the device's subgroup size).
func TestRunInterpMatchesDevice(t *testing.T) {
	mesaEnv(t)
	if out, _, _ := kc(t, "", "devices", "-json"); !strings.Contains(out, `"vulkan"`) {
		kctest.Missing(t, "no Vulkan adapter (install mesa-vulkan-drivers for lavapipe)")
	}
	seed := itoa(int(rand.Uint32()))
	for _, name := range []string{"int_bits", "histogram_atomic", "prefix_scan", "vecadd_bounded", "saxpy"} {
		src := filepath.Join(kctest.Root(t), "testdata", "kernels", name+".kc")
		onCPU, errs, code := kc(t, "", "run", "-interp", "-subgroup-size", "8", "-seed", seed, src)
		if code != exitOK {
			t.Fatalf("kc run -interp %s: exit %d\n%s", name, code, errs)
		}
		onGPU, errs, code := kc(t, "", "run", "-device", "vulkan", "-seed", seed, src)
		if code != exitOK {
			t.Fatalf("kc run -device vulkan %s: exit %d\n%s", name, code, errs)
		}
		if a, b := checksums(onCPU), checksums(onGPU); a == "" || a != b {
			t.Errorf("%s (seed %s): interpreter and device disagree:\n%s\n%s", name, seed, onCPU, onGPU)
		}
	}
}

// checksums drops the "# ..." header line of kc run's output.
func checksums(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestRunInterpFlags(t *testing.T) {
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "saxpy.kc")
	if _, _, code := kc(t, "", "run", "-interp", "-time", "3", src); code != exitUsage {
		t.Errorf("-interp -time: exit %d, want 2", code)
	}
	out, errs, code := kc(t, "", "run", "-interp", "-n", "8", "-p", "a=2", "-print", "-len", "x=8", "-len", "y=8", src)
	if code != exitOK || !strings.HasPrefix(out, "# saxpy on the reference interpreter") || !strings.Contains(out, "y:") {
		t.Errorf("kc run -interp -print: exit %d\n%s%s", code, out, errs)
	}
	// An out-of-bounds access is an error with the kernel's position.
	_, errs, code = kc(t, "", "run", "-interp", "-n", "64", "-p", "n=64", "-len", "x=8", src)
	if code != exitInput || !strings.Contains(errs, "saxpy.kc:") {
		t.Errorf("out-of-bounds run: exit %d, stderr %q", code, errs)
	}
}
