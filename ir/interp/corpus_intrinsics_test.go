package interp

import (
	"math"
	"math/bits"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// References for the corpus kernels of the geometric, trigonometric,
// packing and bit-field intrinsics, written from WGSL's definitions in
// float64 (and bit by bit for the bit fields), independently of the
// interpreter's code.

func init() {
	corpusChecks["geometry_intrinsics"] = checkGeometry
	corpusChecks["packing"] = checkPacking
	corpusChecks["vector_bool"] = checkVectorBool
	corpusChecks["atomic_cas"] = checkAtomicCAS
	corpusChecks["grid_stride"] = checkGridStride
	corpusChecks["dot4_packed"] = checkDot4Packed
	corpusChecks["f16_geometry"] = checkF16Geometry
}

func checkGeometry(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := r.floats(4*n, -2, 2), r.floats(4*n, -2, 2)
	out := Poison(4 * 21 * n)
	mustRun(t, m, "geometry_intrinsics", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out}}, Options{Races: true})
	want, tol := make([]float64, 0, 21*n), make([]float64, 0, 21*n)
	e := eps32
	// add appends a result whose float64 value is w and whose f32
	// evaluation may be off by k roundings of magnitude mag.
	add := func(w, k, mag float64) { want, tol = append(want, w), append(tol, k*e*mag+1e-30) }
	step := func(edge, x float64) float64 {
		if x >= edge {
			return 1
		}
		return 0
	}
	smooth := func(lo, hi, x float64) float64 {
		s := math.Max(0, math.Min(1, (x-lo)/(hi-lo)))
		return s * s * (3 - 2*s)
	}
	for i := 0; i < n; i++ {
		var u, v [4]float64
		for k := range u {
			u[k], v[k] = float64(a[4*i+k]), float64(b[4*i+k])
		}
		v[3] = float64(b[4*i+3] + 3) // rounded in f32, as the kernel adds
		add(math.Sqrt(u[0]*u[0]+u[1]*u[1]+u[2]*u[2]+u[3]*u[3]), 8, 4)
		add(math.Hypot(u[0], u[1])+math.Abs(u[0]), 8, 4)
		dx, dy, dz := u[0]-v[0], u[1]-v[1], u[2]-v[2]
		add(math.Sqrt(dx*dx+dy*dy+dz*dz), 8, 8)
		add(math.Abs(u[0]-v[1]), 2, 4)
		add(u[1]*v[2]-u[2]*v[1], 4, 8)
		add(u[2]*v[0]-u[0]*v[2], 4, 8)
		add(u[0]*v[1]-u[1]*v[0], 4, 8)
		lv := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
		nv := [4]float64{v[0] / lv, v[1] / lv, v[2] / lv, v[3] / lv}
		add(nv[0], 8, 1)
		add(nv[3], 8, 1)
		d := u[0]*nv[0] + u[1]*nv[1] + u[2]*nv[2] + u[3]*nv[3]
		add(u[1]-2*d*nv[1], 16, 8)
		d2 := u[0]*v[0] + u[1]*v[1]
		add(u[0]-2*d2*v[0], 16, 32)
		add(step(0.5, u[0])+2*step(v[2], u[2]), 0, 0)
		add(smooth(-1, 1.5, u[0]), 16, 1)
		add(smooth(0, 2, u[3]), 16, 1)
		// trigonometry: the kernel's products are exact in f32 (0.45 is
		// not: round it as the kernel does)
		add(math.Asin(float64(a[4*i]*0.45)), 8192, 2)
		add(math.Acos(float64(a[4*i+1]*0.45)), 8192, 4)
		add(math.Atan(u[2]*2), 8192, 2)
		add(math.Atan2(u[3], v[0]), 8192, 4)
		add(math.Sinh(u[0]), 8, math.Cosh(u[0])*2)
		add(math.Cosh(u[1]), 8, math.Cosh(u[1])*2)
		add(math.Atan2(v[1], u[1])+math.Sinh(v[3]), 8192, 4+math.Cosh(v[3])*2)
	}
	checkFloats(t, "out", f32s(t, out), want, tol)
}

