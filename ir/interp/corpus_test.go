package interp

import (
	"math"
	"strconv"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// Each corpus kernel (testdata/kernels) is run on fresh random inputs with
// poisoned outputs and compared with an independent reference written here
// in Go: float64 arithmetic with a stated tolerance for float results,
// exact for integer results.

type corpusCheck func(t *testing.T, c kctest.Case, m *ir.Module, r *rng)

var corpusChecks = map[string]corpusCheck{
	"precise_diff":     checkPreciseDiff,
	"switch_ops":       checkSwitchOps,
	"blur_const":       checkBlurConst,
	"boids_struct":     checkBoidsStruct,
	"helpers":          checkHelpers,
	"saxpy":            checkSaxpy,
	"vecadd_bounded":   checkVecadd,
	"reduce_workgroup": checkReduce("reduce_workgroup", 32),
	"reduce_subgroup":  checkReduceSubgroup,
	"matmul_tiled":     checkMatmul,
	"transpose_padded": checkTranspose,
	"softmax_row":      checkSoftmax,
	"layernorm":        checkLayernorm,
	"rmsnorm":          checkRmsnorm,
	"prefix_scan":      checkScan,
	"histogram_atomic": checkHistogram,
	"int_bits":         checkIntBits,
	"conversions":      checkConversions,
	"math_intrinsics":  checkMathIntrinsics,
	"vec4_math":        checkVec4,
	"control_flow":     checkControlFlow,
	"specialized":      checkSpecialized,
	"two_kernels":      checkTwoKernels,
	"f16_elementwise":  checkF16Elementwise,
	"keyword_names":    checkKeywordNames,
}

func TestCorpus(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			check := corpusChecks[c.Name]
			if check == nil {
				t.Fatalf("no reference for corpus kernel %s: add one to corpusChecks in ir/interp/corpus_test.go", c.Name)
			}
			check(t, c, c.Module(t), newRNG(t))
		})
	}
}

// checkFloats compares got with want elementwise within tol[i] (or tol[0]
// when tol has one entry).
func checkFloats(t *testing.T, what string, got []float32, want, tol []float64) {
	t.Helper()
	bad := 0
	for i := range want {
		tl := tol[0]
		if len(tol) > 1 {
			tl = tol[i]
		}
		if !closeTo(t, what, i, got[i], want[i], tl) {
			if bad++; bad > 10 {
				t.Fatalf("%s: too many errors", what)
			}
		}
	}
}

func checkWords(t *testing.T, what string, got, want []uint32) {
	t.Helper()
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %#x (%d), want %#x (%d)", what, i, got[i], int32(got[i]), want[i], int32(want[i]))
			if bad++; bad > 10 {
				t.Fatalf("%s: too many errors", what)
			}
		}
	}
}

func poisoned(t *testing.T, what string, b []byte, from int) {
	t.Helper()
	for i := from; i < len(b); i++ {
		if b[i] != 0xcd {
			t.Fatalf("%s: byte %d beyond the outputs was written (%#x)", what, i, b[i])
		}
	}
}

func checkSaxpy(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(5000)
	a := float32(r.Float64()*8 - 4)
	x, y := r.floats(n+3, -10, 10), r.floats(n+3, -10, 10)
	yb := Encode(y)
	mustRun(t, m, "saxpy", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("a", a, "n", n), Buffers: map[string][]byte{"x": Encode(x), "y": yb}}, Options{Races: true})
	want, tol := make([]float64, n+3), make([]float64, n+3)
	for i := range want {
		want[i] = float64(y[i])
		if i < n {
			ax := float64(a) * float64(x[i])
			want[i] += ax
			tol[i] = 2 * eps32 * (math.Abs(ax) + math.Abs(float64(y[i]))) // two roundings
		}
	}
	checkFloats(t, "y", f32s(t, yb), want, tol)
}

