package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

func init() {
	register("run", "run a kernel on the chosen device (or the interpreter) and print checksums or outputs", runRun)
}

const runSynopsis = `[flags] FILE.kc

Runs each kernel of FILE.kc (or -kernel's) once and prints a checksum line
per read_write buffer (or its values with -print; with -json, one JSON
object per kernel). Params,
buffer lengths, contents and the grid come from the file's //kc:run
directives (docs/language.md, "Run directives") and its //kc:define values;
-p, -len, -in, -groups and -D override them one by one. Without //kc:run
lines (or with -n N) every buffer holds N elements (default 1024), unset
integer params are N, float params 1, and the grid covers N along x.
Errors exit 1 with one line; bad usage exits 2.

Flags:`

// runOptions are kc run's flags.
type runOptions struct {
	device       string
	kernel       string
	defs         defineFlags
	n            int
	lens         defineFlags // NAME=ELEMENTS per buffer
	params       defineFlags // NAME=VALUE per scalar param
	inputs       defineFlags // NAME=FILE per buffer
	outputs      defineFlags // NAME=FILE per buffer
	groups       string
	print        bool
	json         bool
	seed         uint64
	timeN        int
	interp       bool
	races        bool
	sgSize       int
	via          string
	hlslCompiler string
}

func runRun(env *cliEnv, args []string) int {
	o := runOptions{defs: defineFlags{}, lens: defineFlags{}, params: defineFlags{}, inputs: defineFlags{}, outputs: defineFlags{}}
	fs := newFlagSet(env, "run", runSynopsis)
	fs.StringVar(&o.device, "device", "", "device selector (index, DRIVER, DRIVER:N or name text; default $KC_DEVICE, then the policy)")
	fs.StringVar(&o.kernel, "kernel", "", "the kernel to run (default: each; needed with -p, -len, -in, -o, -groups, -time when the file has several)")
	fs.Var(o.defs, "D", "define a compile-time constant NAME=VALUE (repeatable; default: the file's //kc:define)")
	fs.IntVar(&o.n, "n", 0, "ignore //kc:run: N elements per buffer, unset integer params N, grid covering N (default 1024 without //kc:run)")
	fs.Var(o.lens, "len", "elements of one buffer BUF=N (repeatable)")
	fs.Var(o.params, "p", "scalar parameter PARAM=VALUE (repeatable)")
	fs.Var(o.inputs, "in", "fill buffer BUF from a raw little-endian FILE (repeatable; its length follows the file)")
	fs.Var(o.outputs, "o", "write read_write buffer BUF's final bytes to FILE (repeatable)")
	fs.StringVar(&o.groups, "groups", "", "workgroup counts X[,Y[,Z]]")
	fs.BoolVar(&o.print, "print", false, "print the read_write buffers' values instead of checksums (with -json: as well)")
	fs.BoolVar(&o.json, "json", false, "print the run (device, path, grid, params, per-buffer checksums; values with -print) as JSON")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed for params ranges and inputs (0: a fresh one, printed)")
	fs.IntVar(&o.timeN, "time", 0, "also time N samples with the timing oracle and print the median")
	fs.BoolVar(&o.interp, "interp", false, "run on kc's reference interpreter (the CPU semantics every target must match) instead of a device")
	fs.BoolVar(&o.races, "races", false, "with -interp: turn on the interpreter's data-race detector")
	fs.IntVar(&o.sgSize, "subgroup-size", 32, "subgroup size for -interp")
	fs.StringVar(&o.via, "via", "", "the path to the device: wgsl, spirv or hlsl (HLSL compiled to SPIR-V; default: the device's preferred target)")
	fs.StringVar(&o.hlslCompiler, "hlsl-compiler", "", "with -via hlsl: dxc, glslang or a path to dxc (default: dxc if on PATH, else glslang)")
	// Flag errors are one line too; -h prints the whole usage.
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(env.stderr)
			usage()
			return exitOK
		}
		fmt.Fprintf(env.stderr, "kc run: %v (kc help run lists the flags)\n", err)
		return exitUsage
	}
	if msg := o.usageError(fs.Args()); msg != "" {
		fmt.Fprintln(env.stderr, "kc run:", msg)
		return exitUsage
	}
	if err := runFile(env, fs.Arg(0), o); err != nil {
		fmt.Fprintln(env.stderr, oneLine(err))
		return exitInput
	}
	return exitOK
}