func checkPacking(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(3000)
	a, k := r.floats(4*n, -2, 2), r.u32s(n)
	out, f := Poison(4*11*n), Poison(16*3*n)
	mustRun(t, m, "packing", [3]int{ceilDiv(n, 1024), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "k": Encode(k), "out": out, "f": f}}, Options{Races: true})
	// field extracts bits [o, o+c) of x one by one (WGSL's clamping).
	clampField := func(off, cnt uint32) (uint32, uint32) {
		o := min(off, 32)
		return o, min(cnt, 32-o)
	}
	extract := func(x, off, cnt uint32, signed bool) uint32 {
		o, c := clampField(off, cnt)
		var v uint32
		for b := uint32(0); b < c; b++ {
			v |= (x >> (o + b) & 1) << b
		}
		if signed && c > 0 && v>>(c-1)&1 == 1 {
			for b := c; b < 32; b++ {
				v |= 1 << b
			}
		}
		return v
	}
	insert := func(x, y, off, cnt uint32) uint32 {
		o, c := clampField(off, cnt)
		for b := uint32(0); b < c; b++ {
			x = x&^(1<<(o+b)) | (y>>b&1)<<(o+b)
		}
		return x
	}
	snorm := func(x float32) uint32 {
		return uint32(uint8(int8(math.RoundToEven(float64(min(max(x, -1), 1) * 127)))))
	}
	unorm := func(x float32) uint32 { return uint32(uint8(math.RoundToEven(float64(min(max(x, 0), 1) * 255)))) }
	half := func(x float32) uint32 { return uint32(F32ToF16Bits(x)) }
	want := make([]uint32, 0, 11*n)
	fw, ft := make([]float64, 0, 12*n), make([]float64, 0, 12*n)
	for i := 0; i < n; i++ {
		var v [4]float32
		for j := range v {
			v[j] = a[4*i+j] * 0.75
		}
		w := k[i]
		want = append(want,
			snorm(v[0])|snorm(v[1])<<8|snorm(v[2])<<16|snorm(v[3])<<24,
			unorm(v[0])|unorm(v[1])<<8|unorm(v[2])<<16|unorm(v[3])<<24,
			half(v[0])|half(v[1])<<16)
		off, cnt := w>>26, w>>20&63
		h := w & 0x3bff3bff
		var acc uint32
		for j := uint32(0); j < 4; j++ {
			acc += (w >> (8 * j) & 0xff) << j
		}
		want = append(want,
			extract(w, off, cnt, false),
			extract(w, off, cnt, true),
			insert(w, bits.Reverse32(w), off, cnt),
			^w>>4&0xff,
			w>>20,
			insert(w, 0xffffffff, 30, 5),
			h,
			acc)
		for j := 0; j < 4; j++ {
			b := float64(int8(w >> (8 * j)))
			fw, ft = append(fw, math.Max(b/127, -1)), append(ft, 2*eps32)
		}
		for j := 0; j < 4; j++ {
			fw, ft = append(fw, float64(w>>(8*j)&0xff)/255), append(ft, 2*eps32)
		}
		fw = append(fw, float64(F16BitsToF32(uint16(h))), float64(F16BitsToF32(uint16(h>>16))),
			float64(F16BitsToF32(F32ToF16Bits(v[2]))), float64(F16BitsToF32(F32ToF16Bits(v[3]))))
		ft = append(ft, 0, 0, 0, 0)
	}
	checkWords(t, "out", u32s(t, out), want)
	checkFloats(t, "f", f32s(t, f), fw, ft)
}

