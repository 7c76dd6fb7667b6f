//go:build linux && cgo

package spirv_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// Issue 12's corpus kernels (issue12Kernels: helper functions,
// structs, switch, constant arrays and precise) run as emitted SPIR-V on
// the Vulkan driver (lavapipe here) with fresh random inputs and poisoned
// outputs, and every word of every buffer is compared with the reference
// interpreter: integers and padding bit for bit, floats within the bound
// ir/interp's tolerance rules give for the expression (SumBound for sums a
// driver may reassociate, one ulp per pair it may contract; nothing in
// precise code).

// execCase is how one kernel (of module m) runs: its scalar parameters, its buffers'
// starting bytes, the grid, and the accepted error of float word i of a
// buffer (nil: bit for bit).
type execCase struct {
	params map[string]ir.Value
	bufs   map[string][]byte
	groups [3]int
	tol    func(buf string, word int, want float64) float64
	// check runs after the comparison on the device's buffers.
	check func(t *testing.T, got map[string][]byte)
}

const eps32 = 1.0 / (1 << 23) // ulp of 1 in f32

var execCases = map[string]func(r *rand.Rand, m *ir.Module) execCase{
	"precise_diff": func(r *rand.Rand, m *ir.Module) execCase {
		n := 64 + r.IntN(100)
		x, y, c := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			// Even elements are issue 12's reproducer.
			x[i], y[i], c[i] = 1, 1, 1e-8
			if i%2 == 1 {
				x[i], y[i], c[i] = randF(r, 2), randF(r, 2), randF(r, 2)
			}
		}
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": interp.Encode(x), "y": interp.Encode(y), "c": interp.Encode(c), "out": interp.Poison(8 * n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
			// precise: interp.Contraction(true) is exact.
			check: func(t *testing.T, got map[string][]byte) {
				out, _ := interp.Decode[float32](got["out"])
				for i := 0; i < n; i += 2 {
					if out[i] != 1e-8 || out[n+i] != 1e-8 {
						t.Errorf("reproducer x=y=1, c=1e-8: kernel gives %g, function gives %g; want 1e-8", out[i], out[n+i])
						return
					}
				}
			},
		}
	},
	"switch_ops": func(r *rand.Rand, m *ir.Module) execCase {
		n := 100 + r.IntN(200)
		op, a, b := make([]uint32, n), make([]int32, n), make([]int32, n)
		for i := range op {
			op[i] = uint32(r.IntN(10))
			a[i], b[i] = int32(r.Uint32()), int32(r.IntN(7)-3)
			if r.IntN(4) == 0 {
				a[i] = math.MinInt32
				b[i] = -1
			}
		}
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"op": interp.Encode(op), "a": interp.Encode(a), "b": interp.Encode(b), "y": interp.Poison(4 * n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
		}
	},
	"blur_const": func(r *rand.Rand, m *ir.Module) execCase {
		w, h := 50+r.IntN(150), 1+r.IntN(5)
		img := make([]float32, w*h)
		for i := range img {
			img[i] = randF(r, 4)
		}
		taps := []float64{0.0625, 0.25, 0.375, 0.25, 0.0625}
		return execCase{
			params: map[string]ir.Value{"width": ir.IntVal(int64(w)), "height": ir.IntVal(int64(h))},
			bufs:   map[string][]byte{"img": interp.Encode(img), "out": interp.Poison(4 * w * h)},
			groups: [3]int{ceilDiv(w, 64), h, 1},
			tol: func(_ string, i int, want float64) float64 {
				x, y := i%w, i/w
				abs := 0.0
				for k, tp := range taps {
					abs += tp * math.Abs(float64(img[y*w+min(max(x+k-2, 0), w-1)]))
				}
				// 5 terms reassociated, and each tap*img + s contracted.
				return interp.SumBound(ir.F32, abs, 5) + 5*interp.ULP(ir.F32, abs)
			},
		}
	},
	"helpers": func(r *rand.Rand, m *ir.Module) execCase {
		n := 64 + r.IntN(200)
		groups := ceilDiv(n, 64)
		x := make([]float32, n)
		for i := range x {
			x[i] = randF(r, 1)
		}
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": interp.Encode(x), "out": interp.Poison(4 * n), "hist": interp.Poison(4 * 16 * groups)},
			groups: [3]int{groups, 1, 1},
			tol: func(_ string, i int, want float64) float64 {
				at := func(j int) float64 { return math.Abs(float64(x[min(max(j, 0), n-1)])) }
				// (a + b + c) / 3 * u with u < 1: the sum may be
				// reassociated; / and * round once each.
				abs := at(i-1) + at(i) + at(i+1)
				return interp.SumBound(ir.F32, abs, 3)/3 + 2*interp.ULP(ir.F32, want)
			},
		}
	},
	"boids_struct": func(r *rand.Rand, m *ir.Module) execCase {
		n := 64 + r.IntN(200)
		groups := ceilDiv(n, 64)
		raw := interp.Poison(32 * n)
		for i := 0; i < n; i++ {
			for _, w := range []int{0, 1, 2, 4, 5, 6} { // pos, vel; word 3 is padding
				binary.LittleEndian.PutUint32(raw[32*i+4*w:], math.Float32bits(randF(r, 1)))
			}
			binary.LittleEndian.PutUint32(raw[32*i+28:], math.Float32bits(2+randF(r, 1))) // mass in [1, 3]
		}
		coh := float32(0.01 + 0.1*r.Float64())
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n)), "cohesion": ir.FloatVal(float64(coh))},
			bufs:   map[string][]byte{"ps": raw},
			groups: [3]int{groups, 1, 1},
			tol: func(_ string, i int, want float64) float64 {
				// Per workgroup, center = Σ pos*mass and weight = Σ mass
				// over up to 64 particles may be reassociated and
				// contracted: errors up to 2·SumBound(Σ|pos|·mass) and
				// SumBound(weight). q = center/weight is then off by
				// eC/W + (|C|/W)·eW/W plus its rounding; vel += (q -
				// pos)·cohesion multiplies that by cohesion and adds two
				// roundings (one if contracted); pos += vel·DT scales the
				// vel error by DT (< 1) and adds two more.
				g := i / 8 / 64
				var sabs, w float64
				for j := 64 * g; j < min(64*g+64, n); j++ {
					f := func(word int) float64 {
						return float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[32*j+4*word:])))
					}
					mass := f(7)
					sabs = max(sabs, (math.Abs(f(0))+math.Abs(f(1))+math.Abs(f(2)))*mass)
					w += mass
				}
				sabs *= 64
				ec := 2 * interp.SumBound(ir.F32, sabs, 64)
				ew := interp.SumBound(ir.F32, w, 64)
				eq := ec/w + sabs/w*ew/w + interp.ULP(ir.F32, sabs/w) + interp.ULP(ir.F32, sabs/w+1)
				return float64(coh)*eq + 2*interp.ULP(ir.F32, 2) + 2*interp.ULP(ir.F32, want)
			},
		}
	},
	// The kernels of testdata/lang.kc.
	"lang": func(r *rand.Rand, m *ir.Module) execCase {
		groups := 1 + r.IntN(3)
		n := 64 * groups
		x := make([]uint32, n+9)
		for i := range x {
			x[i] = r.Uint32() >> uint(r.IntN(32))
		}
		f := make([]float32, n)
		for i := range f {
			f[i] = randF(r, 4)
		}
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs: map[string][]byte{"x": interp.Encode(x), "f": interp.Encode(f), "out": interp.Poison(16 * n),
				"blur": interp.Poison(4 * n), "aux": interp.Poison(16 * n)},
			groups: [3]int{groups, 1, 1},
			tol: func(_ string, i int, want float64) float64 {
				abs := 0.0
				for k, tp := range []float64{0.0625, 0.25, 0.375, 0.25, 0.0625} {
					abs += tp * math.Abs(float64(f[min(max(i+k-2, 0), n-1)]))
				}
				return interp.SumBound(ir.F32, abs, 5) + 5*interp.ULP(ir.F32, abs)
			},
		}
	},
	"particles": func(r *rand.Rand, m *ir.Module) execCase {
		n := 64 + r.IntN(200)
		raw := interp.Poison(32 * n)
		for i := 0; i < n; i++ {
			for _, w := range []int{0, 1, 2, 4, 5, 6, 7} {
				binary.LittleEndian.PutUint32(raw[32*i+4*w:], math.Float32bits(randF(r, 2)))
			}
		}
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n)), "g": ir.FloatVal(float64(float32(9.81))), "dt": ir.FloatVal(float64(float32(0.01 + 0.1*r.Float64())))},
			bufs:   map[string][]byte{"ps": raw, "e": interp.Poison(4 * n)},
			groups: [3]int{ceilDiv(n, 64), 1, 1},
			tol: func(buf string, i int, want float64) float64 {
				if buf == "ps" {
					return 0 // step is precise; mass + 1 is one rounding
				}
				// 0.5 * m * dot(v, v): dot sums 3 products (reassociated,
				// contracted); |v| <= 2 + g*dt, |m| <= 2.
				return interp.SumBound(ir.F32, 2*3*9, 3) + 4*interp.ULP(ir.F32, want)
			},
		}
	},
	// The kernels of testdata/lang_f16.kc: every result is one rounding
	// or none, so every word must match.
	"structs": func(r *rand.Rand, m *ir.Module) execCase {
		n := 8 * (1 + r.IntN(4))
		return execCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"o": runspec.FillBuffer(r, directive.Fill{}, m.Struct("Outer"), n), "r": interp.Poison(32 * n), "y": interp.Poison(4 * n)},
			groups: [3]int{n / 8, 1, 1},
		}
	},
	"calls": func(r *rand.Rand, m *ir.Module) execCase {
		return execCase{bufs: map[string][]byte{"y": interp.Poison(4 * 16)}, groups: [3]int{2, 1, 1}}
	},
	"order": func(r *rand.Rand, m *ir.Module) execCase {
		return execCase{bufs: map[string][]byte{"y": interp.Poison(4 * 8)}, groups: [3]int{1, 1, 1}}
	},
}