// usageError checks the flags' combinations and the arguments.
func (o runOptions) usageError(args []string) string {
	switch {
	case len(args) == 0:
		return "no FILE.kc (usage: kc run [flags] FILE.kc; kc help run lists the flags)"
	case len(args) > 1:
		return fmt.Sprintf("unexpected argument %q after %s (flags go before FILE.kc)", args[1], args[0])
	case o.interp && (o.timeN > 0 || o.device != "" || o.via != ""):
		return "-interp runs on the CPU; it takes none of -time, -device, -via"
	case o.races && !o.interp:
		return "-races is the interpreter's race detector: it needs -interp"
	case o.via != "" && o.via != "wgsl" && o.via != "spirv" && o.via != "hlsl":
		return fmt.Sprintf("unknown -via %q (want wgsl, spirv or hlsl)", o.via)
	case o.hlslCompiler != "" && o.via != "hlsl":
		return "-hlsl-compiler needs -via hlsl"
	case o.n < 0:
		return fmt.Sprintf("-n %d: want a positive count", o.n)
	}
	return ""
}

// positioned matches a message that starts with file:line:col.
var positioned = regexp.MustCompile(`^\S+:\d+:\d+: `)

// oneLine makes err one line: the first of several diagnostics, with a
// count of the rest.
func oneLine(err error) string {
	msg := err.Error()
	if l, ok := err.(ir.ErrorList); ok && len(l) > 1 {
		msg = fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
	}
	if !positioned.MatchString(msg) {
		msg = "kc run: " + msg
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
}

// runFile loads the file and its directives, plans the run and carries it
// out on the device or the interpreter.
func runFile(env *cliEnv, path string, o runOptions) error {
	src, err := readSource(env, path)
	if err != nil {
		return err
	}
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	dirs, err := directive.Parse(name, src)
	if err != nil {
		return err
	}
	defs := map[string]string{}
	for k, v := range dirs.Defines {
		defs[k] = v
	}
	for k, v := range o.defs {
		defs[k] = v
	}
	m, err := parse.Load(name, src, defs)
	if err != nil {
		return err
	}
	if err := dirs.Check(m); err != nil {
		return err
	}
	ks, err := pickKernels(m, o)
	if err != nil {
		return err
	}
	if o.seed == 0 {
		o.seed = rand.Uint64() // one seed for every kernel of the run
	}
	var dev *backend.Device
	if !o.interp {
		sel := o.device
		if sel == "" {
			sel = env.getenv(backend.EnvDevice)
		}
		if dev, err = openForRun(context.Background(), sel, ks, o.via); err != nil {
			return err
		}
		defer dev.Close()
	}
	for _, k := range ks {
		if err := runKernel(env, m, dirs, k, dev, o); err != nil {
			return err
		}
	}
	return nil
}

// runKernel plans one kernel's run, carries it out on dev (nil: the
// interpreter) and prints it.
func runKernel(env *cliEnv, m *ir.Module, dirs *directive.File, k *ir.Kernel, dev *backend.Device, o runOptions) error {
	run, _ := dirs.For(m, k)
	plan, seed, err := planRun(m, k, run, o)
	if err != nil {
		return err
	}
	res := &runResult{Kernel: k.Name, Seed: seed, Groups: plan.Grid, Params: paramsJSON(plan)}
	var outs [][]byte
	if dev == nil {
		res.Path, res.Device = "interp", &deviceJSON{Name: "reference interpreter", Driver: "interp", SubgroupSize: o.sgSize}
		outs, err = runOnInterp(m, plan, o)
	} else {
		outs, err = runOnDevice(dev, m, plan, o, res)
	}
	if err != nil {
		return err
	}
	return printOutputs(env, k, outs, o, res)
}

// pickKernels is -kernel's kernel, or every kernel of the file when it
// names none (then flags naming buffers or params need -kernel).
func pickKernels(m *ir.Module, o runOptions) ([]*ir.Kernel, error) {
	if o.kernel != "" || len(m.Kernels) == 1 {
		k, err := pickKernel(m, o.kernel)
		return []*ir.Kernel{k}, err
	}
	if len(o.params)+len(o.lens)+len(o.inputs)+len(o.outputs) > 0 || o.groups != "" || o.timeN > 0 {
		names := make([]string, len(m.Kernels))
		for i, k := range m.Kernels {
			names[i] = k.Name
		}
		return nil, fmt.Errorf("%s has %d kernels (%s): -p, -len, -in, -o, -groups and -time need -kernel", m.File, len(m.Kernels), strings.Join(names, ", "))
	}
	return m.Kernels, nil
}

func pickKernel(m *ir.Module, name string) (*ir.Kernel, error) {
	if name != "" {
		if k := m.Kernel(name); k != nil {
			return k, nil
		}
		return nil, fmt.Errorf("%s has no kernel %q", m.File, name)
	}
	return m.Kernels[0], nil
}

// planRun draws the run: the directives (or -n's defaults) overridden by
// -p, -len, -in and -groups.
func planRun(m *ir.Module, k *ir.Kernel, run *directive.Run, o runOptions) (*runspec.Plan, uint64, error) {
	ov, err := overrides(k, o)
	if err != nil {
		return nil, 0, err
	}
	if run == nil || o.n > 0 {
		run = nil
		n := o.n
		if n == 0 {
			n = 1024
		}
		defaultsForN(k, n, &ov)
	}
	seed := o.seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	// The stream is keyed by the kernel's name, so -kernel K -seed S draws
	// what the run of every kernel drew for K.
	h := fnv.New64a()
	h.Write([]byte(k.Name))
	plan, err := runspec.Draw(run, m, k, rand.New(rand.NewPCG(seed, h.Sum64())), ov)
	return plan, seed, err
}

// defaultsForN fills what the flags left open with -n's defaults.
func defaultsForN(k *ir.Kernel, n int, ov *runspec.Overrides) {
	for _, p := range k.Params {
		switch {
		case p.Kind == ir.BufferParam:
			if _, ok := ov.Lens[p.Name]; !ok {
				ov.Lens[p.Name] = n
			}
		case p.Kind == ir.ScalarParam:
			if _, ok := ov.Params[p.Name]; !ok {
				v := strconv.Itoa(n)
				if ir.ElemScalar(p.Type).IsFloat() {
					v = "1"
				}
				ov.Params[p.Name] = v
			}
		}
	}
	if ov.Grid == nil {
		wg := max(k.Size[0], 1)
		ov.Grid = []int{(n + wg - 1) / wg}
	}
}

// overrides turns the flags into runspec's overrides, refusing names the
// kernel lacks.
func overrides(k *ir.Kernel, o runOptions) (runspec.Overrides, error) {
	ov := runspec.Overrides{Params: map[string]string{}, Lens: map[string]int{}, Data: map[string][]byte{}}
	kind := map[string]*ir.Param{}
	for _, p := range k.Params {
		kind[p.Name] = p
	}
	isBuf := func(flag, name string, rw bool) error {
		p := kind[name]
		if p == nil || p.Kind != ir.BufferParam || rw && p.Access != ir.ReadWrite {
			what := "buffer"
			if rw {
				what = "read_write buffer"
			}
			return fmt.Errorf("%s %s: kernel %s has no %s %q", flag, name, k.Name, what, name)
		}
		return nil
	}
	for name, v := range o.params {
		if p := kind[name]; p == nil || p.Kind != ir.ScalarParam {
			return ov, fmt.Errorf("-p %s=%s: kernel %s has no scalar parameter %q", name, v, k.Name, name)
		}
		ov.Params[name] = v
	}
	for name, v := range o.lens {
		if err := isBuf("-len", name, false); err != nil {
			return ov, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return ov, fmt.Errorf("-len %s=%s: want a positive element count", name, v)
		}
		ov.Lens[name] = n
	}
	for name, path := range o.inputs {
		if err := isBuf("-in", name, false); err != nil {
			return ov, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return ov, fmt.Errorf("-in %s: %v", name, err)
		}
		if stride := ir.ElemStride(kind[name].Type); len(data) == 0 || len(data)%stride != 0 {
			return ov, fmt.Errorf("-in %s=%s: %d bytes is not a positive multiple of the element size %d", name, path, len(data), stride)
		}
		ov.Data[name] = data
	}
	for name := range o.outputs {
		if err := isBuf("-o", name, true); err != nil {
			return ov, err
		}
	}
	if o.groups != "" {
		for _, s := range strings.Split(o.groups, ",") {
			n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 31)
			if err != nil || n == 0 || len(ov.Grid) == 3 {
				return ov, fmt.Errorf("bad -groups %q (want X[,Y[,Z]], each at least 1)", o.groups)
			}
			ov.Grid = append(ov.Grid, int(n))
		}
	}
	return ov, nil
}

