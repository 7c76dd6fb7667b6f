package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

func init() {
	register("run", "run a kernel on the chosen device and print checksums or outputs", runRun)
}

// runOptions are kc run's flags.
type runOptions struct {
	device  string
	kernel  string
	defs    defineFlags
	n       int
	lens    defineFlags // NAME=ELEMENTS per buffer
	params  defineFlags // NAME=VALUE per scalar param
	inputs  defineFlags // NAME=FILE per buffer
	outputs defineFlags // NAME=FILE per buffer
	groups  string
	print   bool
	seed    uint64
	timeN   int
	interp  bool
	sgSize  int
}

func runRun(env *cliEnv, args []string) int {
	o := runOptions{defs: defineFlags{}, lens: defineFlags{}, params: defineFlags{}, inputs: defineFlags{}, outputs: defineFlags{}}
	fs := newFlagSet(env, "run", "[-device SEL] [-kernel NAME] [-D NAME=VALUE]... [-n N] [-len BUF=N]... [-p PARAM=VALUE]... [-in BUF=FILE]... [-o BUF=FILE]... [-groups X,Y,Z] [-print] [-seed S] [-time N] FILE.kc")
	fs.StringVar(&o.device, "device", "", "device selector (index, DRIVER, DRIVER:N or name text; default $KC_DEVICE, then the policy)")
	fs.StringVar(&o.kernel, "kernel", "", "the kernel to run (needed when the file has several)")
	fs.Var(o.defs, "D", "define a compile-time constant NAME=VALUE (repeatable)")
	fs.IntVar(&o.n, "n", 1024, "elements per buffer, and the default of unset integer params")
	fs.Var(o.lens, "len", "elements of one buffer BUF=N (repeatable)")
	fs.Var(o.params, "p", "scalar parameter PARAM=VALUE (repeatable; unset integers default to -n, floats to 1)")
	fs.Var(o.inputs, "in", "fill buffer BUF from a raw little-endian FILE (repeatable; default random)")
	fs.Var(o.outputs, "o", "write read_write buffer BUF's final bytes to FILE (repeatable)")
	fs.StringVar(&o.groups, "groups", "", "workgroup counts X[,Y[,Z]] (default: cover -n along x)")
	fs.BoolVar(&o.print, "print", false, "print the read_write buffers' values instead of checksums")
	fs.Uint64Var(&o.seed, "seed", 0, "random seed for the inputs (0: a fresh one, printed)")
	fs.IntVar(&o.timeN, "time", 0, "also time N samples with the timing oracle and print the median")
	fs.BoolVar(&o.interp, "interp", false, "run on kc's reference interpreter (the CPU semantics every target must match) instead of a device")
	fs.IntVar(&o.sgSize, "subgroup-size", 32, "subgroup size for -interp")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	if o.interp && (o.timeN > 0 || o.device != "") {
		fmt.Fprintln(env.stderr, "kc run: -interp runs on the CPU; it takes neither -time nor -device")
		return exitUsage
	}
	m, err := loadModule(env, fs.Arg(0), o.defs)
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	if err := runKernel(env, m, o); err != nil {
		printErr(env, err)
		return exitInput
	}
	return exitOK
}

func pickKernel(m *ir.Module, name string) (*ir.Kernel, error) {
	if name != "" {
		if k := m.Kernel(name); k != nil {
			return k, nil
		}
		return nil, fmt.Errorf("%s has no kernel %q", m.File, name)
	}
	if len(m.Kernels) != 1 {
		names := make([]string, len(m.Kernels))
		for i, k := range m.Kernels {
			names[i] = k.Name
		}
		return nil, fmt.Errorf("%s has %d kernels (%s): choose one with -kernel", m.File, len(m.Kernels), strings.Join(names, ", "))
	}
	return m.Kernels[0], nil
}

// runSetup is everything a run needs besides where it runs.
type runSetup struct {
	k      *ir.Kernel
	params []uint32  // params block words
	groups [3]uint32 // workgroup counts
	bufs   [][]byte  // initial bytes of ir.Buffers(k)
	seed   uint64
}

func prepareRun(m *ir.Module, o runOptions) (*runSetup, error) {
	k, err := pickKernel(m, o.kernel)
	if err != nil {
		return nil, err
	}
	s := &runSetup{k: k, seed: o.seed}
	if s.params, err = runParams(k, o); err != nil {
		return nil, err
	}
	if s.groups, err = runGroups(k, o); err != nil {
		return nil, err
	}
	if s.seed == 0 {
		s.seed = rand.Uint64()
	}
	r := rand.New(rand.NewPCG(s.seed, s.seed))
	for _, b := range ir.Buffers(k) {
		data, err := runInput(b, o, r)
		if err != nil {
			return nil, err
		}
		s.bufs = append(s.bufs, data)
	}
	return s, checkOutputNames(k, o)
}

func runKernel(env *cliEnv, m *ir.Module, o runOptions) error {
	s, err := prepareRun(m, o)
	if err != nil {
		return err
	}
	var outs [][]byte
	if o.interp {
		outs, err = runOnInterp(env, m, s, o)
	} else {
		outs, err = runOnDevice(env, m, s, o)
	}
	if err != nil {
		return err
	}
	return printOutputs(env, s.k, outs, o)
}

