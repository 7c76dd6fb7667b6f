package interp

import (
	"math"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// References for issue 12's corpus kernels (helper functions, structs,
// switch, constant arrays, precise; TestCorpus runs them): fresh random
// inputs against Go code that performs the same float32 operations in the
// same order.

// TestPreciseReproducer: issue 12's x*x - y*y + c with x = y = 1 and
// c = 1e-8 is 1e-8 when each operation is rounded as written (a fused
// x*x + (-(y*y) + c) would give 0 or 1e-8 depending on the grouping; the
// interpreter never fuses).
func checkPreciseDiff(t *testing.T, _ kctest.Case, m *ir.Module, r *rng) {
	n := 64 + r.IntN(64)
	x, y, c := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i], c[i] = 1, 1, 1e-8
		if i%2 == 1 {
			v := r.floats(3, -2, 2)
			x[i], y[i], c[i] = v[0], v[1], v[2]
		}
	}
	out := Poison(8 * n)
	mustRun(t, m, "precise_diff", [3]int{ceilDiv(n, 64), 1, 1}, &Args{
		Params:  params("n", uint32(n)),
		Buffers: map[string][]byte{"x": Encode(x), "y": Encode(y), "c": Encode(c), "out": out},
	}, Options{})
	o := f32s(t, out)
	for i := 0; i < n; i++ {
		want := float32(float32(x[i]*x[i])-float32(y[i]*y[i])) + c[i]
		if o[i] != want || o[n+i] != want {
			t.Fatalf("out[%d], out[n+%d] = %g, %g; want %g", i, i, o[i], o[n+i], want)
		}
		if i%2 == 0 && want != 1e-8 {
			t.Fatalf("reproducer gives %g, want 1e-8", want)
		}
	}
}

func checkSwitchOps(t *testing.T, _ kctest.Case, m *ir.Module, r *rng) {
	n := 100 + r.IntN(200)
	op := make([]uint32, n)
	for i := range op {
		op[i] = uint32(r.IntN(10))
	}
	a, b := r.i32s(n), r.i32s(n)
	for i := range b {
		if r.IntN(8) == 0 {
			b[i] = 0
		}
	}
	y := Poison(4 * n)
	mustRun(t, m, "switch_ops", [3]int{ceilDiv(n, 64), 1, 1}, &Args{
		Params:  params("n", uint32(n)),
		Buffers: map[string][]byte{"op": Encode(op), "a": Encode(a), "b": Encode(b), "y": y},
	}, Options{SubgroupSize: 8})
	got := i32s(t, y)
	for i := 0; i < n; i++ {
		var want int32
		switch op[i] {
		case 0:
			want = a[i] + b[i]
		case 1:
			want = a[i] - b[i]
		case 2, 3:
			want = a[i] * b[i]
		case 4:
			want = min(a[i], b[i])
		case 5:
			want = max(a[i], b[i])
		case 6, 7:
			switch {
			case b[i] == 0:
				want = 0
			case a[i] == math.MinInt32 && b[i] == -1:
				want = math.MinInt32
			default:
				want = a[i] / b[i]
			}
		default:
			want = -1
		}
		if got[i] != want {
			t.Fatalf("y[%d] = %d, want %d (op %d, a %d, b %d)", i, got[i], want, op[i], a[i], b[i])
		}
	}
}

func checkBlurConst(t *testing.T, _ kctest.Case, m *ir.Module, r *rng) {
	w, h := 50+r.IntN(100), 1+r.IntN(5)
	img := r.floats(w*h, -1, 1)
	out := Poison(4 * w * h)
	mustRun(t, m, "blur_const", [3]int{ceilDiv(w, 64), h, 1}, &Args{
		Params:  params("width", uint32(w), "height", uint32(h)),
		Buffers: map[string][]byte{"img": Encode(img), "out": out},
	}, Options{})
	taps := []float32{0.0625, 0.25, 0.375, 0.25, 0.0625}
	got := f32s(t, out)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s float32
			for k := 0; k < 5; k++ {
				xi := min(max(x+k-2, 0), w-1)
				s = s + float32(taps[k]*img[y*w+xi])
			}
			if got[y*w+x] != s {
				t.Fatalf("out[%d][%d] = %g, want %g", y, x, got[y*w+x], s)
			}
		}
	}
}

func checkBoidsStruct(t *testing.T, _ kctest.Case, m *ir.Module, r *rng) {
	n := 64 + r.IntN(100)
	groups := ceilDiv(n, 64)
	ps := make([]particle, n)
	for i := range ps {
		v := r.floats(7, -1, 1)
		ps[i] = particle{pos: [3]float32{v[0], v[1], v[2]}, vel: [3]float32{v[3], v[4], v[5]}, mass: v[6] + 2}
	}
	coh := float32(0.05)
	buf := encodeParticles(ps)
	mustRun(t, m, "boids_struct", [3]int{groups, 1, 1}, &Args{
		Params:  params("n", uint32(n), "cohesion", coh),
		Buffers: map[string][]byte{"ps": buf},
	}, Options{SubgroupSize: 8, Races: true})
	const dt = float32(0.01)
	for g := 0; g < groups; g++ {
		var center [3]float32
		var weight float32
		for j := 0; j < 64; j++ {
			if i := 64*g + j; i < n {
				for k := range center {
					center[k] = center[k] + float32(ps[i].pos[k]*ps[i].mass)
				}
				weight = weight + ps[i].mass
			}
		}
		for j := 0; j < 64 && 64*g+j < n; j++ {
			i := 64*g + j
			p := ps[i]
			if weight > 0 {
				for k := range p.vel {
					p.vel[k] = p.vel[k] + float32(float32(float32(center[k]/weight)-p.pos[k])*coh)
				}
			}
			for k := range p.pos {
				p.pos[k] = p.pos[k] + float32(p.vel[k]*dt)
			}
			if got := decodeParticle(buf, i); got != p {
				t.Fatalf("particle %d = %+v, want %+v", i, got, p)
			}
		}
	}
}

func checkHelpers(t *testing.T, _ kctest.Case, m *ir.Module, r *rng) {
	n := 64 + r.IntN(200)
	groups := ceilDiv(n, 64)
	x := r.floats(n, -1, 1)
	out, hist := Poison(4*n), Poison(4*16*groups)
	mustRun(t, m, "helpers", [3]int{groups, 1, 1}, &Args{
		Params:  params("n", uint32(n)),
		Buffers: map[string][]byte{"x": Encode(x), "out": out, "hist": hist},
	}, Options{SubgroupSize: 8, Races: true})
	hash := func(v uint32) uint32 {
		h := v*747796405 + 2891336453
		h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737
		return (h >> 22) ^ h
	}
	at := func(i int) float32 { return x[min(max(i, 0), n-1)] }
	o, hs := f32s(t, out), u32s(t, hist)
	want := make([]uint32, 16*groups)
	for i := 0; i < n; i++ {
		s := float32(float32(at(i-1)+at(i))+at(i+1)) / 3
		u := float32(hash(uint32(i))>>8) / 16777216
		if w := float32(s * u); o[i] != w {
			t.Fatalf("out[%d] = %g, want %g", i, o[i], w)
		}
		want[16*(i/64)+int(hash(uint32(i))%16)]++
	}
	for i, w := range want {
		if hs[i] != w {
			t.Fatalf("hist[%d] = %d, want %d", i, hs[i], w)
		}
	}
}
