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
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
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

func runKernel(env *cliEnv, m *ir.Module, o runOptions) error {
	k, err := pickKernel(m, o.kernel)
	if err != nil {
		return err
	}
	ctx := context.Background()
	sel := o.device
	if sel == "" {
		sel = env.getenv(backend.EnvDevice)
	}
	dev, err := backend.OpenFor(ctx, sel, k.Features)
	if err != nil {
		return err
	}
	defer dev.Close()
	p, err := dev.LoadIR(ctx, m, k.Name)
	if err != nil {
		return err
	}
	params, err := runParams(k, o)
	if err != nil {
		return err
	}
	groups, err := runGroups(k, o)
	if err != nil {
		return err
	}
	seed := o.seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	r := rand.New(rand.NewPCG(seed, seed))
	bufs := ir.Buffers(k)
	views := make([]backend.View, len(bufs))
	for i, b := range bufs {
		data, err := runInput(b, o, r)
		if err != nil {
			return err
		}
		buf, err := dev.Upload(data)
		if err != nil {
			return err
		}
		views[i] = buf.View()
	}
	args := backend.Args{Params: params, Buffers: views}
	if err := dev.Dispatch(p, args, groups); err != nil {
		return err
	}
	info := dev.Info()
	fmt.Fprintf(env.stdout, "# %s on %s (%s %s), groups %v, seed %d\n", k.Name, info.Name, info.Driver, p.Target(), groups, seed)
	if err := runOutputs(env, dev, k, views, o); err != nil {
		return err
	}
	if o.timeN > 0 {
		ds, err := dev.Time(ctx, p, args, groups, 3, o.timeN)
		if err != nil {
			return err
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Fprintf(env.stdout, "time: median %v, min %v, max %v over %d samples\n", ds[len(ds)/2], ds[0], ds[len(ds)-1], len(ds))
	}
	return nil
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
			binary.LittleEndian.PutUint16(data[i:], f16bits(r.Float32()*2-1))
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

// f16bits rounds a small float (|x| < 2) to binary16 bits (truncating the
// mantissa; these are test inputs, not arithmetic).
func f16bits(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	if exp <= 0 {
		return sign
	}
	return sign | uint16(exp)<<10 | uint16((b>>13)&0x3ff)
}

// f16value converts binary16 bits to a float64.
func f16value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 31:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

func runOutputs(env *cliEnv, dev *backend.Device, k *ir.Kernel, views []backend.View, o runOptions) error {
	bufs := ir.Buffers(k)
	var outViews []backend.View
	var outBufs []*ir.Param
	for i, b := range bufs {
		if b.Access == ir.ReadWrite {
			outViews = append(outViews, views[i])
			outBufs = append(outBufs, b)
		}
	}
	for name := range o.outputs {
		found := false
		for _, b := range outBufs {
			found = found || b.Name == name
		}
		if !found {
			return fmt.Errorf("-o %s: kernel %s has no read_write buffer %q", name, k.Name, name)
		}
	}
	data, err := dev.ReadMany(context.Background(), outViews...)
	if err != nil {
		return err
	}
	for i, b := range outBufs {
		if path, ok := o.outputs[b.Name]; ok {
			if err := os.WriteFile(path, data[i], 0o644); err != nil {
				return err
			}
		}
		if o.print {
			printValues(env.stdout, b, data[i])
			continue
		}
		h := fnv.New64a()
		h.Write(data[i])
		fmt.Fprintf(env.stdout, "%s: %d bytes, fnv64a %016x, sum %s\n", b.Name, len(data[i]), h.Sum64(), sumOf(ir.ElemScalar(b.Type), data[i]))
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
			s += f16value(binary.LittleEndian.Uint16(data[i:]))
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
			fmt.Fprintf(w, " %g", f16value(binary.LittleEndian.Uint16(data[i:])))
		default:
			fmt.Fprintf(w, " %d", binary.LittleEndian.Uint32(data[i:]))
		}
	}
	fmt.Fprintln(w)
}