// issue12Kernels are the corpus kernels written for issue 12's constructs.
var issue12Kernels = []string{"blur_const", "boids_struct", "helpers", "precise_diff", "switch_ops"}

func TestExecNextOnVulkan(t *testing.T) {
	var paths []string
	for _, name := range issue12Kernels {
		paths = append(paths, filepath.Join(kctest.Root(t), "testdata", "kernels", name+".kc"))
	}
	paths = append(paths, filepath.Join("testdata", "lang.kc"), filepath.Join("testdata", "lang_f16.kc"))
	d := backendtest.Open(t, "vulkan")
	seed := rand.Uint64()
	t.Logf("seed %d, device %s", seed, d.Info().Name)
	r := rand.New(rand.NewPCG(seed, 12))
	for _, p := range paths {
		m := load(t, p)
		for _, k := range m.Kernels {
			t.Run(k.Name, func(t *testing.T) {
				if k.Features&ir.FeatureF16 != 0 && !d.Info().F16 {
					kctest.Missing(t, "device %s has no f16", d.Info().Name)
				}
				mk, ok := execCases[k.Name]
				if !ok {
					t.Fatalf("no execCase for %s: every kernel of issue12Kernels and testdata/lang*.kc must run", k.Name)
				}
				runNext(t, d, m, k, mk(r, m))
			})
		}
	}
}

