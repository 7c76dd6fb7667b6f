package interp

import (
	"encoding/binary"
	"math"
	"testing"
)

const layoutSrc = `
enable f16

kernel layout(v read_write []vec3<f32>, rows read_write [][4]u32, h read_write []vec4<f16>, w read_write []u32) workgroup(2) {
	let i = local_index
	let p = v[i]
	v[i] = p.zxy + vec3<f32>(f32(i))
	v[i].y = 7.0
	rows[i][3 - i] = rows[i][i] * 2
	let q = h[i]
	h[i] = q.wzyx
	h[i][0] = f16(i) + 0.5
	w[i] = bitcast<u32>(vec2<f16>(q.x, q.y))
	w[i + 2] = bitcast<vec2<u32>>(q).y
}
`

// TestBufferLayouts checks std430 strides: vec3 elements 16 bytes apart
// with their padding untouched, arrays inside buffer elements, f16
// vectors 8 bytes, and bitcasts between f16 vectors and u32.
func TestBufferLayouts(t *testing.T) {
	m := compile(t, layoutSrc)
	r := newRNG(t)
	v := Poison(32)
	vals := r.floats(6, -10, 10)
	for i := 0; i < 2; i++ {
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(v[16*i+4*k:], math.Float32bits(vals[3*i+k]))
		}
	}
	rowVals := r.u32s(8)
	rows := Encode(rowVals)
	hv := F32sToF16Bits(r.floats(8, -100, 100))
	h := Encode(hv)
	w := Poison(16)
	mustRun(t, m, "layout", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"v": v, "rows": rows, "h": h, "w": w}}, Options{Races: true})
	for i := 0; i < 2; i++ {
		got := f32s(t, v[16*i:16*i+12])
		want := []float32{vals[3*i+2] + float32(i), 7, vals[3*i+1] + float32(i)}
		for k := range want {
			if got[k] != want[k] {
				t.Errorf("v[%d][%d] = %g, want %g", i, k, got[k], want[k])
			}
		}
		if pad := v[16*i+12 : 16*i+16]; pad[0] != 0xcd || pad[3] != 0xcd {
			t.Errorf("v[%d] padding written: % x", i, pad)
		}
	}
	gotRows := u32s(t, rows)
	wantRows := append([]uint32(nil), rowVals...)
	wantRows[3] = rowVals[0] * 2
	wantRows[4+2] = rowVals[5] * 2
	checkWords(t, "rows", gotRows, wantRows)
	gotH, _ := Decode[uint16](h)
	for i := 0; i < 2; i++ {
		q := hv[4*i : 4*i+4]
		want := []uint16{F32ToF16Bits(float32(i) + 0.5), q[2], q[1], q[0]}
		for k := range want {
			if gotH[4*i+k] != want[k] {
				t.Errorf("h[%d][%d] = %#04x, want %#04x", i, k, gotH[4*i+k], want[k])
			}
		}
	}
	gotW := u32s(t, w)
	for i := 0; i < 2; i++ {
		q := hv[4*i : 4*i+4]
		if want := uint32(q[0]) | uint32(q[1])<<16; gotW[i] != want {
			t.Errorf("w[%d] = %#x, want %#x", i, gotW[i], want)
		}
		if want := uint32(q[2]) | uint32(q[3])<<16; gotW[i+2] != want {
			t.Errorf("w[%d] = %#x, want %#x", i+2, gotW[i+2], want)
		}
	}
}

const sharedSrc = `
kernel atom(x read []i32, out read_write []i32) workgroup(16) {
	shared lo atomic<i32>
	shared hi atomic<i32>
	shared sum atomic<i32>
	shared last atomic<u32>
	shared flags [16]bool
	shared grid [4][4]i32
	let i = local_index
	if i == 0 {
		atomicStore(lo, 2147483647)
		atomicStore(hi, -2147483647 - 1)
	}
	workgroupBarrier()
	let v = x[i]
	atomicMin(lo, v)
	atomicMax(hi, v)
	atomicSub(sum, v)
	let old = atomicExchange(last, i + 1)
	flags[i] = v > 0
	grid[i / 4][i % 4] = v
	workgroupBarrier()
	var acc [4]i32
	for k := 0; k < 4; k++ {
		acc[k] = grid[k][i % 4] + select(flags[i ^ 1], 1, 0)
	}
	out[i] = acc[i / 4]
	if i == 0 {
		out[16] = atomicLoad(lo)
		out[17] = atomicLoad(hi)
		out[18] = atomicLoad(sum)
		out[19] = bitcast<i32>(atomicLoad(last))
	}
	out[20 + i] = bitcast<i32>(old)
}
`

// TestSharedAtomicsAndArrays checks atomics on shared scalars (signed
// min/max, sub, exchange in invocation order), shared bool arrays, 2D
// shared arrays and local arrays with dynamic indices.
func TestSharedAtomicsAndArrays(t *testing.T) {
	m := compile(t, sharedSrc)
	r := newRNG(t)
	x := r.i32s(16)
	out := Poison(36 * 4)
	mustRun(t, m, "atom", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "out": out}}, Options{Races: true})
	want := make([]uint32, 36)
	lo, hi, sum := int32(math.MaxInt32), int32(math.MinInt32), int32(0)
	for i, v := range x {
		lo, hi, sum = min(lo, v), max(hi, v), sum-v
		flag := int32(0)
		if x[i^1] > 0 {
			flag = 1
		}
		k := i / 4
		want[i] = uint32(x[k*4+i%4] + flag)
		want[20+i] = uint32(i) // the previous exchanger's i+1, in lane order
	}
	want[16], want[17], want[18], want[19] = uint32(lo), uint32(hi), uint32(sum), 16
	checkWords(t, "out", u32s(t, out), want)
}
