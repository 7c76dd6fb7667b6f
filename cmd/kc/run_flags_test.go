package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// writeFile writes a test input and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func f32File(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// TestRunErrors: every error of kc run is one line on stderr with the exact
// text below; input errors exit 1, usage errors 2.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	saxpy := filepath.Join(kctest.Root(t), "testdata", "kernels", "saxpy.kc")
	two := filepath.Join(kctest.Root(t), "testdata", "kernels", "two_kernels.kc")
	racy := writeFile(t, dir, "racy.kc", []byte("kernel racy(x read_write []u32) workgroup(64) {\n\tx[0] = local_index\n}\n\n//kc:run len(x)=4 grid=1\n"))
	bad := writeFile(t, dir, "bad.kc", []byte("kernel bad(x read_write []u32) workgroup(64) {\n\tx[0] = y\n\tx[1] = z\n}\n"))
	badDir := writeFile(t, dir, "baddir.kc", []byte("kernel k(x read_write []u32) workgroup(64) {\n\tx[0] = 1\n}\n//kc:run len(x)=4 grid=ceil(n/64\n"))
	in := writeFile(t, dir, "in", f32File(1, 2, 3))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{saxpy, "-p", "a=1"}, exitUsage, fmt.Sprintf(`kc run: unexpected argument "-p" after %s (flags go before FILE.kc)`, saxpy)},
		{[]string{}, exitUsage, "kc run: no FILE.kc (usage: kc run [flags] FILE.kc; kc help run lists the flags)"},
		{[]string{"-nosuch", saxpy}, exitUsage, "kc run: flag provided but not defined: -nosuch (kc help run lists the flags)"},
		{[]string{"-in", "x", saxpy}, exitUsage, `kc run: invalid value "x" for flag -in: want NAME=VALUE, got "x" (kc help run lists the flags)`},
		{[]string{"-races", saxpy}, exitUsage, "kc run: -races is the interpreter's race detector: it needs -interp"},
		{[]string{"-interp", "-via", "hlsl", saxpy}, exitUsage, "kc run: -interp runs on the CPU; it takes none of -time, -device, -via"},
		{[]string{"-via", "glsl", saxpy}, exitUsage, `kc run: unknown -via "glsl" (want wgsl, spirv or hlsl)`},
		{[]string{"-hlsl-compiler", "glslang", saxpy}, exitUsage, "kc run: -hlsl-compiler needs -via hlsl"},
		{[]string{"-interp", "-in", "nope=" + in, saxpy}, exitInput, `kc run: -in nope: kernel saxpy has no buffer "nope"`},
		{[]string{"-interp", "-len", "nope=3", saxpy}, exitInput, `kc run: -len nope: kernel saxpy has no buffer "nope"`},
		{[]string{"-interp", "-o", "x=" + in, saxpy}, exitInput, `kc run: -o x: kernel saxpy has no read_write buffer "x"`},
		{[]string{"-interp", "-p", "nosuch=1", saxpy}, exitInput, `kc run: -p nosuch=1: kernel saxpy has no scalar parameter "nosuch"`},
		{[]string{"-interp", "-p", "n=-3", saxpy}, exitInput, `kc run: parameter n=-3: not a u32`},
		{[]string{"-interp", "-p", "n=64", "-len", "x=8", saxpy}, exitInput, saxpy + ":7:14: kernel saxpy, invocation global_id (8, 0, 0): index 8 out of bounds for buffer x (8 elements)"},
		{[]string{"-interp", "-races", racy}, exitInput, racy + ":2:3: kernel racy, invocation global_id (1, 0, 0): data race on buffer x (byte 0): this invocation writes it after local invocation 0 wrote it with no storageBarrier() between"},
		{[]string{"-interp", bad}, exitInput, bad + ":2:9: undefined: y (and 1 more errors)"},
		{[]string{"-interp", badDir}, exitInput, badDir + `:4:33: want ")" in expression "ceil(n/64"`},
		{[]string{"-interp", "-p", "s=1", two}, exitInput, "kc run: " + two + " has 2 kernels (scale, add_offset): -p, -len, -in, -o, -groups and -time need -kernel"},
		{[]string{"-interp", "-kernel", "zz", saxpy}, exitInput, fmt.Sprintf(`kc run: %s has no kernel "zz"`, saxpy)},
	} {
		out, errs, code := kc(t, "", append([]string{"run"}, c.args...)...)
		if code != c.code || errs != c.want+"\n" {
			t.Errorf("kc run %s:\nexit %d, stderr %q\nwant exit %d, stderr %q\nstdout %s", strings.Join(c.args, " "), code, errs, c.code, c.want+"\n", out)
		}
	}
	// Without -races the racy kernel runs.
	if _, errs, code := kc(t, "", "run", "-interp", racy); code != exitOK {
		t.Errorf("racy kernel without -races: exit %d, %s", code, errs)
	}
}

