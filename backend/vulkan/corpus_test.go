//go:build linux && cgo

package vulkan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// Float tolerances of the corpus comparison: |got - want| <= atol +
// rtol*|want| per element. Integers and f32 results that are exact in any
// evaluation order (copies, single additions) are compared bit for bit.
type tol struct{ atol, rtol float64 }

var (
	exact      = tol{}
	elementTol = tol{1e-6, 1e-5} // one or two roundings, fused or not
	reduceTol  = tol{1e-4, 1e-4} // sums of hundreds of terms in another order
	mathTol    = tol{1e-3, 1e-3} // Vulkan's precision for sin/cos is 2^-11 absolute
	f16Tol     = tol{4e-3, 4e-3} // a few f16 roundings (2^-11 relative each)
)

// run is how one corpus kernel is run: scalar params, buffer lengths in
// elements, how each buffer starts, the grid and the tolerance.
type run struct {
	params map[string]float64
	lens   map[string]int
	init   map[string]string // "rand" (default for read), "poison" (default for read_write), "zero", "wide"
	groups [3]int
	tol    tol
	// ulpSlots marks integer outputs that hold float bits (bitcast<u32> of
	// a float result): those may differ by one unit in the last place.
	ulpSlots func(index int) bool
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// corpusRuns gives each kernel of testdata/kernels its arguments, read from
// the grid line of its header comment. A kernel missing here fails the
// test: every corpus kernel must run.
var corpusRuns = map[string]func(r *rand.Rand, k *ir.Kernel) run{
	"control_flow": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("x", n, "y", n), groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"conversions": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		// Slots 4, 5 and 7 are float results stored as bits: lavapipe
		// rounds u32 -> f32 of values above 2^24 one ulp off now and then.
		floatSlot := func(i int) bool { s := i % 8; return s == 4 || s == 5 || s == 7 }
		return run{params: pm("n", n), lens: lm("x", n, "k", n, "out", 8*n), init: map[string]string{"x": "wide"}, groups: g(ceilDiv(n, 64)), tol: exact, ulpSlots: floatSlot}
	},
	"f16_elementwise": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		p := pm("n", n)
		p["scale"] = float64(r.Float32()*4 - 2)
		return run{params: p, lens: lm("a", n, "b", n, "out", n), groups: g(ceilDiv(n, 64)), tol: f16Tol}
	},
	"geometry_intrinsics": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "out", 21*n), groups: g(ceilDiv(n, 64)), tol: mathTol}
	},
	"packing": func(r *rand.Rand, k *ir.Kernel) run {
		n := 1200 + r.IntN(1000) // two or three workgroups of 1024
		return run{params: pm("n", n), lens: lm("a", n, "k", n, "out", 11*n, "f", 3*n), groups: g(ceilDiv(n, 1024)), tol: elementTol}
	},
	"vector_bool": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "p", n, "q", n, "out", 8*n, "f", 2*n), groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"atomic_cas": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		return run{params: pm("n", n), lens: lm("x", n, "own", n, "res", 2*n, "gmax", 1, "wmin", ceilDiv(n, 64)),
			init: map[string]string{"own": "rand", "gmax": "rand"}, groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"grid_stride": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1500)
		p := pm("n", n)
		p["a"] = float64(r.Float32()*4 - 2)
		gx := ceilDiv(n, 256) // a quarter of the workgroups n needs: each invocation loops
		return run{params: p, lens: lm("x", n, "y", n, "steps", 64*gx*6), init: map[string]string{"y": "rand"}, groups: g(gx, 2, 3), tol: elementTol}
	},
	"dot4_packed": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "s", n, "u", n), groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"f16_geometry": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "out", 14*n), groups: g(ceilDiv(n, 64)), tol: f16Tol}
	},
	"histogram_atomic": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		return run{params: pm("n", n), lens: lm("x", n, "hist", 64, "stats", 2), init: map[string]string{"hist": "zero", "stats": "zero"}, groups: g(ceilDiv(n, 256)), tol: exact}
	},
	"int_bits": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "out", 24*n), init: map[string]string{"a": "ints", "b": "ints"}, groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"layernorm": func(r *rand.Rand, k *ir.Kernel) run {
		rows, cols := 3+r.IntN(5), 100+r.IntN(300)
		p := pm("rows", rows, "cols", cols)
		p["eps"] = 1e-5
		return run{params: p, lens: lm("x", rows*cols, "gamma", cols, "beta", cols, "y", rows*cols), groups: g(rows), tol: reduceTol}
	},
	"math_intrinsics": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("x", n, "out", 16*n), init: map[string]string{"x": "rand5"}, groups: g(ceilDiv(n, 64)), tol: mathTol}
	},
	"matmul_tiled": func(r *rand.Rand, k *ir.Kernel) run {
		m, n, kk := 40+r.IntN(60), 40+r.IntN(60), 20+r.IntN(60)
		return run{params: pm("M", m, "N", n, "K", kk), lens: lm("A", m*kk, "B", kk*n, "C", m*n), groups: g(ceilDiv(n, 64), ceilDiv(m, 64)), tol: reduceTol}
	},
	"prefix_scan": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		return run{params: pm("n", n), lens: lm("x", n, "y", n), groups: g(ceilDiv(n, 256)), tol: exact}
	},
	"reduce_subgroup": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		return run{params: pm("n", n), lens: lm("x", n, "out", ceilDiv(n, 256)), groups: g(ceilDiv(n, 256)), tol: reduceTol}
	},
	"reduce_workgroup": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		return run{params: pm("n", n), lens: lm("x", n, "out", ceilDiv(n, 256)), groups: g(ceilDiv(n, 256)), tol: reduceTol}
	},
	"rmsnorm": func(r *rand.Rand, k *ir.Kernel) run {
		rows, cols := 3+r.IntN(5), 100+r.IntN(300)
		p := pm("rows", rows, "cols", cols)
		p["eps"] = 1e-5
		return run{params: p, lens: lm("x", rows*cols, "w", cols, "y", rows*cols), groups: g(rows), tol: reduceTol}
	},
	"saxpy": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(500)
		p := pm("n", n)
		p["a"] = float64(r.Float32()*4 - 2)
		return run{params: p, lens: lm("x", n, "y", n), init: map[string]string{"y": "rand"}, groups: g(ceilDiv(n, 64)), tol: elementTol}
	},
	"softmax_row": func(r *rand.Rand, k *ir.Kernel) run {
		rows, cols := 3+r.IntN(5), 100+r.IntN(300)
		return run{params: pm("rows", rows, "cols", cols), lens: lm("x", rows*cols, "y", rows*cols), groups: g(rows), tol: tol{1e-6, 1e-4}}
	},
	"specialized": func(r *rand.Rand, k *ir.Kernel) run {
		n := 500 + r.IntN(1000)
		block := k.Size[0] // workgroup(BLOCK); UNROLL is 4
		return run{params: pm("n", n), lens: lm("x", n, "y", n), groups: g(ceilDiv(n, block*4)), tol: elementTol}
	},
	"transpose_padded": func(r *rand.Rand, k *ir.Kernel) run {
		rows, cols := 10+r.IntN(60), 10+r.IntN(60)
		return run{params: pm("rows", rows, "cols", cols), lens: lm("src", rows*cols, "dst", rows*cols), groups: g(ceilDiv(cols, 16), ceilDiv(rows, 16)), tol: exact}
	},
	"scale": func(r *rand.Rand, k *ir.Kernel) run {
		n := 100 + r.IntN(300)
		return run{params: map[string]float64{"s": float64(r.Float32()*4 - 2)}, lens: lm("x", n), init: map[string]string{"x": "rand"}, groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"add_offset": func(r *rand.Rand, k *ir.Kernel) run {
		n := 100 + r.IntN(300)
		return run{params: map[string]float64{"c": float64(int32(r.Uint32()))}, lens: lm("z", n), init: map[string]string{"z": "rand"}, groups: g(ceilDiv(n, 64)), tol: exact}
	},
	"vec4_math": func(r *rand.Rand, k *ir.Kernel) run {
		n := 200 + r.IntN(200)
		return run{params: pm("n", n), lens: lm("a", n, "b", n, "out", n, "dots", n), groups: g(ceilDiv(n, 64)), tol: elementTol}
	},
	"vecadd_bounded": func(r *rand.Rand, k *ir.Kernel) run {
		la, lb, lc := 200+r.IntN(300), 200+r.IntN(300), 200+r.IntN(300)
		return run{lens: lm("a", la, "b", lb, "c", lc), groups: g(ceilDiv(lc, 256)), tol: exact}
	},
}

func pm(kv ...any) map[string]float64 {
	m := map[string]float64{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = float64(kv[i+1].(int))
	}
	return m
}

func lm(kv ...any) map[string]int {
	m := map[string]int{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(int)
	}
	return m
}

func g(n ...int) [3]int {
	out := [3]int{1, 1, 1}
	copy(out[:], n)
	return out
}

// elemScalar is the scalar inside a buffer element type and its count.
func elemScalar(t ir.Type) (ir.Scalar, int) {
	switch t := t.(type) {
	case ir.Scalar:
		return t, 1
	case ir.Vector:
		n := t.N
		if n == 3 {
			n = 4
		}
		return t.Elem, n
	case ir.Atomic:
		return t.Elem, 1
	}
	return ir.Invalid, 0
}

// fill makes a buffer's initial bytes.
func fill(r *rand.Rand, mode string, s ir.Scalar, n int) []byte {
	size := 4
	if s == ir.F16 {
		size = 2
	}
	b := make([]byte, (n*size+3)&^3)
	switch mode {
	case "poison":
		copy(b, interp.Poison(len(b)))
		return b[:n*size]
	case "zero":
		return b[:n*size]
	}
	for i := 0; i < n; i++ {
		switch s {
		case ir.F32:
			var v float32
			switch mode {
			case "wide": // any finite float, saturating conversions included
				for {
					v = math.Float32frombits(r.Uint32())
					if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
						break
					}
				}
				if r.IntN(2) == 0 {
					v = (r.Float32() - 0.5) * float32(math.Ldexp(1, r.IntN(70)))
				}
			case "rand5":
				v = r.Float32()*10 - 5
			default:
				v = r.Float32()*4 - 2
			}
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		case ir.F16:
			binary.LittleEndian.PutUint16(b[2*i:], interp.F32ToF16Bits(r.Float32()*4-2))
		default:
			v := r.Uint32()
			if mode == "ints" { // edge cases of division, shifts, overflow
				switch r.IntN(6) {
				case 0:
					v = 0
				case 1:
					v = 0x80000000
				case 2:
					v = 0xffffffff
				case 3:
					v = uint32(r.IntN(40))
				}
			}
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
	}
	return b[:n*size]
}

// corpusPath is one way to SPIR-V for a kernel.
type corpusPath struct {
	name  string
	words func(ctx context.Context, m *ir.Module, kernel string) ([]uint32, string, error) // words and entry name
}

var corpusPaths = []corpusPath{
	{"spirv", func(ctx context.Context, m *ir.Module, kernel string) ([]uint32, string, error) {
		mod, err := spirv.Emit(m, spirv.Options{Kernel: kernel})
		if err != nil {
			return nil, "", err
		}
		return mod.Words, kernel, nil
	}},
	{"hlsl-glslang", func(ctx context.Context, m *ir.Module, kernel string) ([]uint32, string, error) {
		a, err := hlsl.Emit(m, hlsl.Options{Kernel: kernel})
		if err != nil {
			return nil, "", err
		}
		ent, err := a.Entry(kernel)
		if err != nil {
			return nil, "", err
		}
		w, err := hlsl.CompileSPIRV(ctx, a, kernel, hlsl.CompileOptions{Compiler: hlsl.Glslang})
		return w, ent.Name, err
	}},
}

// TestCorpus runs every kernel of testdata/kernels on the Vulkan device
// through SPIR-V from emit/spirv and through HLSL -> glslang -> SPIR-V, with
// fresh random inputs and poisoned outputs, and compares every buffer with
// the reference interpreter.
func TestCorpus(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	ctx := context.Background()
	seed := rand.Uint64()
	t.Logf("seed %d, device %s, subgroup size %d", seed, info.Name, info.SubgroupSize)
	for _, c := range kctest.Cases(t) {
		m := c.Module(t)
		for _, k := range m.Kernels {
			mk := corpusRuns[k.Name]
			for _, path := range corpusPaths {
				t.Run(c.Name+"/"+k.Name+"/"+path.name, func(t *testing.T) {
					if mk == nil {
						t.Fatalf("kernel %s has no entry in corpusRuns", k.Name)
					}
					r := rand.New(rand.NewPCG(seed, uint64(len(c.Name)+len(k.Name))))
					runCorpusKernel(t, ctx, d, m, k, c, path, mk(r, k), r)
				})
			}
		}
	}
}

// deviceLacks names a feature the kernel needs and the device lacks, or "".
func deviceLacks(info backend.AdapterInfo, k *ir.Kernel) string {
	if k.Features&ir.FeatureF16 != 0 && !info.F16 {
		return "f16"
	}
	if k.Features&ir.FeatureSubgroups != 0 && !info.Subgroups {
		return "subgroups"
	}
	return ""
}

func runCorpusKernel(t *testing.T, ctx context.Context, d *backend.Device, m *ir.Module, k *ir.Kernel, c kctest.Case, path corpusPath, spec run, r *rand.Rand) {
	info := d.Info()
	if f := deviceLacks(info, k); f != "" {
		t.Skipf("NOT RUN: device %s lacks %s, which kernel %s needs", info.Name, f, k.Name)
	}
	words, entry, err := path.words(ctx, m, k.Name)
	var unsup *ir.UnsupportedError
	if errors.As(err, &unsup) {
		t.Skipf("NOT RUN: path %s cannot express kernel %s: %v", path.name, k.Name, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", path.name, err)
	}
	art := &backend.Artifact{Target: backend.SPIRV, Words: words, Entry: entry, Layout: backend.LayoutOf(k), Features: k.Features, Spec: defines(c)}
	p, err := d.Load(ctx, art)
	if err != nil {
		t.Fatalf("load: %v", err)
	}

	// Inputs, the interpreter's copy and the device's copy.
	iargs := &interp.Args{Params: map[string]ir.Value{}, Buffers: map[string][]byte{}}
	var bargs backend.Args
	for _, prm := range k.Params {
		if prm.Kind != ir.ScalarParam {
			continue
		}
		v, ok := spec.params[prm.Name]
		if !ok {
			t.Fatalf("corpusRuns has no value for param %s", prm.Name)
		}
		switch prm.Type {
		case ir.F32:
			iargs.Params[prm.Name] = ir.FloatVal(float64(float32(v)))
			bargs.Params = append(bargs.Params, math.Float32bits(float32(v)))
		case ir.I32:
			iargs.Params[prm.Name] = ir.IntVal(int64(v))
			bargs.Params = append(bargs.Params, uint32(int32(v)))
		default:
			iargs.Params[prm.Name] = ir.IntVal(int64(v))
			bargs.Params = append(bargs.Params, uint32(v))
		}
	}
	type out struct {
		name string
		s    ir.Scalar
		buf  *backend.Buffer
	}
	var outs []out
	for _, prm := range ir.Buffers(k) {
		s, per := elemScalar(prm.Type)
		n, ok := spec.lens[prm.Name]
		if !ok {
			t.Fatalf("corpusRuns has no length for buffer %s", prm.Name)
		}
		mode := spec.init[prm.Name]
		if mode == "" {
			mode = "rand"
			if prm.Access != ir.Read {
				mode = "poison"
			}
		}
		data := fill(r, mode, s, n*per)
		iargs.Buffers[prm.Name] = append([]byte(nil), data...)
		dev := append([]byte(nil), data...)
		for len(dev)%16 != 0 { // backend buffers are multiples of 16 bytes
			dev = append(dev, 0xCD)
		}
		b, err := d.Upload(dev)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		bargs.Buffers = append(bargs.Buffers, b.Slice(0, int64(len(data))))
		if prm.Access != ir.Read {
			outs = append(outs, out{prm.Name, s, b})
		}
	}
	if err := interp.Run(m, k.Name, spec.groups, iargs, interp.Options{SubgroupSize: info.SubgroupSize}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	groups := backend.Groups(uint32(spec.groups[0]), uint32(spec.groups[1]), uint32(spec.groups[2]))
	if err := d.Dispatch(p, bargs, groups); err != nil {
		t.Fatalf("dispatch: %v", err)
	}
	for _, o := range outs {
		want := iargs.Buffers[o.name]
		got, err := d.Read(ctx, o.buf.Slice(0, int64(len(want))))
		if err != nil {
			t.Fatal(err)
		}
		if msg := compare(o.s, got, want, spec.tol, spec.ulpSlots); msg != "" {
			t.Errorf("%s (%s): %s", o.name, o.s, msg)
		}
	}
}

func defines(c kctest.Case) string {
	var kv []string
	for k, v := range c.Defines {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

// compare checks got against want element by element and describes the
// first few mismatches ("" when they match).
func compare(s ir.Scalar, got, want []byte, tl tol, ulpSlots func(int) bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	var bad []string
	nbad := 0
	size := 4
	if s == ir.F16 {
		size = 2
	}
	for i := 0; i+size <= len(want); i += size {
		var g, w float64
		var gb, wb uint32
		switch size {
		case 2:
			gb, wb = uint32(binary.LittleEndian.Uint16(got[i:])), uint32(binary.LittleEndian.Uint16(want[i:]))
			g, w = float64(interp.F16BitsToF32(uint16(gb))), float64(interp.F16BitsToF32(uint16(wb)))
		default:
			gb, wb = binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:])
			g, w = float64(math.Float32frombits(gb)), float64(math.Float32frombits(wb))
		}
		if gb == wb {
			continue
		}
		ok := false
		if ulpSlots != nil && ulpSlots(i/size) && gb>>31 == wb>>31 && (gb-wb == 1 || wb-gb == 1) {
			ok = true
		}
		poison := uint32(0xCDCDCDCD) >> (32 - 8*size)
		if s.IsFloat() && tl != exact && wb != poison {
			switch {
			case math.IsNaN(w):
				ok = math.IsNaN(g)
			case math.IsInf(w, 0):
				ok = g == w
			default:
				ok = math.Abs(g-w) <= tl.atol+tl.rtol*math.Abs(w)
			}
		}
		if !ok {
			nbad++
			if len(bad) < 5 {
				if s.IsFloat() {
					bad = append(bad, fmt.Sprintf("[%d] = %g (%#x), want %g (%#x)", i/size, g, gb, w, wb))
				} else {
					bad = append(bad, fmt.Sprintf("[%d] = %#x, want %#x", i/size, gb, wb))
				}
			}
		}
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ (tolerance %+v): %s", nbad, len(want)/size, tl, strings.Join(bad, "; "))
}
