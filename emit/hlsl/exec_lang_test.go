//go:build linux && cgo

package hlsl_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// fillValues writes random values of type t at b (len(b) >= ir.SizeOf(t)),
// field by field at the offsets ir.FieldOffsets gives, leaving padding as
// it is (poisoned by the caller): floats in [-2, 2), integers small or
// extreme.
func fillValues(r *rand.Rand, b []byte, t ir.Type) {
	switch t := t.(type) {
	case *ir.Struct:
		for i, off := range ir.FieldOffsets(t) {
			fillValues(r, b[off:], t.Fields[i].Type)
		}
	case *ir.Array:
		stride := ir.ElemStride(t.Elem)
		for i := 0; i < t.Len; i++ {
			fillValues(r, b[i*stride:], t.Elem)
		}
	case ir.Vector:
		size := ir.SizeOf(t.Elem)
		for i := 0; i < t.N; i++ {
			fillValues(r, b[i*size:], t.Elem)
		}
	case ir.Scalar:
		switch t {
		case ir.F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(r.Float32()*4-2))
		case ir.F16:
			binary.LittleEndian.PutUint16(b, interp.F32ToF16Bits(r.Float32()*4-2))
		default:
			v := uint32(int32(r.IntN(2001) - 1000))
			switch r.IntN(8) {
			case 0:
				v = r.Uint32()
			case 1:
				v = []uint32{0x80000000, 0x7fffffff, 0xffffffff, 0}[r.IntN(4)]
			}
			binary.LittleEndian.PutUint32(b, v)
		}
	}
}

// randomElems makes count random elements of type t laid out by WGSL's
// rules, padding poisoned.
func randomElems(r *rand.Rand, t ir.Type, count int) []byte {
	stride := ir.ElemStride(t)
	b := interp.Poison(count * stride)
	for i := 0; i < count; i++ {
		fillValues(r, b[i*stride:], t)
	}
	return b
}