// runOnDevice dispatches on the chosen device and returns the final bytes
// of the read_write buffers.
func runOnDevice(env *cliEnv, m *ir.Module, s *runSetup, o runOptions) ([][]byte, error) {
	ctx := context.Background()
	sel := o.device
	if sel == "" {
		sel = env.getenv(backend.EnvDevice)
	}
	dev, err := backend.OpenFor(ctx, sel, s.k.Features)
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	p, err := dev.LoadIR(ctx, m, s.k.Name)
	if err != nil {
		return nil, err
	}
	params := ir.Buffers(s.k)
	views := make([]backend.View, len(s.bufs))
	var outViews []backend.View
	for i, data := range s.bufs {
		buf, err := dev.Upload(data)
		if err != nil {
			return nil, err
		}
		views[i] = buf.View()
		if params[i].Access == ir.ReadWrite {
			outViews = append(outViews, views[i])
		}
	}
	args := backend.Args{Params: s.params, Buffers: views}
	if err := dev.Dispatch(p, args, s.groups); err != nil {
		return nil, err
	}
	info := dev.Info()
	fmt.Fprintf(env.stdout, "# %s on %s (%s %s), groups %v, seed %d\n", s.k.Name, info.Name, info.Driver, p.Target(), s.groups, s.seed)
	outs, err := dev.ReadMany(ctx, outViews...)
	if err != nil {
		return nil, err
	}
	if o.timeN > 0 {
		ds, err := dev.Time(ctx, p, args, s.groups, 3, o.timeN)
		if err != nil {
			return nil, err
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Fprintf(env.stdout, "time: median %v, min %v, max %v over %d samples\n", ds[len(ds)/2], ds[0], ds[len(ds)-1], len(ds))
	}
	return outs, nil
}

// runOnInterp runs the kernel on the reference interpreter.
func runOnInterp(env *cliEnv, m *ir.Module, s *runSetup, o runOptions) ([][]byte, error) {
	args := &interp.Args{Params: map[string]ir.Value{}, Buffers: map[string][]byte{}}
	fields, _ := ir.ParamsLayout(s.k)
	for i, f := range fields {
		w := s.params[i]
		switch f.Param.Type {
		case ir.F32:
			args.Params[f.Param.Name] = ir.FloatVal(float64(math.Float32frombits(w)))
		case ir.I32:
			args.Params[f.Param.Name] = ir.IntVal(int64(int32(w)))
		default:
			args.Params[f.Param.Name] = ir.IntVal(int64(w))
		}
	}
	bufs := ir.Buffers(s.k)
	for i, b := range bufs {
		args.Buffers[b.Name] = s.bufs[i]
	}
	groups := [3]int{int(s.groups[0]), int(s.groups[1]), int(s.groups[2])}
	if err := interp.Run(m, s.k.Name, groups, args, interp.Options{SubgroupSize: o.sgSize}); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.stdout, "# %s on the reference interpreter (subgroup size %d), groups %v, seed %d\n", s.k.Name, o.sgSize, s.groups, s.seed)
	var outs [][]byte
	for _, b := range bufs {
		if b.Access == ir.ReadWrite {
			outs = append(outs, args.Buffers[b.Name])
		}
	}
	return outs, nil
}

// runParams builds the params words in block order.
func runParams(k *ir.Kernel, o runOptions) ([]uint32, error) {
	fields, _ := ir.ParamsLayout(k)
	for name := range o.params {
		found := false
		for _, f := range fields {
			found = found || f.Param.Name == name
		}
		if !found {
			return nil, fmt.Errorf("kernel %s has no scalar parameter %q", k.Name, name)
		}
	}
	words := make([]uint32, len(fields))
	for i, f := range fields {
		v, set := o.params[f.Param.Name]
		t := ir.ElemScalar(f.Param.Type)
		if !set {
			if t == ir.F32 {
				v = "1"
			} else {
				v = strconv.Itoa(o.n)
			}
		}
		w, err := scalarWord(t, v)
		if err != nil {
			return nil, fmt.Errorf("-p %s=%s: %v", f.Param.Name, v, err)
		}
		words[i] = w
	}
	return words, nil
}

func scalarWord(t ir.Scalar, v string) (uint32, error) {
	switch t {
	case ir.F32:
		f, err := strconv.ParseFloat(v, 32)
		return math.Float32bits(float32(f)), err
	case ir.I32:
		i, err := strconv.ParseInt(v, 0, 32)
		return uint32(int32(i)), err
	case ir.U32:
		u, err := strconv.ParseUint(v, 0, 32)
		return uint32(u), err
	}
	return 0, fmt.Errorf("unsupported parameter type %s", t)
}