// TestRunDefines: kc run specialises with the file's //kc:define values
// (specialized.kc sets BLOCK=128 over the source's 64), and -D overrides
// them; the //kc:run grid follows.
func TestRunDefines(t *testing.T) {
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "specialized.kc")
	for _, c := range []struct {
		args []string
		grid int
	}{
		{nil, 2},                        // ceil(1024 / (128*4))
		{[]string{"-D", "BLOCK=64"}, 4}, // ceil(1024 / (64*4))
	} {
		out, errs, code := kc(t, "", append(append([]string{"run", "-interp", "-json", "-p", "n=1024"}, c.args...), src)...)
		var res runResult
		if code != exitOK || json.Unmarshal([]byte(out), &res) != nil || res.Groups != [3]int{c.grid, 1, 1} {
			t.Errorf("kc run %v: exit %d, groups %v, want [%d 1 1]\n%s%s", c.args, code, res.Groups, c.grid, out, errs)
		}
	}
}

// TestRunJSON: -json prints the device, the path, the grid, the params and
// per-buffer checksums, with values under -print; here on inputs whose
// saxpy result is exact.
func TestRunJSON(t *testing.T) {
	dir := t.TempDir()
	saxpy := filepath.Join(kctest.Root(t), "testdata", "kernels", "saxpy.kc")
	x := writeFile(t, dir, "x", f32File(1, 2, 3, 4, 5))
	y := writeFile(t, dir, "y", f32File(10, 20, 30, 40, 50))
	want := f32File(12, 24, 36, 48, 60)
	h := fnv.New64a()
	h.Write(want)
	check := func(args ...string) runResult {
		t.Helper()
		out, errs, code := kc(t, "", append(append([]string{"run", "-json", "-print", "-p", "a=2", "-p", "n=5", "-in", "x=" + x, "-in", "y=" + y}, args...), saxpy)...)
		if code != exitOK {
			t.Fatalf("kc run -json %v: exit %d: %s", args, code, errs)
		}
		var res runResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		vals, _ := json.Marshal(res.Buffers[0].Values)
		if res.Kernel != "saxpy" || res.Groups != [3]int{1, 1, 1} || res.Params["a"] != 2.0 || res.Params["n"] != 5.0 ||
			len(res.Buffers) != 1 || res.Buffers[0].Name != "y" || res.Buffers[0].Type != "f32" || res.Buffers[0].Bytes != 20 ||
			res.Buffers[0].FNV64a != fmt.Sprintf("%016x", h.Sum64()) || res.Buffers[0].Sum != "180" || string(vals) != "[12,24,36,48,60]" {
			t.Errorf("kc run -json %v:\n%s", args, out)
		}
		return res
	}
	res := check("-interp", "-subgroup-size", "16")
	if res.Path != "interp" || res.Device.Driver != "interp" || res.Device.SubgroupSize != 16 {
		t.Errorf("-interp: path %q, device %+v", res.Path, res.Device)
	}
	haveDevice(t)
	res = check()
	if res.Device == nil || res.Device.Name == "" || (res.Path != "wgsl" && res.Path != "spirv") {
		t.Errorf("default device: path %q, device %+v", res.Path, res.Device)
	}
}

// TestRunViaHLSL: -via hlsl runs kc's HLSL compiled by glslang on the
// Vulkan driver and gives the interpreter's result; -via picks the
// emitter, and a device that cannot load the target is an error.
func TestRunViaHLSL(t *testing.T) {
	haveDevice(t)
	if out, _, _ := kc(t, "", "devices", "-json"); !strings.Contains(out, `"vulkan"`) {
		kctest.Missing(t, "no Vulkan adapter (install mesa-vulkan-drivers for lavapipe)")
	}
	kctest.Tool(t, "glslangValidator")
	kctest.Tool(t, "spirv-val")
	dir := t.TempDir()
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "int_bits.kc")
	run := func(name string, args ...string) (runResult, []byte) {
		t.Helper()
		o := filepath.Join(dir, name)
		out, errs, code := kc(t, "", append(append([]string{"run", "-json", "-seed", "77", "-o", "out=" + o}, args...), src)...)
		if code != exitOK {
			t.Fatalf("kc run %v: exit %d: %s", args, code, errs)
		}
		var res runResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(o)
		if err != nil {
			t.Fatal(err)
		}
		return res, data
	}
	_, want := run("cpu", "-interp", "-subgroup-size", "8")
	for _, c := range []struct{ args, path string }{
		{"-via hlsl -hlsl-compiler glslang", "hlsl-glslang-spirv"},
		{"-via spirv", "spirv"},
	} {
		res, got := run(strings.ReplaceAll(c.path, "-", ""), append(strings.Fields(c.args), "-device", "vulkan")...)
		if res.Path != c.path || res.Device.Driver != "vulkan" {
			t.Errorf("%s: path %q on %+v, want %s on vulkan", c.args, res.Path, res.Device, c.path)
		}
		if string(got) != string(want) {
			t.Errorf("%s: int_bits output differs from -interp's", c.args)
		}
	}
	// Without -device, -via hlsl picks a device that takes SPIR-V first.
	if res, got := run("nodev", "-via", "hlsl"); res.Device.Driver != "vulkan" || string(got) != string(want) {
		t.Errorf("-via hlsl without -device: ran on %+v (path %s), same output as -interp: %v", res.Device, res.Path, string(got) == string(want))
	}
	_, errs, code := kc(t, "", "run", "-via", "wgsl", "-device", "vulkan", src)
	if code != exitInput || !strings.Contains(errs, "-via wgsl: device ") || !strings.Contains(errs, "(vulkan) does not load wgsl") || strings.Count(errs, "\n") != 1 {
		t.Errorf("-via wgsl on vulkan: exit %d, %q", code, errs)
	}
}
