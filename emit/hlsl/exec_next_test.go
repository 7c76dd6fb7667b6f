//go:build linux && cgo

package hlsl_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// A nextRun is one run of a kernel: scalar params, starting buffers (inputs
// random, outputs poisoned), the grid, and how a float of each read_write
// buffer may differ from the interpreter's (nil: bit for bit).
type nextRun struct {
	params map[string]ir.Value
	bufs   map[string][]byte
	groups [3]int
	tol    map[string]func(want, got float32) bool
}

// within returns a float comparison |got - want| <= abs + rel*|want|.
func within(abs, rel float64) func(want, got float32) bool {
	return func(want, got float32) bool {
		return math.Abs(float64(got)-float64(want)) <= abs+rel*math.Abs(float64(want))
	}
}

func randF32(r *rand.Rand, n int, lo, hi float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = lo + r.Float32()*(hi-lo)
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// nextRuns gives each of issue12Kernels its arguments (the
// grid lines of their header comments).
var nextRuns = map[string]func(r *rand.Rand, k *ir.Kernel) nextRun{
	"blur_const": func(r *rand.Rand, k *ir.Kernel) nextRun {
		w, h := 50+r.IntN(150), 1+r.IntN(6)
		// Five products summed: each a*b + s may be fused (language.md
		// §11), at most half an ulp of |s| <= 1 each.
		return nextRun{
			params: map[string]ir.Value{"width": ir.IntVal(int64(w)), "height": ir.IntVal(int64(h))},
			bufs:   map[string][]byte{"img": interp.Encode(randF32(r, w*h, -1, 1)), "out": interp.Poison(4 * w * h)},
			groups: [3]int{ceilDiv(w, 64), h, 1},
			tol:    map[string]func(want, got float32) bool{"out": within(5*0x1p-24, 0)},
		}
	},
	"boids_struct": func(r *rand.Rand, k *ir.Kernel) nextRun {
		n := 64 + r.IntN(200)
		// center sums 64 products pos*mass (|.| <= 3, sums <= 192),
		// each addition possibly fused: <= 64 half-ulps of 192 = 5e-4;
		// divided by the weight (>= 64) and scaled by cohesion (<= 0.1)
		// that is < 1e-6 in vel, less in pos.
		return nextRun{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n)), "cohesion": ir.FloatVal(float64(float32(0.1 * r.Float32())))},
			bufs:   map[string][]byte{"ps": particles(r, k, n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
			tol:    map[string]func(want, got float32) bool{"ps": within(2e-6, 1e-6)},
		}
	},
	"helpers": func(r *rand.Rand, k *ir.Kernel) nextRun {
		n := 100 + r.IntN(300)
		g := ceilDiv(n, 64)
		// (a + b + c) / 3 * unit: a division (2.5 ulp) and a multiply
		// (0.5 ulp); nothing to contract.
		div := interp.OpTolerance(ir.OpDiv)
		div.ULP += 1
		return nextRun{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": interp.Encode(randF32(r, n, -4, 4)), "out": interp.Poison(4 * n), "hist": interp.Poison(4 * 16 * g)},
			groups: [3]int{g, 1, 1},
			tol: map[string]func(want, got float32) bool{"out": func(want, got float32) bool {
				return div.Within(ir.F32, 0, float64(want), float64(got))
			}},
		}
	},
	"precise_diff": func(r *rand.Rand, k *ir.Kernel) nextRun {
		n := 64 + r.IntN(200)
		x, y, c := randF32(r, n, -2, 2), randF32(r, n, -2, 2), randF32(r, n, -2, 2)
		for i := 0; i < n; i += 2 {
			x[i], y[i], c[i] = 1, 1, 1e-8 // issue 12's reproducer
		}
		// Precise: no contraction, so every float is bit for bit
		// (interp.Contraction(true) allows nothing).
		return nextRun{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": interp.Encode(x), "y": interp.Encode(y), "c": interp.Encode(c), "out": interp.Poison(8 * n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
		}
	},
	"switch_ops": func(r *rand.Rand, k *ir.Kernel) nextRun {
		n := 100 + r.IntN(300)
		op := make([]uint32, n)
		a, b := make([]int32, n), make([]int32, n)
		for i := range op {
			op[i] = uint32(r.IntN(10))
			a[i], b[i] = int32(r.Uint32()), int32(r.IntN(200)-100)
			if r.IntN(8) == 0 {
				b[i] = 0
			}
			if r.IntN(16) == 0 {
				a[i], b[i] = math.MinInt32, -1
			}
		}
		return nextRun{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"op": interp.Encode(op), "a": interp.Encode(a), "b": interp.Encode(b), "y": interp.Poison(4 * n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
		}
	},
}

// particles lays out n random Particles with the offsets ir.FieldOffsets
// gives (not the ones HLSL would pick), padding poisoned.
func particles(r *rand.Rand, k *ir.Kernel, n int) []byte {
	var st *ir.Struct
	for _, p := range ir.Buffers(k) {
		st = p.Type.(*ir.Struct)
	}
	stride := ir.ElemStride(st)
	offs := ir.FieldOffsets(st)
	b := interp.Poison(n * stride)
	for i := 0; i < n; i++ {
		for f, fl := range st.Fields {
			words := ir.SizeOf(fl.Type) / 4
			for w := 0; w < words; w++ {
				v := r.Float32()*2 - 1
				if fl.Name == "mass" {
					v = 1 + 2*r.Float32()
				}
				binary.LittleEndian.PutUint32(b[i*stride+offs[f]+4*w:], math.Float32bits(v))
			}
		}
	}
	return b
}

// TestExecNext runs issue 12's corpus kernels (issue12Kernels) through HLSL ->
// glslang -> SPIR-V on the Vulkan device (lavapipe here) with fresh random
// inputs and poisoned outputs, and compares every read_write buffer with
// the reference interpreter.
func TestExecNext(t *testing.T) {
	kctest.Tool(t, hlsl.GlslangTool)
	kctest.Tool(t, hlsl.SpirvValTool)
	d := backendtest.Open(t, "vulkan")
	seed := rand.Uint64()
	t.Logf("seed %d, device %s", seed, d.Info().Name)
	for i, name := range hlsl.Issue12Kernels {
		c := hlsl.Issue12Case(t, name)
		m := c.Module(t)
		for _, k := range m.Kernels {
			t.Run(k.Name, func(t *testing.T) {
				mk := nextRuns[k.Name]
				if mk == nil {
					t.Fatalf("kernel %s has no entry in nextRuns", k.Name)
				}
				r := rand.New(rand.NewPCG(seed, uint64(i)))
				runNext(t, d, m, k, mk(r, k))
			})
		}
	}
}

// TestPreciseReproducer is issue 12's acceptance test on the HLSL path:
// x*x - y*y + c with x = y = 1 and c = 1e-8 is 1e-8 when precise. The same
// kernel without `precise` is run too and what it gives is logged: glslang
// turns x*x + (-(y*y)) ... into an Fma there, which is what `precise`
// forbids.
func TestPreciseReproducer(t *testing.T) {
	kctest.Tool(t, hlsl.GlslangTool)
	kctest.Tool(t, hlsl.SpirvValTool)
	d := backendtest.Open(t, "vulkan")
	path := hlsl.Issue12Case(t, "precise_diff").Path
	const n = 64
	for _, precise := range []bool{true, false} {
		edit := func(src []byte) []byte { return src }
		if !precise {
			edit = func(src []byte) []byte { return bytes.ReplaceAll(src, []byte("precise "), nil) }
		}
		m := loadModule(t, path, edit)
		x, y, c := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i], c[i] = 1, 1, 1e-8
		}
		bufs := map[string][]byte{"x": interp.Encode(x), "y": interp.Encode(y), "c": interp.Encode(c), "out": interp.Poison(8 * n)}
		got := dispatch(t, d, m, m.Kernels[0], map[string]ir.Value{"n": ir.IntVal(n)}, bufs, [3]int{1, 1, 1})["out"]
		o0 := math.Float32frombits(binary.LittleEndian.Uint32(got))
		on := math.Float32frombits(binary.LittleEndian.Uint32(got[4*n:]))
		if !precise {
			t.Logf("without precise, %s gives %g (kernel body) and %g (function)", d.Info().Name, o0, on)
			continue
		}
		for i := 0; i < 2*n; i++ {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != 1e-8 {
				t.Fatalf("precise: out[%d] = %g, want 1e-8", i, v)
			}
		}
		t.Logf("precise: %s gives %g (kernel body) and %g (function)", d.Info().Name, o0, on)
	}
}

