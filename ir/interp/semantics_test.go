package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
)

const intSrc = `
kernel ints(a read []i32, b read []i32, out read_write []i32) workgroup(1) {
	let i = global_id.x
	let x = a[i]
	let y = b[i]
	let ux = bitcast<u32>(x)
	let uy = bitcast<u32>(y)
	let o = i * 8
	out[o] = x / y
	out[o + 1] = x % y
	out[o + 2] = x << uy
	out[o + 3] = x >> uy
	out[o + 4] = bitcast<i32>(ux >> uy)
	out[o + 5] = bitcast<i32>(ux / uy)
	out[o + 6] = bitcast<i32>(ux % uy)
	out[o + 7] = x * y + x - y
}
`

func TestIntegerSemantics(t *testing.T) {
	const min = math.MinInt32
	cases := []struct {
		x, y int32
		want [8]int32
	}{
		{7, 0, [8]int32{7, 0, 7, 7, 7, 7, 0, 7}},
		{min, -1, [8]int32{min, 0, 0, -1, 1, 0, min, 1}},
		{-7, 2, [8]int32{-3, -1, -28, -2, 0x3ffffffe, 0x7ffffffc, 1, -23}},
		{7, -2, [8]int32{-3, 1, 0 /* set below */, 0, 0, 0, 7, -5}},
		{1, 33, [8]int32{0, 1, 2, 0, 0, 0, 1, 1}},
		{-8, 33, [8]int32{0, -8, -16, -4, 0x7ffffffc, 0, 0 /* set below */, -305}},
		{5, 32, [8]int32{0, 5, 5, 5, 5, 0, 5, 133}},
		{math.MaxInt32, 2, [8]int32{0x3fffffff, 1, -4, 0x1fffffff, 0x1fffffff, 0x3fffffff, 1, math.MaxInt32 - 4}},
	}
	// entries that are easier computed than written (wrapping)
	seven := uint32(7)
	cases[3].want[2] = int32(seven << 30)
	cases[5].want[5] = int32(uint32(0xfffffff8) / 33)
	cases[5].want[6] = int32(uint32(0xfffffff8) % 33)
	m := compile(t, intSrc)
	var a, b []int32
	for _, c := range cases {
		a, b = append(a, c.x), append(b, c.y)
	}
	out := Poison(len(cases) * 8 * 4)
	mustRun(t, m, "ints", [3]int{len(cases), 1, 1}, &Args{Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out}}, Options{})
	got := i32s(t, out)
	names := []string{"x / y", "x % y", "x << y", "x >> y", "u32 >>", "u32 /", "u32 %", "x*y + x - y"}
	for i, c := range cases {
		for k := range c.want {
			if g := got[i*8+k]; g != c.want[k] {
				t.Errorf("x=%d y=%d: %s = %d (%#x), want %d (%#x)", c.x, c.y, names[k], g, uint32(g), c.want[k], uint32(c.want[k]))
			}
		}
	}
}

const convSrc = `
kernel conv(x read []f32, k read []i32, out read_write []u32) workgroup(1) {
	let i = global_id.x
	let v = x[i]
	let o = i * 4
	out[o] = bitcast<u32>(i32(v))
	out[o + 1] = u32(v)
	out[o + 2] = bitcast<u32>(f32(k[i]))
	out[o + 3] = bitcast<u32>(f32(bitcast<u32>(k[i])))
}
`

func TestConversions(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	cases := []struct {
		x      float32
		i      int32
		u      uint32
		k      int32
		fk, fu float32
	}{
		{nan, 0, 0, 16777217, 16777216, 16777216},
		{inf, math.MaxInt32, math.MaxUint32, -1, -1, 4294967296},
		{-inf, math.MinInt32, 0, math.MinInt32, -2147483648, 2147483648},
		{3e9, math.MaxInt32, 3000000000, math.MaxInt32, 2147483648, 2147483648},
		{-3e9, math.MinInt32, 0, 16777219, 16777220, 16777220}, // ties to even
		{-0.5, 0, 0, -16777219, -16777220, 4278190080},
		{2.9, 2, 2, 0, 0, 0},
		{-2.9, -2, 0, 1, 1, 1},
		{2147483520, 2147483520, 2147483520, 3, 3, 3},
		{4294967040, math.MaxInt32, 4294967040, 5, 5, 5},
		{4294967296, math.MaxInt32, math.MaxUint32, 7, 7, 7},
	}
	m := compile(t, convSrc)
	var x []float32
	var k []int32
	for _, c := range cases {
		x, k = append(x, c.x), append(k, c.k)
	}
	out := Poison(len(cases) * 16)
	mustRun(t, m, "conv", [3]int{len(cases), 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "k": Encode(k), "out": out}}, Options{})
	got := u32s(t, out)
	for i, c := range cases {
		if g := int32(got[4*i]); g != c.i {
			t.Errorf("i32(%g) = %d, want %d", c.x, g, c.i)
		}
		if g := got[4*i+1]; g != c.u {
			t.Errorf("u32(%g) = %d, want %d", c.x, g, c.u)
		}
		if g := math.Float32frombits(got[4*i+2]); g != c.fk {
			t.Errorf("f32(%d) = %g, want %g", c.k, g, c.fk)
		}
		if g := math.Float32frombits(got[4*i+3]); g != c.fu {
			t.Errorf("f32(u32 %d) = %g, want %g", uint32(c.k), g, c.fu)
		}
	}
}

