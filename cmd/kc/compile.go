package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
)

func init() {
	register("compile", "compile a .kc file to WGSL, HLSL, SPIR-V or DXIL", runCompile)
}

// compileOptions are the flags every target sees.
type compileOptions struct {
	kernel       string // -kernel: one kernel, or "" for all the target can hold
	via          string // -via hlsl: SPIR-V through the HLSL path
	hlslCompiler string // -hlsl-compiler dxc|glslang|PATH
	spirvVersion string // -spirv-version 1.3|1.6
	coopmat      string // -coopmat: the cooperative-matrix extension (coopmatDialects; "" the target's default)
}

// target turns a checked module into output bytes.
type target struct {
	describe string
	emit     func(ctx context.Context, m *ir.Module, o compileOptions) ([]byte, error)
}

// targets is filled by one file per target (compile_wgsl.go, ...).
var targets = map[string]target{}

func targetNames() string {
	names := make([]string, 0, len(targets))
	for n := range targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

func runCompile(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "compile", "[-target "+targetNames()+"] [-o FILE] [-D NAME=VALUE]... [-kernel NAME] [-coopmat khr|nv|wgpu|chromium] FILE.kc")
	tgt := fs.String("target", "wgsl", "output format: "+targetNames())
	out := fs.String("o", "", "output file (default or - : standard output)")
	var o compileOptions
	fs.StringVar(&o.kernel, "kernel", "", "compile only this kernel")
	fs.StringVar(&o.via, "via", "", "with -target spirv: 'hlsl' compiles kc's HLSL with dxc or glslang instead of the direct emitter")
	fs.StringVar(&o.hlslCompiler, "hlsl-compiler", "", "HLSL compiler: dxc, glslang or a path to dxc (default: dxc if on PATH, else glslang)")
	fs.StringVar(&o.spirvVersion, "spirv-version", "", "SPIR-V version: 1.3 (Vulkan 1.1) or 1.6 (Vulkan 1.3); default 1.3, or 1.6 for workgroup-scope cooperative matrices")
	fs.StringVar(&o.coopmat, "coopmat", "", "cooperative-matrix extension: for spirv khr (SPV_KHR_cooperative_matrix, the default) or nv (SPV_NV_cooperative_matrix); for wgsl wgpu (enable wgpu_cooperative_matrix, the default) or chromium (enable chromium_experimental_subgroup_matrix)")
	defs := defineFlags{}
	fs.Var(defs, "D", "define a compile-time constant NAME=VALUE (repeatable)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	t, ok := targets[*tgt]
	if !ok {
		fmt.Fprintf(env.stderr, "kc compile: unknown target %q (want %s)\n", *tgt, targetNames())
		return exitUsage
	}
	if o.via != "" && o.via != "hlsl" {
		fmt.Fprintf(env.stderr, "kc compile: unknown -via %q (want hlsl)\n", o.via)
		return exitUsage
	}
	if msg := checkCoopmatFlag(*tgt, o); msg != "" {
		fmt.Fprintf(env.stderr, "kc compile: %s\n", msg)
		return exitUsage
	}
	m, err := loadModule(env, fs.Arg(0), defs)
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	if o.kernel != "" && m.Kernel(o.kernel) == nil {
		fmt.Fprintf(env.stderr, "kc compile: %s has no kernel %q\n", fs.Arg(0), o.kernel)
		return exitInput
	}
	data, err := t.emit(context.Background(), m, o)
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	if err := writeOutput(env, *out, data); err != nil {
		printErr(env, err)
		return exitInput
	}
	return exitOK
}

// checkCoopmatFlag reports a -coopmat value the target does not take, or
// "" when it is fine: spirv and spvasm take khr or nv (khr only through
// -via hlsl: DXC writes the KHR extension), wgsl wgpu or chromium, and
// hlsl and dxil none (DXC's vk::khr templates are the only form).
func checkCoopmatFlag(tgt string, o compileOptions) string {
	if o.coopmat == "" {
		return ""
	}
	switch tgt {
	case "spirv", "spvasm":
		if o.via == "hlsl" && o.coopmat != "khr" {
			return fmt.Sprintf("-coopmat %q with -via hlsl: DXC writes SPV_KHR_cooperative_matrix only (want khr)", o.coopmat)
		}
		if _, ok := spirv.CoopMatFlavorByName(o.coopmat); !ok {
			return fmt.Sprintf("unknown -coopmat %q for -target %s (want khr or nv)", o.coopmat, tgt)
		}
	case "wgsl":
		if _, ok := wgsl.CoopMatDialectByName(o.coopmat); !ok {
			return fmt.Sprintf("unknown -coopmat %q for -target wgsl (want wgpu or chromium)", o.coopmat)
		}
	default:
		return fmt.Sprintf("-coopmat does not apply to -target %s (HLSL has one form, DXC's vk::khr::CooperativeMatrix)", tgt)
	}
	return ""
}
