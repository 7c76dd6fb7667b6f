package interp

import (
	"math"
	"testing"
)

const miscSrc = `
enable f16

kernel misc(k i32, p read_write []vec2<i32>, a read_write []atomic<i32>, out read_write []f32) workgroup(4) {
	shared sv [4]vec4<f32>
	let i = local_index
	var x = vec4<f32>(0.0)
	x += 1.0
	x = -x * vec4<f32>(f32(i))
	{
		let x = vec3<f32>(x.xy, 2.0)
		sv[i] = vec4<f32>(x, 3.0)
	}
	sv[i].w += 0.5
	sv[i][0] = sv[i][0] - 10.0
	let m = mix(x, vec4<f32>(4.0), 0.5)
	let s = select(i > 1, m, x)
	let h = bitcast<vec2<f16>>(u32(0x3c004000))
	var c = 0
	for c < k {
		c += 1
	}
	p[i] = vec2<i32>(-p[i].y, p[i].x) * k
	p[i].x -= 1
	atomicMin(a[0], k - i32(i))
	atomicMax(a[1], i32(i) - k)
	let o = i * 8
	out[o] = sv[i].x
	out[o + 1] = sv[i].w
	out[o + 2] = s.x + s.y * 10.0
	out[o + 3] = f32(h.x) + f32(h.y) * 10.0
	out[o + 4] = f32(c) + f32(len(a))
	out[o + 5] = m.z
	out[o + 6] = dot(x.xy, vec2<f32>(1.0, 2.0))
	out[o + 7] = f32(-k) + f32(i32(u32(3)) >> u32(1))
}
`

// TestMiscConstructs runs a grab bag of constructs: shadowing in a nested
// block, vector compound assignment with a scalar, vector negation, shared
// vector components, mix with a scalar weight, select of vectors,
// bitcast to vec2<f16>, a while-style loop, signed atomics on a buffer,
// component stores into a buffer of vec2<i32>.
func TestMiscConstructs(t *testing.T) {
	m := compile(t, miscSrc)
	const k = 3
	p := Encode([]int32{1, 2, 3, 4, 5, 6, 7, 8})
	a := Encode([]int32{100, -100})
	out := Poison(4 * 32)
	mustRun(t, m, "misc", [3]int{1, 1, 1}, &Args{Params: params("k", k), Buffers: map[string][]byte{"p": p, "a": a, "out": out}}, Options{Races: true})
	got := f32s(t, out)
	for i := 0; i < 4; i++ {
		fi := float64(i)
		xv := -fi
		mv := (xv + 4) / 2
		sx, sy := xv, xv
		if i > 1 {
			sx, sy = mv, mv
		}
		want := []float64{xv - 10, 3.5, sx + sy*10, 2 + 1*10, // h = (0x4000, 0x3c00): low half first
			k + 2, mv, 3 * xv, -k + 1}
		for j, w := range want {
			if g := float64(got[i*8+j]); g != w {
				t.Errorf("invocation %d, out %d = %g, want %g", i, j, g, w)
			}
		}
	}
	u := func(v int32) uint32 { return uint32(v) }
	checkWords(t, "p", u32s(t, p), []uint32{
		u(-2*k - 1), 1 * k, u(-4*k - 1), 3 * k, u(-6*k - 1), 5 * k, u(-8*k - 1), 7 * k})
	checkWords(t, "a", u32s(t, a), []uint32{0, 0})
	if math.IsNaN(float64(got[0])) {
		t.Fatal("NaN")
	}
}

// TestConcurrentRuns runs one checked module from several goroutines at
// once: Run keeps no state outside its call.
func TestConcurrentRuns(t *testing.T) {
	m := compile(t, miscSrc)
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			p := Encode([]int32{1, 2, 3, 4, 5, 6, 7, 8})
			errs <- Run(m, "misc", [3]int{1, 1, 1}, &Args{Params: params("k", 3), Buffers: map[string][]byte{
				"p": p, "a": Encode([]int32{100, -100}), "out": Poison(128)}}, Options{})
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