func checkVecadd(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	la, lb, lc := 1+r.IntN(3000), 1+r.IntN(3000), 1+r.IntN(3000)
	a, b := r.floats(la, -1e3, 1e3), r.floats(lb, -1e3, 1e3)
	cb := Poison(4 * lc)
	mustRun(t, m, "vecadd_bounded", [3]int{ceilDiv(lc, 256) + 1, 1, 1}, &Args{Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "c": cb}}, Options{Races: true})
	n := min(la, lb, lc)
	got := f32s(t, cb)
	for i := 0; i < n; i++ {
		// a float32 sum is the float64 sum rounded once
		if want := float32(float64(a[i]) + float64(b[i])); got[i] != want {
			t.Fatalf("c[%d] = %g, want %g", i, got[i], want)
		}
	}
	poisoned(t, "c", cb, 4*n)
}

// blockSums is the float64 sum and sum of magnitudes of each 256-element
// block of x.
func blockSums(x []float32, block int) (sum, mag []float64) {
	for lo := 0; lo < len(x); lo += block {
		var s, a float64
		for _, v := range x[lo:min(lo+block, len(x))] {
			s += float64(v)
			a += math.Abs(float64(v))
		}
		sum, mag = append(sum, s), append(mag, a)
	}
	return sum, mag
}

func checkReduce(kernel string, sg int) corpusCheck {
	return func(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
		n := 1 + r.IntN(5000)
		groups := ceilDiv(n, 256)
		x := r.floats(n, -100, 100)
		out := Poison(4 * groups)
		mustRun(t, m, kernel, [3]int{groups, 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "out": out}}, Options{SubgroupSize: sg, Races: true})
		want, mag := blockSums(x, 256)
		tol := make([]float64, len(mag))
		for i, a := range mag {
			tol[i] = 256 * eps32 * a // at most 255 roundings of partial sums below a
		}
		checkFloats(t, "out", f32s(t, out), want, tol)
	}
}

func checkReduceSubgroup(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	for _, sg := range []int{8, 32} {
		checkReduce("reduce_subgroup", sg)(t, c, m, r)
	}
}

func checkMatmul(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	M, N, K := 1+r.IntN(100), 1+r.IntN(100), 1+r.IntN(100)
	if r.IntN(2) == 0 {
		M, N, K = 64, 64, 64
	}
	A, B := r.floats(M*K, -1, 1), r.floats(K*N, -1, 1)
	C := Poison(4 * M * N)
	mustRun(t, m, "matmul_tiled", [3]int{ceilDiv(N, 64), ceilDiv(M, 64), 1}, &Args{
		Params:  params("M", M, "N", N, "K", K),
		Buffers: map[string][]byte{"A": Encode(A), "B": Encode(B), "C": C},
	}, Options{Races: true})
	want, tol := make([]float64, M*N), make([]float64, M*N)
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var s, a float64
			for k := 0; k < K; k++ {
				p := float64(A[i*K+k]) * float64(B[k*N+j])
				s += p
				a += math.Abs(p)
			}
			want[i*N+j], tol[i*N+j] = s, float64(K+1)*eps32*a
		}
	}
	checkFloats(t, "C", f32s(t, C), want, tol)
}

func checkTranspose(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	rows, cols := 1+r.IntN(70), 1+r.IntN(70)
	src := r.u32s(rows * cols)
	dst := Poison(4 * rows * cols)
	mustRun(t, m, "transpose_padded", [3]int{ceilDiv(cols, 16), ceilDiv(rows, 16), 1}, &Args{
		Params:  params("rows", rows, "cols", cols),
		Buffers: map[string][]byte{"src": Encode(src), "dst": dst},
	}, Options{Races: true})
	want := make([]uint32, rows*cols)
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			want[x*rows+y] = src[y*cols+x]
		}
	}
	checkWords(t, "dst", u32s(t, dst), want) // f32 bits move unchanged
}