// runOnDevice dispatches on the chosen device through the chosen path and
// returns the final bytes of the read_write buffers.
func runOnDevice(dev *backend.Device, m *ir.Module, plan *runspec.Plan, o runOptions, res *runResult) ([][]byte, error) {
	ctx := context.Background()
	k := plan.Kernel
	p, path, err := loadVia(ctx, dev, m, k, o)
	if err != nil {
		return nil, err
	}
	info := dev.Info()
	res.Path = path
	res.Device = &deviceJSON{Name: info.Name, Driver: info.Driver, API: info.API, SubgroupSize: info.SubgroupSize}
	args := backend.Args{Params: plan.Words()}
	var outs []backend.View
	for i, b := range ir.Buffers(k) {
		buf, err := dev.Upload(plan.Bufs[i])
		if err != nil {
			return nil, err
		}
		v := buf.Slice(0, int64(len(plan.Bufs[i]))) // the buffer may be rounded up
		args.Buffers = append(args.Buffers, v)
		if b.Access == ir.ReadWrite {
			outs = append(outs, v)
		}
	}
	groups := backend.Groups(uint32(plan.Grid[0]), uint32(plan.Grid[1]), uint32(plan.Grid[2]))
	if err := dev.Dispatch(p, args, groups); err != nil {
		return nil, err
	}
	data, err := dev.ReadMany(ctx, outs...)
	if err != nil {
		return nil, err
	}
	if o.timeN > 0 {
		ds, err := dev.Time(ctx, p, args, groups, 3, o.timeN)
		if err != nil {
			return nil, err
		}
		res.Time = timeJSONOf(ds)
	}
	return data, nil
}

