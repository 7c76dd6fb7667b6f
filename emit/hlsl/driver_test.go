package hlsl

import (
	"context"
	"errors"
	"github.com/kcgo/kc/emit"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// compileAll compiles every entry of a with glslang and spirv-val.
func compileAll(t *testing.T, a *emit.Artifact) {
	t.Helper()
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	for _, ent := range a.Entries {
		if _, err := CompileSPIRV(context.Background(), a, ent.Kernel, CompileOptions{Compiler: Glslang}); err != nil {
			t.Errorf("%s: %v", ent.Name, err)
		}
	}
}

// corpusArtifact emits one corpus kernel.
func corpusArtifact(t *testing.T, name string, opts Options) *emit.Artifact {
	t.Helper()
	for _, c := range kctest.Cases(t) {
		if c.Name == name {
			a, err := Emit(c.Module(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	t.Fatalf("no test kernel %s", name)
	return nil
}

// breakLine replaces the output line containing old with new, returning the
// .kc position of that line.
func breakLine(t *testing.T, a *emit.Artifact, old, new string) ir.Pos {
	t.Helper()
	lines := strings.Split(string(a.Code), "\n")
	for i, l := range lines {
		if strings.Contains(l, old) {
			lines[i] = strings.Replace(l, old, new, 1)
			a.Code = []byte(strings.Join(lines, "\n"))
			if !a.Lines[i].Pos.IsValid() {
				t.Fatalf("line %q has no position", l)
			}
			return a.Lines[i].Pos
		}
	}
	t.Fatalf("no line contains %q", old)
	return ir.Pos{}
}

// TestErrorMapping feeds deliberately broken HLSL to glslang through the
// driver and wants a *ToolError naming the tool, with the .kc position of
// the broken statement; with and without #line directives.
func TestErrorMapping(t *testing.T) {
	kctest.Tool(t, GlslangTool)
	for _, opts := range []Options{{}, {NoLineDirectives: true}} {
		a := corpusArtifact(t, "saxpy", opts)
		want := breakLine(t, a, "uint i = kc_global_id.x;", "uint i = kc_global_id.x + no_such_name;")
		if want.Line != 3 || want.Col != 2 || !strings.HasSuffix(want.File, "saxpy.kc") {
			t.Fatalf("saxpy's first statement is at %v; the test expects saxpy.kc:3:2", want)
		}
		_, err := CompileSPIRV(context.Background(), a, "", CompileOptions{Compiler: Glslang})
		var te *ToolError
		if !errors.As(err, &te) {
			t.Fatalf("got %v, want *ToolError", err)
		}
		if te.Tool != GlslangTool {
			t.Errorf("Tool = %q", te.Tool)
		}
		if ps := te.Positions(); len(ps) == 0 || ps[0] != want {
			t.Errorf("NoLineDirectives=%v: positions %v, want first %v\n%v", opts.NoLineDirectives, ps, want, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "glslangValidator: failed (exit status 2)\n"+want.String()+": 'no_such_name' : unknown variable") {
			t.Errorf("message:\n%s", msg)
		}
	}
}

// TestParseDXCDiags maps dxc's clang-style messages (dxc is not installed
// here, so its output is written out by hand).
func TestParseDXCDiags(t *testing.T) {
	a := corpusArtifact(t, "saxpy", Options{NoLineDirectives: true})
	var hlslLine int
	for i, p := range a.Lines {
		if p.Pos.Line == 3 {
			hlslLine = i + 1
			break
		}
	}
	out := "/tmp/x/saxpy.hlsl:" + strconv.Itoa(hlslLine) + ":14: error: use of undeclared identifier 'q'\n" +
		"  uint i = q;\n             ^\n" +
		"/tmp/x/saxpy.kc:7:3: warning: implicit truncation\n"
	ds := parseDiags(a, out, "/tmp/x/saxpy.hlsl")
	if len(ds) != 2 {
		t.Fatalf("diags %v", ds)
	}
	if ds[0].Pos != a.Lines[hlslLine-1].Pos || ds[0].Severity != "error" || ds[0].Msg != "use of undeclared identifier 'q'" {
		t.Errorf("first: %+v", ds[0])
	}
	if ds[1].Pos.Line != 7 || ds[1].Severity != "warning" || ds[1].Pos.File != a.File {
		t.Errorf("second: %+v", ds[1])
	}
}

// TestMissingTools empties PATH: every compile is a clear error.
func TestMissingTools(t *testing.T) {
	a := corpusArtifact(t, "saxpy", Options{})
	t.Setenv("PATH", t.TempDir())
	ctx := context.Background()
	_, err := CompileSPIRV(ctx, a, "saxpy", CompileOptions{Compiler: Glslang})
	if err == nil || err.Error() != "glslangValidator: glslangValidator is not installed (not found on PATH)" {
		t.Errorf("glslang: %v", err)
	}
	if c := (CompileOptions{}).Resolve(); c != Glslang {
		t.Errorf("Auto without dxc resolves to %v", c)
	}
	_, err = CompileSPIRV(ctx, a, "saxpy", CompileOptions{Compiler: DXC})
	if err == nil || err.Error() != "dxc: dxc is not installed (not found on PATH)" {
		t.Errorf("dxc: %v", err)
	}
	_, err = CompileDXIL(ctx, a, "saxpy", CompileOptions{})
	want := "dxc: dxil needs dxc, which is not installed (not found on PATH; install the DirectX Shader Compiler or pass its path)"
	if err == nil || err.Error() != want {
		t.Errorf("dxil: got %v\nwant %s", err, want)
	}
	_, err = CompileDXIL(ctx, a, "saxpy", CompileOptions{DXC: "/opt/nowhere/dxc"})
	if err == nil || !strings.Contains(err.Error(), "dxil needs dxc, which is not installed (not found at /opt/nowhere/dxc;") {
		t.Errorf("dxil with a path: %v", err)
	}
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "dxc" {
		t.Errorf("not a *ToolError naming dxc: %#v", err)
	}
}

// TestMissingValidator: glslang found but spirv-val missing is an error
// naming spirv-val, not a silently unvalidated module.
func TestMissingValidator(t *testing.T) {
	gl := kctest.Tool(t, GlslangTool)
	a := corpusArtifact(t, "saxpy", Options{})
	t.Setenv("PATH", t.TempDir())
	_, err := CompileSPIRV(context.Background(), a, "", CompileOptions{Compiler: Glslang, Glslang: gl})
	if err == nil || err.Error() != "spirv-val: spirv-val is not installed (not found on PATH)" {
		t.Errorf("got %v", err)
	}
}

// fakeTool writes an executable shell script standing in for a compiler.
func fakeTool(t *testing.T, name, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestToolFailures: a hanging, crashing or lying compiler is an error value
// that names it.
func TestToolFailures(t *testing.T) {
	a := corpusArtifact(t, "saxpy", Options{})
	ctx := context.Background()
	cases := []struct {
		name, body, want string
	}{
		{"hang", "sleep 5", "glslangValidator: timed out after 200ms"},
		{"crash", "kill -SEGV $$", "glslangValidator: crashed (signal: segmentation fault)"},
		{"garbage", `while [ $# -gt 0 ]; do if [ "$1" = -o ]; then echo garbage > "$2"; fi; shift; done`, "glslangValidator: wrote 8 bytes, not a SPIR-V module"},
		{"silent", "exit 0", "glslangValidator: wrote no SPIR-V"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := fakeTool(t, "glslangValidator", c.body)
			start := time.Now()
			// Only the hang case needs the short timeout; the others get a
			// generous one so that a loaded CI machine cannot turn them into
			// timeouts.
			timeout := 3 * time.Second
			if c.name == "hang" {
				timeout = 200 * time.Millisecond
			}
			_, err := CompileSPIRV(ctx, a, "", CompileOptions{Compiler: Glslang, Glslang: tool, Timeout: timeout})
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v, want prefix %q", err, c.want)
			}
			if time.Since(start) > 4*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
}

// TestInvalidSPIRVCaught: a compiler that exits 0 with an invalid module
// (what glslang does without --target-env) is caught by spirv-val.
func TestInvalidSPIRVCaught(t *testing.T) {
	gl := kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	// Subgroup operations need SPIR-V 1.3; without --target-env glslang
	// writes a SPIR-V 1.0 module that uses them anyway.
	a := corpusArtifact(t, "reduce_subgroup", Options{})
	// A wrapper that drops --target-env and its value.
	tool := fakeTool(t, "glslangValidator", `skip=0; set -- "$@"; args=""; for a; do if [ $skip = 1 ]; then skip=0; continue; fi; if [ "$a" = --target-env ]; then skip=1; continue; fi; args="$args '$a'"; done; eval exec '`+gl+`' $args`)
	_, err := CompileSPIRV(context.Background(), a, "", CompileOptions{Compiler: Glslang, Glslang: tool})
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != SpirvValTool {
		t.Fatalf("got %v, want a spirv-val *ToolError", err)
	}
	t.Logf("caught: %v", err)
}

// TestSetCompiler reads -hlsl-compiler values.
func TestSetCompiler(t *testing.T) {
	for in, want := range map[string]CompileOptions{
		"":                          {Compiler: Auto},
		"auto":                      {Compiler: Auto},
		"dxc":                       {Compiler: DXC},
		"glslang":                   {Compiler: Glslang},
		"/opt/dxc/bin/dxc":          {Compiler: DXC, DXC: "/opt/dxc/bin/dxc"},
		"/usr/bin/glslangValidator": {Compiler: Glslang, Glslang: "/usr/bin/glslangValidator"},
	} {
		var o CompileOptions
		if err := o.SetCompiler(in); err != nil || o != want {
			t.Errorf("SetCompiler(%q) = %+v, %v; want %+v", in, o, err, want)
		}
	}
	var o CompileOptions
	if err := o.SetCompiler("fxc"); err == nil || err.Error() != `unknown HLSL compiler "fxc" (want dxc, glslang or auto)` {
		t.Errorf("fxc: %v", err)
	}
}

// TestGlslangPrefixSumIsInclusive pins the glslang behaviour the scan
// helpers work around: WavePrefixSum lowered to an InclusiveScan. If a newer
// glslang fixes it, this fails and KC_PREFIX_SUM_INCLUSIVE must learn to
// tell the versions apart.
func TestGlslangPrefixSumIsInclusive(t *testing.T) {
	gl := kctest.Tool(t, GlslangTool)
	dis := kctest.Tool(t, "spirv-dis")
	dir := t.TempDir()
	src := filepath.Join(dir, "p.hlsl")
	code := "[[vk::binding(1, 0)]] RWStructuredBuffer<uint> b : register(u1);\n" +
		"[numthreads(8, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b[id.x] = WavePrefixSum(b[id.x]); }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.spv")
	if msg, err := exec.Command(gl, "-D", "-V", "-S", "comp", "-e", "main", "--target-env", "vulkan1.1", "-o", out, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	asm, err := exec.Command(dis, out).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, asm)
	}
	if !strings.Contains(string(asm), "OpGroupNonUniformIAdd %uint %uint_3 InclusiveScan") {
		t.Fatalf("glslang no longer lowers WavePrefixSum to an inclusive scan:\n%s", asm)
	}
}

// TestTargetEnv: glslang writes SPIR-V 1.3 whatever the environment (its
// HLSL front end uses BufferBlock, which SPIR-V 1.4+ forbids), and the
// module validates for every requested environment.
func TestTargetEnv(t *testing.T) {
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	for env, version := range map[string]uint32{"vulkan1.1": 0x00010300, "vulkan1.2": 0x00010300, "vulkan1.3": 0x00010300} {
		for _, name := range []string{"reduce_subgroup", "f16_elementwise"} {
			a := corpusArtifact(t, name, Options{})
			w, err := CompileSPIRV(context.Background(), a, "", CompileOptions{Compiler: Glslang, TargetEnv: env})
			if err != nil {
				t.Errorf("%s %s: %v", name, env, err)
				continue
			}
			if w.Words[1] != version {
				t.Errorf("%s %s: SPIR-V version %#x, want %#x", name, env, w.Words[1], version)
			}
		}
	}
}

// TestDXCArgsCoopMat: an entry with cooperative matrices is compiled by
// dxc for SPIR-V 1.6 (vulkan1.3, whatever lower environment was asked)
// with 16-bit types, shader model 6.2 and HLSL 2021.
func TestDXCArgsCoopMat(t *testing.T) {
	m := loadSrc(t, "k.kc", "enable cooperative_matrix\nkernel k(c read_write []f32) workgroup(32) {\n\tcoopStore(coopmat<f32, 16, 16, acc>(1.0), c, 0, 16, row_major)\n}\n")
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ent := &a.Entries[0]
	if got, want := strings.Join(dxcArgs(ent, "k.hlsl", "k.spv"), " "), "-T cs_6_2 -E k -HV 2021 -enable-16bit-types -Fo k.spv k.hlsl"; got != want {
		t.Errorf("dxc args %q, want %q", got, want)
	}
	for env, want := range map[string]string{"": "vulkan1.3", "vulkan1.1": "vulkan1.3", "vulkan1.2": "vulkan1.3", "vulkan1.3": "vulkan1.3", "vulkan1.4": "vulkan1.4"} {
		if got := dxcEnv(ent, CompileOptions{TargetEnv: env}); got != want {
			t.Errorf("TargetEnv %q: dxc writes for %s, want %s", env, got, want)
		}
	}
	plain, err := Emit(loadSrc(t, "p.kc", "kernel p(c read_write []f32) workgroup(32) {\n\tc[0] = 1.0\n}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dxcEnv(&plain.Entries[0], CompileOptions{}); got != "vulkan1.1" {
		t.Errorf("a plain entry: dxc writes for %s, want vulkan1.1", got)
	}
}