func checkSoftmax(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	rows, cols := 1+r.IntN(8), 1+r.IntN(400)
	x := r.floats(rows*cols, -8, 8)
	y := Poison(4 * rows * cols)
	mustRun(t, m, "softmax_row", [3]int{rows, 1, 1}, &Args{Params: params("rows", rows, "cols", cols), Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
	want, tol := make([]float64, rows*cols), make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		row := x[i*cols : (i+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		var s float64
		for _, v := range row {
			s += math.Exp(float64(v) - mx)
		}
		for j, v := range row {
			w := math.Exp(float64(v)-mx) / s
			// exp of a rounded difference (|x - max| <= 16: 16 ulp of 1),
			// a sum of cols positive terms, one division
			want[i*cols+j], tol[i*cols+j] = w, w*eps32*float64(cols+40)
		}
	}
	checkFloats(t, "y", f32s(t, y), want, tol)
}

// normRows returns the float64 mean and variance of each row.
func normRows(x []float32, rows, cols int) (mean, variance []float64) {
	for i := 0; i < rows; i++ {
		var s, d float64
		for _, v := range x[i*cols : (i+1)*cols] {
			s += float64(v)
		}
		mu := s / float64(cols)
		for _, v := range x[i*cols : (i+1)*cols] {
			d += (float64(v) - mu) * (float64(v) - mu)
		}
		mean, variance = append(mean, mu), append(variance, d/float64(cols))
	}
	return mean, variance
}

func checkLayernorm(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	rows, cols := 1+r.IntN(6), 1+r.IntN(500)
	const eps = 1e-5
	x := r.floats(rows*cols, -3, 5)
	gamma, beta := r.floats(cols, 0.5, 2), r.floats(cols, -1, 1)
	y := Poison(4 * rows * cols)
	mustRun(t, m, "layernorm", [3]int{rows, 1, 1}, &Args{
		Params:  params("rows", rows, "cols", cols, "eps", float32(eps)),
		Buffers: map[string][]byte{"x": Encode(x), "gamma": Encode(gamma), "beta": Encode(beta), "y": y},
	}, Options{Races: true})
	mean, variance := normRows(x, rows, cols)
	want, tol := make([]float64, rows*cols), make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		inv := 1 / math.Sqrt(variance[i]+float64(float32(eps)))
		for j := 0; j < cols; j++ {
			k := i*cols + j
			nrm := (float64(x[k]) - mean[i]) * inv * float64(gamma[j])
			want[k] = nrm + float64(beta[j])
			// the mean's error (sum of cols terms of size <= 5) scaled by inv,
			// the variance's error, and a few roundings of the result
			tol[k] = eps32 * (float64(cols+8)*(5*inv*float64(gamma[j])+math.Abs(nrm)) + 2*math.Abs(want[k]))
		}
	}
	checkFloats(t, "y", f32s(t, y), want, tol)
}

func checkRmsnorm(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	rows, cols := 1+r.IntN(6), 1+r.IntN(500)
	const eps = 1e-6
	x, w := r.floats(rows*cols, -3, 3), r.floats(cols, 0.5, 2)
	y := Poison(4 * rows * cols)
	mustRun(t, m, "rmsnorm", [3]int{rows, 1, 1}, &Args{
		Params:  params("rows", rows, "cols", cols, "eps", float32(eps)),
		Buffers: map[string][]byte{"x": Encode(x), "w": Encode(w), "y": y},
	}, Options{Races: true})
	want, tol := make([]float64, rows*cols), make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		var ss float64
		for _, v := range x[i*cols : (i+1)*cols] {
			ss += float64(v) * float64(v)
		}
		scale := 1 / math.Sqrt(ss/float64(cols)+float64(float32(eps)))
		for j := 0; j < cols; j++ {
			k := i*cols + j
			want[k] = float64(x[k]) * scale * float64(w[j])
			tol[k] = eps32 * float64(cols/2+8) * math.Abs(want[k]) // a sum of positive terms, then 4 roundings
		}
	}
	checkFloats(t, "y", f32s(t, y), want, tol)
}

func checkScan(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(3000)
	x := r.u32s(n)
	y := Poison(4 * n)
	mustRun(t, m, "prefix_scan", [3]int{ceilDiv(n, 256), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
	want := make([]uint32, n)
	var s uint32
	for i, v := range x {
		if i%256 == 0 {
			s = 0
		}
		s += v
		want[i] = s
	}
	checkWords(t, "y", u32s(t, y), want)
}

func checkHistogram(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(5000)
	x := r.u32s(n + 7) // elements past n are ignored
	for i := range x {
		if r.IntN(2) == 0 {
			x[i] %= 1000
		}
	}
	hist, stats := make([]byte, 64*4), make([]byte, 8)
	mustRun(t, m, "histogram_atomic", [3]int{ceilDiv(n, 256), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "hist": hist, "stats": stats}}, Options{Races: true})
	want := make([]uint32, 64)
	var mx, or uint32
	for _, v := range x[:n] {
		want[v%64]++
		mx, or = max(mx, v), or|v
	}
	checkWords(t, "hist", u32s(t, hist), want)
	checkWords(t, "stats", u32s(t, stats), []uint32{mx, or})
}

// wgslDiv and wgslRem are the WGSL integer division rules, written again
// here as the reference.
func wgslDiv(x, y int32) int32 {
	if y == 0 || (x == math.MinInt32 && y == -1) {
		return x
	}
	return x / y
}

func wgslRem(x, y int32) int32 {
	if y == 0 || (x == math.MinInt32 && y == -1) {
		return 0
	}
	return x % y
}

func udiv(x, y uint32) uint32 {
	if y == 0 {
		return x
	}
	return x / y
}

func urem(x, y uint32) uint32 {
	if y == 0 {
		return 0
	}
	return x % y
}

func msb(x uint32) uint32 { // index of the highest set bit, or all ones
	for i := 31; i >= 0; i-- {
		if x&(1<<i) != 0 {
			return uint32(i)
		}
	}
	return math.MaxUint32
}

func checkIntBits(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := r.i32s(n), r.i32s(n)
	out := Poison(4 * 24 * n)
	mustRun(t, m, "int_bits", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out}}, Options{Races: true})
	want := make([]uint32, 0, 24*n)
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		ux, uy := uint32(x), uint32(y)
		z := y & 1
		mn := int32(ux & 0x80000000)
		m1 := int32(-1)
		sh := uy % 32
		ones := func(v uint32) uint32 {
			c := uint32(0)
			for ; v != 0; v &= v - 1 {
				c++
			}
			return c
		}
		rev := uint32(0)
		for k := 0; k < 32; k++ {
			rev |= (ux >> k & 1) << (31 - k)
		}
		flbI := msb(ux)
		if x < 0 {
			flbI = msb(^ux)
		}
		ftb := uint32(math.MaxUint32)
		for k := 0; k < 32; k++ {
			if uy&(1<<k) != 0 {
				ftb = uint32(k)
				break
			}
		}
		absY := y
		if y < 0 {
			absY = -y // wraps for MIN
		}
		want = append(want,
			uint32(x*y+x-y), ux*uy-uy, uint32(wgslDiv(x, y)), uint32(wgslRem(x, y)), udiv(ux, uy), urem(ux, uy),
			uint32(wgslDiv(x, z)), uint32(wgslRem(x, z)), udiv(ux, uy&1)+urem(ux, uy&1),
			uint32(wgslDiv(mn, m1)), uint32(wgslRem(mn, m1)),
			uint32(x<<sh), uint32(x>>sh), ux>>sh, ux<<31|ux>>1, ux&uy|ux^^uy,
			ones(ux)+ones(uy), rev, msb(ux), flbI, ftb,
			uint32(-x)^uint32(absY), uint32(^x+max(x, y)-min(x, y)), uint32(0x7fffffff+x))
	}
	checkWords(t, "out", u32s(t, out), want)
}