func runGroups(k *ir.Kernel, o runOptions) ([3]uint32, error) {
	if o.groups == "" {
		wg := max(k.Size[0], 1)
		return backend.Groups(uint32((o.n + wg - 1) / wg)), nil
	}
	var g []uint32
	for _, s := range strings.Split(o.groups, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
		if err != nil || len(g) == 3 {
			return [3]uint32{}, fmt.Errorf("bad -groups %q (want X[,Y[,Z]])", o.groups)
		}
		g = append(g, uint32(n))
	}
	return backend.Groups(g...), nil
}

// runInput returns the initial bytes of buffer b: from -in, or random.
func runInput(b *ir.Param, o runOptions, r *rand.Rand) ([]byte, error) {
	if path, ok := o.inputs[b.Name]; ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if stride := ir.ElemStride(b.Type); stride > 0 && (len(data) == 0 || len(data)%stride != 0) {
			return nil, fmt.Errorf("-in %s=%s: %d bytes is not a positive multiple of the element size %d", b.Name, path, len(data), stride)
		}
		return data, nil
	}
	n := o.n
	if s, ok := o.lens[b.Name]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad -len %s=%s", b.Name, s)
		}
		n = v
	}
	stride := ir.ElemStride(b.Type)
	data := make([]byte, n*stride)
	fillRandom(data, ir.ElemScalar(b.Type), r)
	return data, nil
}

// fillRandom fills data with random values of scalar type t: floats in
// [-1, 1), integers in [0, 1024).
func fillRandom(data []byte, t ir.Scalar, r *rand.Rand) {
	switch t {
	case ir.F16:
		for i := 0; i+2 <= len(data); i += 2 {
			binary.LittleEndian.PutUint16(data[i:], interp.F32ToF16Bits(r.Float32()*2-1))
		}
	case ir.F32:
		for i := 0; i+4 <= len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], math.Float32bits(r.Float32()*2-1))
		}
	default:
		for i := 0; i+4 <= len(data); i += 4 {
			binary.LittleEndian.PutUint32(data[i:], uint32(r.IntN(1024)))
		}
	}
}

// checkOutputNames refuses an -o naming no read_write buffer.
func checkOutputNames(k *ir.Kernel, o runOptions) error {
	for name := range o.outputs {
		found := false
		for _, b := range ir.Buffers(k) {
			found = found || (b.Name == name && b.Access == ir.ReadWrite)
		}
		if !found {
			return fmt.Errorf("-o %s: kernel %s has no read_write buffer %q", name, k.Name, name)
		}
	}
	return nil
}

// printOutputs writes -o files and prints a checksum line (or, with
// -print, the values) per read_write buffer; outs holds their final bytes
// in binding order.
func printOutputs(env *cliEnv, k *ir.Kernel, outs [][]byte, o runOptions) error {
	i := 0
	for _, b := range ir.Buffers(k) {
		if b.Access != ir.ReadWrite {
			continue
		}
		data := outs[i]
		i++
		if path, ok := o.outputs[b.Name]; ok {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return err
			}
		}
		if o.print {
			printValues(env.stdout, b, data)
			continue
		}
		h := fnv.New64a()
		h.Write(data)
		fmt.Fprintf(env.stdout, "%s: %d bytes, fnv64a %016x, sum %s\n", b.Name, len(data), h.Sum64(), sumOf(ir.ElemScalar(b.Type), data))
	}
	return nil
}

func sumOf(t ir.Scalar, data []byte) string {
	switch t {
	case ir.F32:
		var s float64
		for i := 0; i+4 <= len(data); i += 4 {
			s += float64(math.Float32frombits(binary.LittleEndian.Uint32(data[i:])))
		}
		return strconv.FormatFloat(s, 'g', 9, 64)
	case ir.I32:
		var s int64
		for i := 0; i+4 <= len(data); i += 4 {
			s += int64(int32(binary.LittleEndian.Uint32(data[i:])))
		}
		return strconv.FormatInt(s, 10)
	case ir.U32:
		var s uint64
		for i := 0; i+4 <= len(data); i += 4 {
			s += uint64(binary.LittleEndian.Uint32(data[i:]))
		}
		return strconv.FormatUint(s, 10)
	case ir.F16:
		var s float64
		for i := 0; i+2 <= len(data); i += 2 {
			s += interp.F16BitsToF64(binary.LittleEndian.Uint16(data[i:]))
		}
		return strconv.FormatFloat(s, 'g', 6, 64)
	}
	return "-"
}

func printValues(w io.Writer, b *ir.Param, data []byte) {
	t := ir.ElemScalar(b.Type)
	fmt.Fprintf(w, "%s:", b.Name)
	size := max(t.Size(), 1)
	for i := 0; i+size <= len(data); i += size {
		switch t {
		case ir.F32:
			fmt.Fprintf(w, " %g", math.Float32frombits(binary.LittleEndian.Uint32(data[i:])))
		case ir.I32:
			fmt.Fprintf(w, " %d", int32(binary.LittleEndian.Uint32(data[i:])))
		case ir.F16:
			fmt.Fprintf(w, " %g", interp.F16BitsToF32(binary.LittleEndian.Uint16(data[i:])))
		default:
			fmt.Fprintf(w, " %d", binary.LittleEndian.Uint32(data[i:]))
		}
	}
	fmt.Fprintln(w)
}