// TestExecLang runs the kernels of testdata/lang.kc through HLSL ->
// glslang -> SPIR-V on the Vulkan device with fresh random inputs (struct
// buffers laid out by ir.FieldOffsets, padding poisoned) and poisoned
// outputs, and compares every read_write buffer with the interpreter.
func TestExecLang(t *testing.T) {
	kctest.Tool(t, hlsl.GlslangTool)
	kctest.Tool(t, hlsl.SpirvValTool)
	d := backendtest.Open(t, "vulkan")
	if !d.Info().F16 {
		kctest.Missing(t, "device %s lacks f16, which testdata/lang.kc needs", d.Info().Name)
	}
	seed := rand.Uint64()
	t.Logf("seed %d, device %s", seed, d.Info().Name)
	m := loadModule(t, filepath.Join("testdata", "lang.kc"), nil)
	const n = 128
	runs := map[string]func(r *rand.Rand, k *ir.Kernel) nextRun{
		"lang": func(r *rand.Rand, k *ir.Kernel) nextRun {
			x := make([]uint32, n+4) // firstAbove stops at len(x)
			for i := range x {
				x[i] = r.Uint32()
				if r.IntN(3) == 0 {
					x[i] %= 200
				}
			}
			return nextRun{
				params: map[string]ir.Value{"n": ir.IntVal(n)},
				bufs: map[string][]byte{"x": interp.Encode(x), "f": interp.Encode(randF32(r, n, -1, 1)),
					"out": interp.Poison(16 * n), "blur": interp.Poison(4 * n), "aux": interp.Poison(12 * n)},
				groups: [3]int{2, 1, 1},
				// five products summed, each possibly fused
				tol: map[string]func(want, got float32) bool{"blur": within(5*0x1p-24, 0)},
			}
		},
		"mixed": func(r *rand.Rand, k *ir.Kernel) nextRun {
			// n < 128: the last invocations return early and leave
			// their structs (and every padding byte) as they were.
			mixed, inner := m.Struct("Mixed"), m.Struct("Inner")
			return nextRun{
				params: map[string]ir.Value{"n": ir.IntVal(int64(100 + r.IntN(28))), "by": ir.FloatVal(float64(r.Float32()*4 - 2))},
				bufs: map[string][]byte{"ms": randomElems(r, mixed, n), "inner": randomElems(r, inner, n),
					"flat": interp.Poison(16 * n)},
				groups: [3]int{2, 1, 1},
			}
		},
		"order": func(r *rand.Rand, k *ir.Kernel) nextRun {
			return nextRun{
				bufs:   map[string][]byte{"x": randomElems(r, ir.U32, n), "y": interp.Poison(16 * n), "z": interp.Poison(4 * n)},
				groups: [3]int{2, 1, 1},
			}
		},
		"switches": func(r *rand.Rand, k *ir.Kernel) nextRun {
			return nextRun{
				bufs:   map[string][]byte{"a": randomElems(r, ir.I32, n), "out": interp.Poison(4 * n)},
				groups: [3]int{2, 1, 1},
			}
		},
		"precise_mix": func(r *rand.Rand, k *ir.Kernel) nextRun {
			x, y, c := randF32(r, n, -2, 2), randF32(r, n, -2, 2), randF32(r, n, -2, 2)
			for i := 0; i < n; i += 2 {
				x[i], y[i], c[i] = 1, 1, 1e-8
			}
			return nextRun{
				bufs: map[string][]byte{"x": interp.Encode(x), "y": interp.Encode(y), "c": interp.Encode(c),
					"out": interp.Poison(8 * n), "plain": interp.Poison(4 * n)},
				groups: [3]int{2, 1, 1},
				// out is precise: bit for bit. plain may be fused: an
				// ulp of x*x and of y*y (<= 4) each.
				tol: map[string]func(want, got float32) bool{"plain": within(2*0x1p-21, 0)},
			}
		},
	}
	runs["particles"] = func(r *rand.Rand, k *ir.Kernel) nextRun {
		return nextRun{
			params: map[string]ir.Value{"n": ir.IntVal(int64(100 + r.IntN(28))), "g": ir.FloatVal(float64(r.Float32() * 10)),
				"dt": ir.FloatVal(float64(r.Float32() * 0.1))},
			bufs:   map[string][]byte{"ps": randomElems(r, m.Struct("Particle"), n), "e": interp.Poison(4 * n)},
			groups: [3]int{2, 1, 1},
			// step is precise: ps bit for bit. energy is not: a dot
			// of three squares (no cancellation), fused or not, and two
			// products: a few ulps.
			tol: map[string]func(want, got float32) bool{"e": within(0, 8*0x1p-24)},
		}
	}
	runs["targets"] = func(r *rand.Rand, k *ir.Kernel) nextRun {
		perm := make([]uint32, n)
		for i, p := range r.Perm(n) {
			perm[i] = uint32(p)
		}
		// A target found after the value would be z[128 + i].
		return nextRun{
			bufs:   map[string][]byte{"y": randomElems(r, ir.U32, 2*n), "z": interp.Poison(8 * n), "idx": interp.Encode(perm)},
			groups: [3]int{2, 1, 1},
		}
	}
	runs["edges"] = func(r *rand.Rand, k *ir.Kernel) nextRun {
		return nextRun{
			bufs:   map[string][]byte{"y": randomElems(r, ir.U32, 48), "f": randomElems(r, ir.F32, 16)},
			groups: [3]int{2, 1, 1},
		}
	}
	runs["twice"] = func(r *rand.Rand, k *ir.Kernel) nextRun {
		return nextRun{
			bufs: map[string][]byte{"a": randomElems(r, ir.F32, 50), "b": randomElems(r, ir.F32, 77),
				"out": interp.Poison(4 * n), "cnt": interp.Poison(8 * n)},
			groups: [3]int{2, 1, 1},
		}
	}
	for i, k := range m.Kernels {
		t.Run(k.Name, func(t *testing.T) {
			mk := runs[k.Name]
			if mk == nil {
				t.Fatalf("kernel %s has no run", k.Name)
			}
			runNext(t, d, m, k, mk(rand.New(rand.NewPCG(seed, uint64(i))), k))
		})
	}
}