const f16Src = `
enable f16

kernel half(s f32, a read []f16, b read []f16, out read_write []f16) workgroup(1) {
	let i = global_id.x
	let o = i * 5
	out[o] = a[i] + b[i]
	out[o + 1] = a[i] * b[i]
	out[o + 2] = a[i] / b[i]
	out[o + 3] = f16(s * f32(b[i]))
	out[o + 4] = fma(a[i], b[i], f16(s))
}
`

// TestF16Arithmetic checks rounding to half after every operation and on
// conversion: ties to even, subnormals, overflow to infinity.
func TestF16Arithmetic(t *testing.T) {
	h := F32ToF16Bits
	type row struct {
		a, b float32
		want [5]float32 // a+b, a*b, a/b, f16(s*b), fma(a, b, f16(s))
	}
	const s = 1.00048828125 // 1 + 2^-11: a tie between 1 and 1+2^-10, f16(s) == 1
	inf := float32(math.Inf(1))
	sub := float32(0x1p-24)
	rows := []row{
		{2048, 1, [5]float32{2048, 2048, 2048, 1, 2049 /* 2048+1 = tie -> 2048 */}},
		{2050, 1, [5]float32{2052, 2050, 2050, 1, 2052}},
		{256, 256, [5]float32{512, inf, 1, 256, inf}},
		{65504, 16, [5]float32{inf, inf, 4094, 16, inf}},
		{0x1p-14, 0.5, [5]float32{0.5, 0x1p-15, 0x1p-13, 0.5, 1}},
		{sub, 0.5, [5]float32{0.5, 0, 2 * sub, 0.5, 1}},
		{3 * sub, 0.5, [5]float32{0.5, 2 * sub, 6 * sub, 0.5, 1}},
		{1, 3, [5]float32{4, 3, 0.333251953125, 3.001953125, 4}},
	}
	rows[0].want[4] = 2048 // fma(2048, 1, 1) = 2049 exactly, a tie: even is 2048
	m := compile(t, f16Src)
	var a, b []uint16
	for _, r := range rows {
		a, b = append(a, h(r.a)), append(b, h(r.b))
	}
	out := Poison(len(rows) * 10)
	mustRun(t, m, "half", [3]int{len(rows), 1, 1}, &Args{
		Params:  params("s", float32(s)),
		Buffers: map[string][]byte{"a": Encode(a), "b": Encode(b), "out": out},
	}, Options{})
	got, _ := Decode[uint16](out)
	names := []string{"a+b", "a*b", "a/b", "f16(s*b)", "fma(a, b, f16(s))"}
	for i, r := range rows {
		for k, w := range r.want {
			if g := F16BitsToF32(got[i*5+k]); g != w {
				t.Errorf("a=%g b=%g: %s = %g, want %g", r.a, r.b, names[k], g, w)
			}
		}
	}
}

const mathSrc = `
kernel fm(x read []f32, y read []f32, z read []f32, out read_write []f32) workgroup(1) {
	let i = global_id.x
	let o = i * 8
	out[o] = fma(x[i], y[i], z[i])
	out[o + 1] = min(x[i], y[i])
	out[o + 2] = max(x[i], y[i])
	out[o + 3] = round(x[i])
	out[o + 4] = fract(x[i])
	out[o + 5] = pow(x[i], y[i])
	out[o + 6] = sign(x[i])
	out[o + 7] = x[i] % y[i]
}
`