// loadModule parses (after edit, when given) and checks a .kc file.
func loadModule(t *testing.T, path string, edit func([]byte) []byte) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		src = edit(src)
	}
	m, err := parse.File(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// dispatch compiles k through HLSL and glslang, runs it on d
// (backendtest.Dispatch) and returns every buffer.
func dispatch(t *testing.T, d *backend.Device, m *ir.Module, k *ir.Kernel, params map[string]ir.Value, bufs map[string][]byte, groups [3]int) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
	if err != nil {
		t.Fatal(err)
	}
	words, err := hlsl.CompileSPIRV(ctx, a, k.Name, hlsl.CompileOptions{Compiler: hlsl.Glslang})
	if err != nil {
		t.Fatalf("%v\n%s", err, a.Code)
	}
	p, err := d.Load(ctx, words)
	if err != nil {
		t.Fatal(err)
	}
	return backendtest.Dispatch(t, d, p, k, params, bufs, groups)
}

// runNext runs spec on the device and the interpreter and compares.
func runNext(t *testing.T, d *backend.Device, m *ir.Module, k *ir.Kernel, spec nextRun) {
	t.Helper()
	want := map[string][]byte{}
	for name, b := range spec.bufs {
		want[name] = bytes.Clone(b)
	}
	// Races: a kernel whose result depends on timing fails here instead
	// of flaking on the device.
	if err := interp.Run(m, k.Name, spec.groups, &interp.Args{Params: spec.params, Buffers: want}, interp.Options{SubgroupSize: d.Info().SubgroupSize, Races: true}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	got := dispatch(t, d, m, k, spec.params, spec.bufs, spec.groups)
	for _, bp := range ir.Buffers(k) {
		if bp.Access != ir.ReadWrite {
			continue
		}
		if msg := compareWords(got[bp.Name], want[bp.Name], ir.ElemScalar(bp.Type) == ir.F32 || isStruct(bp.Type), spec.tol[bp.Name]); msg != "" {
			t.Errorf("%s: %s", bp.Name, msg)
		}
	}
}

func isStruct(t ir.Type) bool { _, ok := t.(*ir.Struct); return ok }

// compareWords compares 32-bit words: equal bits, or for floats within tol
// (nil: bits only).
func compareWords(got, want []byte, floats bool, tol func(want, got float32) bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	var bad []string
	n := 0
	for i := 0; i+4 <= len(want); i += 4 {
		g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:])
		if g == w {
			continue
		}
		if floats && tol != nil && tol(math.Float32frombits(w), math.Float32frombits(g)) {
			continue
		}
		n++
		if len(bad) < 6 {
			bad = append(bad, fmt.Sprintf("word %d = %#08x (%g), want %#08x (%g)", i/4, g, math.Float32frombits(g), w, math.Float32frombits(w)))
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d words differ: %s", n, len(want)/4, strings.Join(bad, "; "))
}