func load(t *testing.T, path string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Load(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runNext runs kernel k on the device and on the interpreter and compares
// every buffer.
func runNext(t *testing.T, d *backend.Device, m *ir.Module, k *ir.Kernel, c execCase) {
	ctx := context.Background()
	want := map[string][]byte{}
	for name, b := range c.bufs {
		want[name] = append([]byte(nil), b...)
	}
	if err := interp.Run(m, k.Name, c.groups, &interp.Args{Params: c.params, Buffers: want}, interp.Options{SubgroupSize: d.Info().SubgroupSize}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []spirv.Version{spirv.V1_3, spirv.V1_6} {
		t.Run("spirv"+v.String(), func(t *testing.T) {
			a, err := spirv.Emit(m, spirv.Options{Kernel: k.Name, Version: v})
			if err != nil {
				t.Fatal(err)
			}
			kctest.Tool(t, "spirv-val")
			if err := spirv.ValidateArtifact(ctx, a); err != nil {
				t.Fatal(err)
			}
			p, err := d.Load(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			got := backendtest.Dispatch(t, d, p, k, c.params, c.bufs, c.groups)
			for _, bp := range ir.Buffers(k) {
				compare(t, bp, got[bp.Name], want[bp.Name], c.tol)
			}
			if c.check != nil {
				c.check(t, got)
			}
		})
	}
}

// compare checks one buffer word by word: float words (of an f32 element
// or struct field) within tol, every other byte of a value bit for bit.
// Padding is not compared: docs/semantics.md says it is never read or
// written, and the GPU leaves it alone, but the interpreter zeroes the
// padding of a struct it stores.
func compare(t *testing.T, p *ir.Param, got, want []byte, tol func(string, int, float64) float64) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: read %d bytes, want %d", p.Name, len(got), len(want))
	}
	floats, mask := elemWords(p.Type)
	stride := ir.ElemStride(p.Type) / 4
	bad := 0
	for i := 0; i+4 <= len(want); i += 4 {
		w := i / 4
		m := mask[w%stride]
		g, e := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:])
		if g&m == e&m {
			continue
		}
		if floats[w%stride] && tol != nil {
			gf, ef := float64(math.Float32frombits(g)), float64(math.Float32frombits(e))
			if math.Abs(gf-ef) <= tol(p.Name, w, ef) {
				continue
			}
		}
		if bad < 8 {
			t.Errorf("%s word %d: got %#08x (%g), want %#08x (%g)", p.Name, w, g, math.Float32frombits(g), e, math.Float32frombits(e))
		}
		bad++
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d words differ", p.Name, bad, len(want)/4)
	}
}