func TestFloatIntrinsics(t *testing.T) {
	nan := float32(math.NaN())
	e := float32(0x1p-12)
	cases := []struct {
		x, y, z float32
		want    [8]float32
	}{
		// (1+e)(1-e) - 1 = -e^2 exactly with one rounding; unfused gives 0
		{1 + e, 1 - e, -1, [8]float32{-e * e, 1 - e, 1 + e, 1, e, float32(math.Pow(float64(1+e), float64(1-e))), 1, 2 * e}},
		{nan, 2, 0, [8]float32{nan, 2, 2, nan, nan, nan, 0, nan}},
		{2.5, nan, 0, [8]float32{nan, 2.5, 2.5, 2, 0.5, nan, 1, nan}},
		{-2, 2, 1, [8]float32{-3, -2, 2, -2, 0, nan, -1, 0}},
		{-1e-8, 3, 0, [8]float32{0 /* set below */, -1e-8, 3, 0, 1, nan, -1, -1e-8}},
		{3.5, -2, 0.5, [8]float32{-6.5, -2, 3.5, 4, 0.5, 1 / 3.5 / 3.5, 1, 1.5}},
		{-5.5, 0, 0, [8]float32{0, -5.5, 0, -6, 0.5, nan, -1, nan}},
	}
	cases[4].want[0] = float32(float64(float32(-1e-8)) * 3) // exact product, one rounding
	cases[6].want[5] = nan                                  // pow of a negative base
	cases[3].want[5] = nan
	cases[4].want[5] = nan
	m := compile(t, mathSrc)
	var x, y, z []float32
	for _, c := range cases {
		x, y, z = append(x, c.x), append(y, c.y), append(z, c.z)
	}
	out := Poison(len(cases) * 32)
	mustRun(t, m, "fm", [3]int{len(cases), 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "y": Encode(y), "z": Encode(z), "out": out}}, Options{})
	got := f32s(t, out)
	names := []string{"fma", "min", "max", "round", "fract", "pow", "sign", "%"}
	for i, c := range cases {
		for k, w := range c.want {
			g := got[i*8+k]
			if (g != g) != (w != w) || (w == w && g != w) {
				t.Errorf("x=%g y=%g z=%g: %s = %g, want %g", c.x, c.y, c.z, names[k], g, w)
			}
		}
	}
}

func TestMinMaxSignedZero(t *testing.T) {
	neg := float32(math.Copysign(0, -1))
	m := compile(t, mathSrc)
	out := Poison(64)
	mustRun(t, m, "fm", [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{
		"x": Encode([]float32{neg, 0}), "y": Encode([]float32{0, neg}), "z": Encode([]float32{0, 0}), "out": out}}, Options{})
	got := f32s(t, out)
	for i := 0; i < 2; i++ {
		if !math.Signbit(float64(got[i*8+1])) || math.Signbit(float64(got[i*8+2])) {
			t.Errorf("case %d: min = %g, max = %g; want -0 and +0", i, got[i*8+1], got[i*8+2])
		}
	}
}

const oobSrc = `
kernel oob(n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= n {
		return
	}
	y[i] = x[i + 1]
}

kernel oobarr(k i32, y read_write []f32) workgroup(4) {
	var a [4]f32
	var v vec4<f32>
	a[local_index] = 1.0
	v[local_index] = 2.0
	y[local_index] = a[3 - k * i32(local_index)] + v[u32(k) + local_index]
}
`

