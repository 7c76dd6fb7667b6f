package wgpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// The kernels of testdata/kernels-next (issue 12: functions, structs,
// switch, constant arrays, precise) through WGSL on wgpu, against the
// interpreter on the same fresh random inputs, with every read_write
// buffer poisoned before the dispatch. They move into testdata/kernels
// (and TestCorpus) once every target lowers them; until then each has its
// inputs and float bound here. Floats compare within abs + rel*|want|,
// the bound stated with each kernel; padding bytes of struct elements are
// not compared (the interpreter leaves them alone, a GPU may not).

// nextCase is the inputs of one kernels-next kernel and its float bound.
type nextCase struct {
	params   map[string]ir.Value
	bufs     map[string][]byte
	grid     [3]int
	abs, rel float64
	// bound, when set, replaces abs and rel: the bound for element i of
	// buffer buf.
	bound func(buf string, i int) float64
}

var nextCases = map[string]func(r *rand.Rand) nextCase{
	"blur_const": func(r *rand.Rand) nextCase {
		w, h := 50+r.IntN(200), 1+r.IntN(6)
		// Five products of |tap| * |img| <= 1 summed, taps adding up to 1:
		// contraction moves each partial sum by at most an ulp of 1.
		return nextCase{
			params: map[string]ir.Value{"width": ir.IntVal(int64(w)), "height": ir.IntVal(int64(h))},
			bufs:   map[string][]byte{"img": nextF32(r, w*h), "out": interp.Poison(4 * w * h)},
			grid:   [3]int{(w + 63) / 64, h, 1},
			abs:    5 * 0x1p-23,
		}
	},
	"boids_struct": func(r *rand.Rand) nextCase {
		n := 64 + r.IntN(200)
		ps := make([]byte, 32*n)
		for i := range ps {
			ps[i] = 0xCD // padding poisoned too
		}
		for i := 0; i < n; i++ {
			for _, off := range []int{0, 4, 8, 16, 20, 24} {
				putF32(ps[32*i+off:], r.Float32()*2-1)
			}
			putF32(ps[32*i+28:], r.Float32()+1) // mass in [1, 2)
		}
		// The centre is a 64-term sum of |pos*mass| <= 2 in the same order
		// on both sides; contraction moves each step by half an ulp of a
		// partial sum <= 128, i.e. 2^-17, and dividing by the weight (>= 64)
		// shrinks that below 2^-17 in center/weight.
		return nextCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n)), "cohesion": ir.FloatVal(float64(r.Float32()))},
			bufs:   map[string][]byte{"ps": ps},
			grid:   [3]int{(n + 63) / 64, 1, 1},
			abs:    0x1p-16,
		}
	},
	"helpers": func(r *rand.Rand) nextCase {
		n := 64 + r.IntN(300)
		g := (n + 63) / 64
		// (a+b+c)/3 * u with |a|,|b|,|c| <= 1, u < 1: a few roundings of
		// values below 3.
		return nextCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": nextF32(r, n), "out": interp.Poison(4 * n), "hist": interp.Poison(4 * 16 * g)},
			grid:   [3]int{g, 1, 1},
			abs:    8 * 0x1p-22,
		}
	},
	"switch_ops": func(r *rand.Rand) nextCase {
		n := 100 + r.IntN(400)
		op, a, b := make([]uint32, n), make([]int32, n), make([]int32, n)
		for i := range op {
			op[i] = uint32(r.IntN(10))
			a[i], b[i] = int32(r.Uint32()), int32(r.IntN(201)-100)
			if r.IntN(8) == 0 {
				b[i] = 0
			}
			if r.IntN(16) == 0 {
				a[i], b[i] = math.MinInt32, -1
			}
		}
		return nextCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"op": interp.Encode(op), "a": interp.Encode(a), "b": interp.Encode(b), "y": interp.Poison(4 * n)},
			grid:   [3]int{(n + 63) / 64, 1, 1},
		}
	},
	"precise_diff": func(r *rand.Rand) nextCase {
		n := 64 + r.IntN(200)
		x, y, c := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i], c[i] = 1, 1, 1e-8 // issue 12's reproducer
			if i%2 == 1 {
				x[i], y[i], c[i] = r.Float32()*4-2, r.Float32()*4-2, r.Float32()*4-2
			}
		}
		// WGSL cannot mark code precise (semantics.md §9): a consumer may
		// contract and group x*x - y*y + c as it likes, so each of the
		// three roundings may be off by an ulp of the largest term.
		bound := func(_ string, i int) float64 {
			i %= n
			return 3 * 0x1p-23 * (float64(x[i]*x[i]) + float64(y[i]*y[i]) + math.Abs(float64(c[i])))
		}
		return nextCase{
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs:   map[string][]byte{"x": interp.Encode(x), "y": interp.Encode(y), "c": interp.Encode(c), "out": interp.Poison(8 * n)},
			grid:   [3]int{(n + 63) / 64, 1, 1},
			bound:  bound,
		}
	},
}