// satI32 and satU32 truncate toward zero and saturate; NaN is 0.
func satI32(f float32) uint32 {
	switch {
	case f != f:
		return 0
	case float64(f) >= 2147483647:
		return math.MaxInt32
	case float64(f) <= -2147483648:
		return 1 << 31
	}
	return uint32(int32(f))
}

func satU32(f float32) uint32 {
	switch {
	case f != f || f <= 0:
		return 0
	case float64(f) >= 4294967295:
		return math.MaxUint32
	}
	return uint32(f)
}

func checkConversions(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	x := r.floats(n, -3, 3)
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0.7155, -0.7157, 1.5, 2.5, 1e-3}
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = specials[r.IntN(len(specials))]
		}
	}
	k := r.i32s(n)
	out := Poison(4 * 8 * n)
	mustRun(t, m, "conversions", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "k": Encode(k), "out": out}}, Options{Races: true})
	want := make([]uint32, 0, 8*n)
	for i := 0; i < n; i++ {
		v := x[i]
		big := v * 3e9
		abs := float32(math.Abs(float64(v)))
		last := float32(float64(satU32(abs*100))) + float32(math.Trunc(float64(v*7.5)))
		last += 0.25
		want = append(want, satI32(v*1000), satI32(big), satU32(big), satU32(-big),
			math.Float32bits(float32(k[i])), math.Float32bits(float32(uint32(k[i]))),
			uint32(k[i])+uint32(k[i]>>4), math.Float32bits(last))
	}
	checkWords(t, "out", u32s(t, out), want)
}