func TestOutOfBounds(t *testing.T) {
	m := compile(t, oobSrc)
	x, y := Encode(make([]float32, 100)), Poison(400)
	err := Run(m, "oob", [3]int{2, 1, 1}, &Args{Params: params("n", 100), Buffers: map[string][]byte{"x": x, "y": y}}, Options{})
	want := "test.kc:6:10: kernel oob, invocation global_id (99, 0, 0): index 100 out of bounds for buffer x (100 elements)"
	if err == nil || err.Error() != want {
		t.Fatalf("got error\n\t%v\nwant\n\t%s", err, want)
	}
	var e *Error
	if !asError(err, &e) || e.Pos.Line != 6 || e.Global != [3]uint32{99, 0, 0} {
		t.Fatalf("error value %#v", err)
	}
	// the first workgroup completed; in the second, the failing statement
	// stored nothing (its invocations run it in lockstep)
	if got := f32s(t, y); got[63] != 0 || math.Float32bits(got[64]) != 0xcdcdcdcd || math.Float32bits(got[98]) != 0xcdcdcdcd {
		t.Errorf("y[63], y[64], y[98] = %g, %#x, %#x", got[63], math.Float32bits(got[64]), math.Float32bits(got[98]))
	}
	err = Run(m, "oobarr", [3]int{1, 1, 1}, &Args{Params: params("k", 2), Buffers: map[string][]byte{"y": Poison(16)}}, Options{})
	want = "test.kc:14:20: kernel oobarr, invocation global_id (2, 0, 0): index -1 out of bounds for array a ([4]f32)"
	if err == nil || err.Error() != want {
		t.Fatalf("got error\n\t%v\nwant\n\t%s", err, want)
	}
	err = Run(m, "oobarr", [3]int{1, 1, 1}, &Args{Params: params("k", 1), Buffers: map[string][]byte{"y": Poison(16)}}, Options{})
	want = "test.kc:14:50: kernel oobarr, invocation global_id (3, 0, 0): index 4 out of bounds for v (vec4<f32>)"
	if err == nil || err.Error() != want {
		t.Fatalf("got error\n\t%v\nwant\n\t%s", err, want)
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

func TestStepBudget(t *testing.T) {
	m := compile(t, `
kernel spin(n u32, stride u32, y read_write []u32) workgroup(8) {
	var s u32
	for k := u32(0); k < n; k += stride {
		s += k
	}
	y[local_index] = s
}
`)
	err := Run(m, "spin", [3]int{1, 1, 1}, &Args{Params: params("n", 10, "stride", 0), Buffers: map[string][]byte{"y": Poison(32)}}, Options{MaxSteps: 10000})
	want := "test.kc:3:2: kernel spin, invocation global_id (0, 0, 0): step budget of 10000 exhausted (runaway loop?)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	y := Poison(32)
	mustRun(t, m, "spin", [3]int{1, 1, 1}, &Args{Params: params("n", 10, "stride", 1), Buffers: map[string][]byte{"y": y}}, Options{MaxSteps: 10000})
	if got := u32s(t, y); got[7] != 45 {
		t.Fatalf("y = %v", got)
	}
}

func TestArgumentErrors(t *testing.T) {
	m := compile(t, oobSrc)
	good := func() *Args {
		return &Args{Params: params("n", 4), Buffers: map[string][]byte{"x": make([]byte, 16), "y": make([]byte, 16)}}
	}
	for _, c := range []struct {
		edit func(a *Args)
		want string
	}{
		{func(a *Args) { delete(a.Buffers, "x") }, "missing buffer x (read []f32)"},
		{func(a *Args) { delete(a.Params, "n") }, "missing parameter n (u32)"},
		{func(a *Args) { a.Buffers["y"] = make([]byte, 10) }, "buffer y holds 10 bytes, not a multiple of the 4-byte stride of f32"},
		{func(a *Args) { a.Params["n"] = ir.IntVal(-1) }, "parameter n: -1 out of range for u32"},
		{func(a *Args) { a.Params["n"] = ir.FloatVal(1) }, "parameter n (u32) needs an integer value"},
		{func(a *Args) { a.Params["extra"] = ir.IntVal(1) }, "no parameter named extra"},
		{func(a *Args) { a.Params["x"] = ir.IntVal(1) }, "x is a buffer, given as a scalar parameter"},
	} {
		a := good()
		c.edit(a)
		err := Run(m, "oob", [3]int{1, 1, 1}, a, Options{})
		want := "test.kc:1:1: kernel oob: " + c.want
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
	if err := Run(m, "nope", [3]int{1, 1, 1}, good(), Options{}); err == nil || err.Error() != `interp: no kernel "nope" in test.kc` {
		t.Errorf("unknown kernel: %v", err)
	}
	if err := Run(m, "oob", [3]int{1, 1, 1}, good(), Options{SubgroupSize: 12}); err == nil || err.Error() != "interp: subgroup size 12 is not a power of two in 1..128" {
		t.Errorf("bad subgroup size: %v", err)
	}
	if err := Run(&ir.Module{}, "oob", [3]int{1, 1, 1}, good(), Options{}); err == nil || !strings.Contains(err.Error(), "not checked") {
		t.Errorf("unchecked module: %v", err)
	}
	// a zero-sized grid runs nothing
	a := good()
	a.Buffers["y"] = Poison(16)
	if err := Run(m, "oob", [3]int{0, 1, 1}, a, Options{}); err != nil || a.Buffers["y"][0] != 0xcd {
		t.Errorf("empty grid: %v", err)
	}
}