func checkVectorBool(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := r.floats(4*n, -2, 2), r.floats(4*n, -2, 2)
	p, q := r.i32s(4*n), r.i32s(4*n)
	out, f := Poison(4*8*n), Poison(16*2*n)
	mustRun(t, m, "vector_bool", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{
		"a": Encode(a), "b": Encode(b), "p": Encode(p), "q": Encode(q), "out": out, "f": f}}, Options{Races: true})
	b2u := func(x bool) uint32 {
		if x {
			return 1
		}
		return 0
	}
	// count returns how many of the four components satisfy pred.
	count := func(k int, pred func(j int) bool) int {
		c := 0
		for j := 0; j < k; j++ {
			if pred(j) {
				c++
			}
		}
		return c
	}
	want := make([]uint32, 0, 8*n)
	fw := make([]float64, 0, 8*n)
	for i := 0; i < n; i++ {
		u, v := a[4*i:4*i+4], b[4*i:4*i+4]
		pi, qi := p[4*i:4*i+4], q[4*i:4*i+4]
		lt := func(j int) bool { return u[j] < v[j] }
		var bitsLT uint32
		for j := 0; j < 4; j++ {
			bitsLT |= b2u(lt(j)) << j
		}
		allLT, anyLT := count(4, lt) == 4, count(4, lt) > 0
		geNeLT := count(4, func(j int) bool { return lt(j) != (u[j] >= v[j]) }) // always 4 (no NaN)
		p7 := func(j int) int32 { return pi[j] & 7 }
		q7 := func(j int) int32 { return qi[j] & 7 }
		pu := func(j int) uint32 { return uint32(pi[j]) }
		qu := func(j int) uint32 { return uint32(qi[j]) }
		mx, my := !lt(0), !lt(1)
		var o4 uint32 = 3
		switch {
		case mx && my:
			o4 = 1
		case mx || my:
			o4 = 2
		}
		sel5 := qi[3]
		if p7(3) < q7(3) {
			sel5 = pi[3]
		}
		sel5b := -qi[2]
		if q7(2) < 4 {
			sel5b = qi[2]
		}
		want = append(want,
			bitsLT,
			b2u(allLT)+2*b2u(anyLT)+4*b2u(geNeLT == 4)+8*b2u(geNeLT > 0),
			b2u(count(4, func(j int) bool { return p7(j) == q7(j) }) > 0)+2*b2u(count(4, func(j int) bool { return p7(j) != q7(j) }) == 4)+
				4*b2u(count(4, func(j int) bool { return p7(j) <= q7(j) }) > 0)+8*b2u(count(4, func(j int) bool { return p7(j) > q7(j) }) == 4),
			b2u(count(4, func(j int) bool { return pu(j) < qu(j) }) > 0)+2*b2u(count(4, func(j int) bool { return pu(j) >= qu(j) }) == 4)+
				4*b2u(pu(0) > qu(2) || pu(1) > qu(3))+8*b2u(pu(0) <= qu(1) && pu(1) <= qu(2) && pu(2) <= qu(3)),
			o4,
			uint32(sel5)^uint32(sel5b),
			1+2+4*b2u(lt(0)),
			b2u(lt(0))+2*b2u(count(4, func(j int) bool { return 7 > qu(j)&7 }) == 4))
		for j := 0; j < 4; j++ {
			if lt(j) {
				fw = append(fw, float64(u[j]))
			} else {
				fw = append(fw, float64(v[j]))
			}
		}
		for j := 0; j < 4; j++ {
			x := float64(u[j%2])
			if x < 0 {
				x = -x
			}
			if v[j] > u[j] {
				x++
			}
			fw = append(fw, x)
		}
	}
	checkWords(t, "out", u32s(t, out), want)
	checkFloats(t, "f", f32s(t, f), fw, []float64{2 * eps32 * 4})
}

func checkAtomicCAS(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	groups := ceilDiv(n, 64)
	x, own := r.u32s(n), r.u32s(n)
	gmax0 := r.u32s(1)
	ob, res, gmax, wmin := Encode(own), Poison(4*2*n), Encode(gmax0), Poison(4*groups)
	mustRun(t, m, "atomic_cas", [3]int{groups, 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{
		"x": Encode(x), "own": ob, "res": res, "gmax": gmax, "wmin": wmin}}, Options{Races: true})
	wantOwn, wantRes := make([]uint32, n), make([]uint32, 0, 2*n)
	wantMax := gmax0[0]
	wantMin := make([]uint32, groups)
	for g := range wantMin {
		wantMin[g] = math.MaxInt32
	}
	for i := 0; i < n; i++ {
		// even i expects the slot's value and stores x[i]; odd i expects
		// another value and leaves the slot alone
		even := i%2 == 0
		wantOwn[i] = own[i]
		if even {
			wantOwn[i] = x[i]
		}
		var ex uint32
		if even {
			ex = 1
		}
		wantRes = append(wantRes, own[i], ex)
		wantMax = max(wantMax, x[i])
		wantMin[i/64] = uint32(min(int32(wantMin[i/64]), int32(x[i])))
	}
	checkWords(t, "own", u32s(t, ob), wantOwn)
	checkWords(t, "res", u32s(t, res), wantRes)
	checkWords(t, "gmax", u32s(t, gmax), []uint32{wantMax})
	checkWords(t, "wmin", u32s(t, wmin), wantMin)
}