func checkMathIntrinsics(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	x := r.floats(n, -6, 6)
	out := Poison(4 * 16 * n)
	mustRun(t, m, "math_intrinsics", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "out": out}}, Options{Races: true})
	want, tol := make([]float64, 0, 16*n), make([]float64, 0, 16*n)
	add := func(w, tl float64) { want, tol = append(want, w), append(tol, tl) }
	sign := func(v float64) float64 {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	for i := 0; i < n; i++ {
		v32 := min(max(x[i], -4), 4)
		a32 := float32(math.Abs(float64(v32))) + 0.5
		v, a := float64(v32), float64(a32)
		e := eps32
		add(math.Abs(v), 0)
		add(math.Exp(v)+math.Exp2(v), 3*e*(math.Exp(v)+math.Exp2(v)))
		add(math.Log(a)+math.Log2(a), 3*e*(math.Abs(math.Log(a))+math.Abs(math.Log2(a)))+1e-30)
		add(math.Sqrt(a)/math.Sqrt(a+1), 4*e*math.Sqrt(a/(a+1)))
		add(math.Sin(v)+math.Cos(v), 2*e*3)
		q := float64(v32 * 0.25)
		add(math.Tan(q), 2*e*math.Abs(math.Tan(q)))
		add(math.Tanh(v), e*math.Abs(math.Tanh(v)))
		// products are rounded to f32 before floor/ceil/round/trunc/fract,
		// so the reference takes them in f32 too
		add(math.Floor(float64(v32*2.5))+math.Ceil(float64(v32*1.5)), 0)
		add(math.RoundToEven(float64(v32*3))+math.Trunc(float64(v32*2)), 0)
		p := v32 * 3.7
		add(float64(p-float32(math.Floor(float64(p)))), 0)
		add(math.Pow(a, 1.5), e*math.Pow(a, 1.5))
		add(v*a+0.25, e*math.Abs(v*a+0.25))
		add(v*0.75+a*0.25, 2*e*(math.Abs(v*0.75)+a*0.25))
		add(min(max(v, -0.5), 0.5)+sign(v), e*2)
		add(min(v, a*0.5)+max(v, -a), e*(a+math.Abs(v)))
		mx, my := v*0.5+a*0.5, a*0.25+v*0.75
		iv := float64(int32(v32))
		add(mx-my+sign(iv), 4*e*(math.Abs(v)+a+1))
	}
	checkFloats(t, "out", f32s(t, out), want, tol)
}