// openForRun opens the device: sel when given, else the policy's choice
// among the adapters that can run the kernels (their features and
// cooperative-matrix types) and, with -via, take that target first (a
// Vulkan device for SPIR-V rather than naga's SPIR-V front end), or at all.
func openForRun(ctx context.Context, sel string, ks []*ir.Kernel, via string) (*backend.Device, error) {
	if sel != "" || via == "" {
		return backend.OpenFor(ctx, sel, ks...)
	}
	target := backend.SPIRV
	if via == "wgsl" {
		target = backend.WGSL
	}
	as, enumErr := backend.Adapters(ctx)
	var first, any []backend.AdapterInfo
	for _, a := range as {
		if !supportsAll(a, ks) {
			continue
		}
		for i, t := range a.Targets {
			if t == target && i == 0 {
				first = append(first, a)
			} else if t == target {
				any = append(any, a)
			}
		}
	}
	if len(first) == 0 {
		first = any
	}
	if len(first) == 0 {
		return nil, fmt.Errorf("-via %s: no adapter loads %s with what the kernel needs (adapters: %d, %v)", via, target, len(as), enumErr)
	}
	return backend.OpenAdapter(ctx, first[backend.Choose(first)])
}

// supportsAll reports whether adapter a can run every kernel of ks.
func supportsAll(a backend.AdapterInfo, ks []*ir.Kernel) bool {
	for _, k := range ks {
		if backend.SupportsKernel(a, k) != nil {
			return false
		}
	}
	return true
}