func checkGridStride(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(2000)
	gx := ceilDiv(n, 256)
	nx := 64 * gx
	x, y0 := r.floats(n, -2, 2), r.floats(n, -2, 2)
	a := r.floats(1, -2, 2)[0]
	y, steps := Encode(y0), Poison(4*nx*6)
	mustRun(t, m, "grid_stride", [3]int{gx, 2, 3}, &Args{Params: params("a", a, "n", n), Buffers: map[string][]byte{"x": Encode(x), "y": y, "steps": steps}}, Options{Races: true})
	want := make([]float64, n)
	for i := range want {
		want[i] = float64(a)*float64(x[i]) + float64(y0[i])
	}
	checkFloats(t, "y", f32s(t, y), want, []float64{2 * eps32 * 8})
	ws := make([]uint32, 0, nx*6)
	for layer := 0; layer < 6; layer++ {
		for i := 0; i < nx; i++ {
			count := 0
			if layer == 0 {
				for j := i; j < n; j += nx {
					count++
				}
			}
			ws = append(ws, uint32(count*1000+2*10+3))
		}
	}
	checkWords(t, "steps", u32s(t, steps), ws)
}

func checkDot4Packed(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := r.u32s(n), r.u32s(n)
	s, u := Poison(4*n), Poison(4*n)
	mustRun(t, m, "dot4_packed", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "s": s, "u": u}}, Options{Races: true})
	ws, wu := make([]uint32, n), make([]uint32, n)
	for i := 0; i < n; i++ {
		var si int64
		var ui, sum uint64
		for k := 0; k < 32; k += 8 {
			x, y := a[i]>>k&0xff, b[i]>>k&0xff
			si += int64(int8(x)) * int64(int8(y))
			ui += uint64(x) * uint64(y)
			sum += uint64(x)
		}
		ws[i], wu[i] = uint32(si), uint32(ui+sum)
	}
	checkWords(t, "s", u32s(t, s), ws)
	checkWords(t, "u", u32s(t, u), wu)
}

func checkF16Geometry(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := F32sToF16Bits(r.floats(4*n, -2, 2)), F32sToF16Bits(r.floats(4*n, -2, 2))
	out := Poison(2 * 14 * n)
	mustRun(t, m, "f16_geometry", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out}}, Options{Races: true})
	got, _ := Decode[uint16](out)
	h := func(x float64) float64 { return float64(F16BitsToF32(F32ToF16Bits(float32(x)))) } // rounded to f16
	const u = 0x1p-11                                                                       // unit roundoff of half
	for i := 0; i < n; i++ {
		var x, y [4]float64
		for k := range x {
			x[k], y[k] = float64(F16BitsToF32(a[4*i+k])), float64(F16BitsToF32(b[4*i+k]))
		}
		norm := func(v ...float64) float64 {
			s := 0.0
			for _, c := range v {
				s += c * c
			}
			return math.Sqrt(s)
		}
		l2 := norm(y[0], y[1])
		n0, n1 := h(y[0]/l2), h(y[1]/l2)
		e0, e1 := x[0]*0.125, x[1]*0.125 // exact in f16 for these magnitudes, up to denormals
		d := e0*n0 + e1*n1
		step, sel := 0.0, y[3]
		if x[0] >= y[0] {
			step = 1
		}
		if x[3] < y[3] {
			sel = x[3]
		}
		s := math.Max(0, math.Min(1, (x[1]+1)/2.5))
		want := []float64{
			norm(x[:]...), norm(x[0]-y[0], x[1]-y[1]), x[0] / norm(x[:]...),
			x[2]*y[0] - x[0]*y[2], e0 - 2*d*n0, step, s * s * (3 - 2*s),
			math.Asin(math.Max(-1, math.Min(1, x[0]))), math.Acos(math.Max(-1, math.Min(1, x[1]))),
			math.Atan(x[2]), math.Atan2(x[3], y[0]), math.Sinh(x[0]), math.Cosh(x[1]), sel,
		}
		for k, w := range want {
			tol := u*math.Abs(w) + 0x1p-24
			if k == 4 {
				tol += 2 * u // n0, n1 rounded to f16 first, in both
			}
			g := float64(F16BitsToF32(got[14*i+k]))
			if math.Abs(g-w) > tol {
				t.Fatalf("out[%d] (slot %d) = %g, want %g (tolerance %g): u=%v v=%v", 14*i+k, k, g, w, tol, x, y)
			}
		}
	}
}