func checkVec4(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	a, b := r.floats(4*n, -2, 2), r.floats(4*n, -2, 2)
	out, dots := Poison(16*n), Poison(4*n)
	mustRun(t, m, "vec4_math", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out, "dots": dots}}, Options{Races: true})
	wo, to := make([]float64, 0, 4*n), make([]float64, 0, 4*n)
	wd, td := make([]float64, 0, n), make([]float64, 0, n)
	for i := 0; i < n; i++ {
		var p, q [4]float64
		for k := 0; k < 4; k++ {
			p[k], q[k] = float64(a[4*i+k]), float64(b[4*i+k])
		}
		var s [4]float64
		for k := 0; k < 4; k++ {
			s[k] = p[k]*q[k] + p[3-k] - 2*q[k]
		}
		dot := p[0]*q[0] + p[1]*q[1] + p[2]*q[2] + p[3]*q[3]
		rr := [4]float64{s[0] + 3*p[0], s[1] + 1 + 3*q[2], dot*0.5 + 3*q[2], q[3] + 3*p[0]}
		for k := 0; k < 4; k++ {
			wo = append(wo, math.Max(rr[k], -1)+float64(k+1))
			to = append(to, 16*eps32*(8+math.Abs(rr[k])+float64(k+1)))
		}
		ix, iy := int32(a[4*i]*10), int32(b[4*i+1]*10) // f32 products, truncated
		d := float64(3*ix - 2*iy)
		sel := -1.0
		if p[0] > q[0] {
			sel = 1
		}
		wd = append(wd, dot+d+sel)
		td = append(td, 8*eps32*(16+math.Abs(d)+1))
	}
	checkFloats(t, "out", f32s(t, out), wo, to)
	checkFloats(t, "dots", f32s(t, dots), wd, td)
}