// elemWords describes the 32-bit words of one element of type t: which
// hold an f32, and the mask of the bits that hold values (not padding).
func elemWords(t ir.Type) (floats []bool, mask []uint32) {
	n := ir.ElemStride(t) / 4
	floats, mask = make([]bool, n), make([]uint32, n)
	var mark func(t ir.Type, off int)
	mark = func(t ir.Type, off int) {
		switch t := t.(type) {
		case *ir.Struct:
			offs := ir.FieldOffsets(t)
			for i, f := range t.Fields {
				mark(f.Type, off+offs[i])
			}
		case *ir.Array:
			for j := range t.Len {
				mark(t.Elem, off+j*ir.ElemStride(t.Elem))
			}
		case ir.Vector:
			for j := range t.N {
				mark(t.Elem, off+ir.SizeOf(t.Elem)*j)
			}
		case ir.Scalar, ir.Atomic:
			if off/4 >= n {
				return
			}
			if ir.SizeOf(t) == 2 {
				mask[off/4] |= 0xffff << (8 * (off % 4))
				return
			}
			mask[off/4] = 0xffffffff
			floats[off/4] = t == ir.F32
		}
	}
	mark(t, 0)
	return floats, mask
}

func randF(r *rand.Rand, scale float64) float32 { return float32((2*r.Float64() - 1) * scale) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