// TestNextWGSL runs every kernel of testdata/kernels-next through WGSL on
// wgpu (naga v0.19 inside) and compares with the interpreter.
func TestNextWGSL(t *testing.T) {
	d := openDevice(t)
	paths, _ := filepath.Glob(filepath.Join(kctest.Root(t), "testdata", "kernels-next", "*.kc"))
	if len(paths) == 0 {
		t.Fatal("no testdata/kernels-next/*.kc")
	}
	for _, path := range paths {
		name := filepath.Base(path[:len(path)-3])
		t.Run(name, func(t *testing.T) {
			setup, ok := nextCases[name]
			if !ok {
				t.Fatalf("no inputs for %s in nextCases", name)
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := parse.Load(path, src, nil)
			if err != nil {
				t.Fatal(err)
			}
			a, err := backend.Emit(m, name, backend.WGSL)
			if err != nil {
				t.Fatal(err)
			}
			p, err := d.Load(ctx, a)
			if err != nil {
				t.Fatalf("wgpu rejects the WGSL of %s: %v\n%s", name, err, a.Code)
			}
			c := setup(rng(t))
			got := runNext(t, d, p, m, m.Kernel(name), c)
			if name == "precise_diff" {
				logReproducer(t, got["out"])
			}
		})
	}
}

// logReproducer reports what this path gives for issue 12's reproducer
// (the even elements of precise_diff's out: x = y = 1, c = 1e-8). WGSL
// cannot forbid contraction, so 0 is allowed here and only logged.
func logReproducer(t *testing.T, out []byte) {
	n := len(out) / 8
	exact, zero := 0, 0
	for i := 0; i < n; i += 2 {
		for _, j := range []int{i, n + i} {
			switch math.Float32frombits(binary.LittleEndian.Uint32(out[4*j:])) {
			case 1e-8:
				exact++
			case 0:
				zero++
			}
		}
	}
	t.Logf("reproducer x*x - y*y + c (x = y = 1, c = 1e-8) through WGSL: %d results 1e-8, %d results 0, of %d", exact, zero, 2*((n+1)/2))
}

// runNext dispatches c on the device and in the interpreter, compares
// every read_write buffer element by element and returns the device's.
func runNext(t *testing.T, d *backend.Device, p *backend.Pipeline, m *ir.Module, k *ir.Kernel, c nextCase) map[string][]byte {
	t.Helper()
	fields, _ := ir.ParamsLayout(k)
	words := make([]uint32, len(fields))
	for i, f := range fields {
		v := c.params[f.Param.Name]
		if ir.ElemScalar(f.Param.Type) == ir.F32 {
			words[i] = math.Float32bits(float32(v.Float))
		} else {
			words[i] = uint32(v.Int)
		}
	}
	var views []backend.View
	want := map[string][]byte{}
	for _, b := range ir.Buffers(k) {
		buf, err := d.Upload(c.bufs[b.Name])
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, buf.View())
		want[b.Name] = bytes.Clone(c.bufs[b.Name])
	}
	g := backend.Groups(uint32(c.grid[0]), uint32(c.grid[1]), uint32(c.grid[2]))
	if err := d.Dispatch(p, backend.Args{Params: words, Buffers: views}, g); err != nil {
		t.Fatal(err)
	}
	if err := interp.Run(m, k.Name, c.grid, &interp.Args{Params: c.params, Buffers: want}, interp.Options{SubgroupSize: 8}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	out := map[string][]byte{}
	for i, b := range ir.Buffers(k) {
		if b.Access != ir.ReadWrite {
			continue
		}
		got, err := d.Read(ctx, views[i])
		if err != nil {
			t.Fatal(err)
		}
		out[b.Name] = got
		if msg := compareElems(b, got, want[b.Name], c); msg != "" {
			t.Errorf("%s: buffer %s (grid %v, params %v): %s", k.Name, b.Name, c.grid, c.params, msg)
		}
	}
	return out
}

// compareElems compares the scalars of every element of buffer b (struct
// padding skipped): integers exactly, f32 within the case's bound.
func compareElems(b *ir.Param, got, want []byte, c nextCase) string {
	bad, first, n := 0, "", 0
	stride := ir.ElemStride(b.Type)
	for e := 0; e+stride <= len(want); e += stride {
		leaves(b.Type, e, func(off int, s ir.Scalar) {
			i := off / 4
			n++
			g, w := binary.LittleEndian.Uint32(got[off:]), binary.LittleEndian.Uint32(want[off:])
			if g == w {
				return
			}
			if s == ir.F32 {
				gf, wf := float64(math.Float32frombits(g)), float64(math.Float32frombits(w))
				bound := c.abs + c.rel*math.Abs(wf)
				if c.bound != nil {
					bound = c.bound(b.Name, i)
				}
				if math.Abs(gf-wf) <= bound {
					return
				}
				if first == "" {
					first = fmt.Sprintf("word %d = %v, want %v (bound %g)", i, gf, wf, bound)
				}
			} else if first == "" {
				first = fmt.Sprintf("word %d = %#x, want %#x", i, g, w)
			}
			bad++
		})
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d scalars differ; first: %s", bad, n, first)
}

// leaves calls fn with the byte offset and type of every 32-bit scalar of
// a value of type t at offset off (WGSL storage layout).
func leaves(t ir.Type, off int, fn func(off int, s ir.Scalar)) {
	switch t := t.(type) {
	case ir.Scalar:
		fn(off, t)
	case ir.Atomic:
		fn(off, t.Elem)
	case ir.Vector:
		for i := 0; i < t.N; i++ {
			fn(off+4*i, t.Elem)
		}
	case *ir.Array:
		for i := 0; i < t.Len; i++ {
			leaves(t.Elem, off+i*ir.ElemStride(t.Elem), fn)
		}
	case *ir.Struct:
		for i, o := range ir.FieldOffsets(t) {
			leaves(t.Fields[i].Type, off+o, fn)
		}
	}
}

func nextF32(r *rand.Rand, n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return interp.Encode(v)
}

func putF32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