func checkControlFlow(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(1000)
	x := r.i32s(n)
	for i := range x {
		if r.IntN(2) == 0 {
			x[i] = int32(r.IntN(600)) - 200
		}
	}
	y := Poison(4 * (n + 5))
	mustRun(t, m, "control_flow", [3]int{ceilDiv(n+5, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
	want := make([]uint32, n)
	for i, v := range x {
		var acc int32
		switch {
		case v < -100:
			acc = -1
		case v < 0:
			acc = 1
		case v == 0:
			acc = 2
		default:
			acc = 3
		}
		for a := int32(0); a < 8; a++ {
			if a%3 == 1 {
				continue
			}
			for b := int32(0); b < 8 && b <= a; b++ {
				acc += a * b
			}
		}
		cc, steps := uint32(v&1023)+1, int32(0)
		for cc != 1 && steps < 200 {
			if cc%2 == 0 {
				cc /= 2
			} else {
				cc = 3*cc + 1
			}
			steps++
		}
		acc += steps * 1000
		k := int32(1)
		for k*k <= v&255 {
			k++
		}
		acc += k * 100000
		if v&3 == 3 {
			want[i] = uint32(-acc)
			continue
		}
		for j := int32(9); j >= 0; j-- {
			if j != 4 {
				acc -= j
			}
		}
		want[i] = uint32(acc)
	}
	checkWords(t, "y", u32s(t, y), want)
	poisoned(t, "y", y, 4*n)
}

func checkSpecialized(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	block := 64
	if s, ok := c.Defines["BLOCK"]; ok {
		var err error
		if block, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	const unroll = 4
	n := 1 + r.IntN(3000)
	chunk := block * unroll
	x := r.floats(n, -100, 100)
	y := Poison(4 * (n + 3))
	mustRun(t, m, "specialized", [3]int{ceilDiv(n, chunk), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
	want := make([]float64, n)
	for i := range want {
		lane := i % block
		j := i - lane + block - 1 - lane
		if j < n {
			want[i] = float64(x[j]*0.5) + unroll
		} else {
			want[i] = unroll
		}
	}
	got := f32s(t, y)
	for i, w := range want {
		if float64(got[i]) != float64(float32(w)) {
			t.Fatalf("y[%d] = %g, want %g", i, got[i], float32(w))
		}
	}
	poisoned(t, "y", y, 4*n)
}

func checkTwoKernels(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(3000)
	x := r.floats(n, -1e3, 1e3)
	s := float32(r.Float64()*4 - 2)
	xb := Encode(x)
	mustRun(t, m, "scale", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("s", s), Buffers: map[string][]byte{"x": xb}}, Options{Races: true})
	for i, v := range f32s(t, xb) {
		if want := float32(float64(x[i]) * float64(s)); v != want {
			t.Fatalf("x[%d] = %g, want %g", i, v, want)
		}
	}
	z := r.i32s(n)
	cv := int32(r.Uint32())
	zb := Encode(z)
	mustRun(t, m, "add_offset", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("c", cv), Buffers: map[string][]byte{"z": zb}}, Options{Races: true})
	for i, v := range i32s(t, zb) {
		if want := int32(uint32(z[i]) + uint32(cv)); v != want {
			t.Fatalf("z[%d] = %d, want %d", i, v, want)
		}
	}
}

func checkF16Elementwise(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(2000)
	a := F32sToF16Bits(r.floats(n, -30, 30))
	b := F32sToF16Bits(r.floats(n, -30, 30))
	scale := float32(r.Float64()*20 - 10)
	out := Poison(2 * n)
	mustRun(t, m, "f16_elementwise", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n, "scale", scale), Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out}}, Options{Races: true})
	got, _ := Decode[uint16](out)
	const ulp = 0x1p-11 // unit roundoff of half
	for i := 0; i < n; i++ {
		x, y := float64(F16BitsToF32(a[i])), float64(F16BitsToF32(b[i]))
		s := float64(F16BitsToF32(F32ToF16Bits(scale)))
		f, mx, q := x*y+s, math.Max(x, y)*0.5, math.Abs(x)/(1+math.Abs(y))
		want := f + mx - q
		tol := 3*ulp*(math.Abs(f)+math.Abs(mx)+math.Abs(q)) + 0x1p-24
		g := float64(F16BitsToF32(got[i]))
		if math.Abs(g-want) > tol {
			t.Fatalf("out[%d] = %g, want %g (tolerance %g): a=%g b=%g s=%g", i, g, want, tol, x, y, s)
		}
	}
}

// checkKeywordNames runs each kernel of keyword_names (named with words the
// targets reserve) on n elements of a buffer longer than n and checks y
// exactly, with the tail left poisoned.
func checkKeywordNames(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	refs := map[string]func(i int, x, n uint32) uint32{
		"sampler": func(i int, x, n uint32) uint32 { return 3*x + 1 },
		"texture": func(i int, x, n uint32) uint32 { return x ^ 0x5a5a5a5a },
		"float":   func(i int, x, n uint32) uint32 { return x >> 3 },
		"Buffer":  func(i int, x, n uint32) uint32 { return x + uint32(i) },
		"main":    func(i int, x, n uint32) uint32 { return x*x - n },
	}
	if len(m.Kernels) != len(refs) {
		t.Fatalf("%d kernels, %d references", len(m.Kernels), len(refs))
	}
	for _, k := range m.Kernels {
		ref := refs[k.Name]
		if ref == nil {
			t.Fatalf("no reference for kernel %s", k.Name)
		}
		n := 1 + r.IntN(2000)
		x := r.u32s(n + 100)
		y := Poison(4 * (n + 100))
		mustRun(t, m, k.Name, [3]int{ceilDiv(n, 64), 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
		for i, v := range u32s(t, y)[:n] {
			if want := ref(i, x[i], uint32(n)); v != want {
				t.Fatalf("%s: y[%d] = %#x, want %#x (x %#x)", k.Name, i, v, want, x[i])
			}
		}
		poisoned(t, k.Name+" y", y, 4*n)
	}
}