// loadVia loads kernel k on dev through -via's path and names the path.
func loadVia(ctx context.Context, dev *backend.Device, m *ir.Module, k *ir.Kernel, o runOptions) (*backend.Pipeline, string, error) {
	info := dev.Info()
	var a *emit.Artifact
	var err error
	path := o.via
	switch o.via {
	case "":
		p, err := dev.LoadIR(ctx, m, k.Name)
		if err != nil {
			return nil, "", err
		}
		return p, string(p.Target()), nil
	case "wgsl", "spirv":
		a, err = backend.EmitFor(m, k.Name, backend.Target(o.via), info)
	case "hlsl":
		a, path, err = hlslArtifact(ctx, m, k, o)
	}
	if err != nil {
		return nil, "", err
	}
	accepts := false
	for _, t := range info.Targets {
		accepts = accepts || t == a.Target
	}
	if !accepts {
		return nil, "", fmt.Errorf("-via %s: device %s (%s) does not load %s (it takes %v)", o.via, info.Name, info.Driver, a.Target, info.Targets)
	}
	p, err := dev.Load(ctx, a)
	return p, path, err
}

// hlslArtifact emits HLSL and compiles it to SPIR-V with dxc or glslang.
func hlslArtifact(ctx context.Context, m *ir.Module, k *ir.Kernel, o runOptions) (*emit.Artifact, string, error) {
	var co hlsl.CompileOptions
	if err := co.SetCompiler(o.hlslCompiler); err != nil {
		return nil, "", err
	}
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
	if err != nil {
		return nil, "", err
	}
	spv, err := hlsl.CompileSPIRV(ctx, a, k.Name, co)
	if err != nil {
		return nil, "", err
	}
	compiler := "glslang"
	if co.Compiler == hlsl.DXC {
		compiler = "dxc"
	}
	return spv, "hlsl-" + compiler + "-spirv", nil
}

// runOnInterp runs the plan on the reference interpreter.
func runOnInterp(m *ir.Module, plan *runspec.Plan, o runOptions) ([][]byte, error) {
	args := &interp.Args{Params: plan.Params, Buffers: map[string][]byte{}}
	bufs := ir.Buffers(plan.Kernel)
	for i, b := range bufs {
		args.Buffers[b.Name] = plan.Bufs[i]
	}
	if err := interp.Run(m, plan.Kernel.Name, plan.Grid, args, interp.Options{SubgroupSize: o.sgSize, Races: o.races}); err != nil {
		return nil, err
	}
	var outs [][]byte
	for _, b := range bufs {
		if b.Access == ir.ReadWrite {
			outs = append(outs, args.Buffers[b.Name])
		}
	}
	return outs, nil
}

func scalarString(t ir.Scalar, data []byte, i int) string {
	switch t {
	case ir.F32:
		return strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(data[i:]))), 'g', -1, 32)
	case ir.F16:
		return strconv.FormatFloat(float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(data[i:]))), 'g', -1, 32)
	case ir.BF16:
		return strconv.FormatFloat(float64(interp.BF16BitsToF32(binary.LittleEndian.Uint16(data[i:]))), 'g', -1, 32)
	case ir.I32:
		return strconv.Itoa(int(int32(binary.LittleEndian.Uint32(data[i:]))))
	case ir.I8:
		return strconv.Itoa(int(int8(data[i])))
	case ir.U8:
		return strconv.Itoa(int(data[i]))
	}
	return strconv.FormatUint(uint64(binary.LittleEndian.Uint32(data[i:])), 10)
}
