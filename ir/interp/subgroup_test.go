package interp

import (
	"math/bits"
	"testing"
)

const subgroupSrc = `
enable subgroups

const OUTS = 22

kernel sg(x read []u32, out read_write []u32) workgroup(64) {
	let lid = local_index
	let v = x[lid]
	if v % 5 == 0 {
		return
	}
	let o = lid * OUTS
	out[o] = subgroupAdd(v)
	out[o + 1] = subgroupInclusiveAdd(v)
	out[o + 2] = subgroupExclusiveAdd(v)
	out[o + 3] = subgroupBroadcast(v, 3)
	out[o + 4] = subgroupBroadcastFirst(v)
	out[o + 5] = subgroupShuffle(v, v % 37)
	out[o + 6] = subgroupShuffleXor(v, 5)
	out[o + 7] = subgroupShuffleUp(v, 3)
	out[o + 8] = subgroupShuffleDown(v, 3)
	let b = subgroupBallot(v % 2 == 1)
	out[o + 9] = b.x
	out[o + 10] = b.y
	out[o + 11] = select(subgroupAll(v % 7 != 0), u32(1), u32(0))
	out[o + 12] = select(subgroupAny(v % 11 == 0), u32(1), u32(0))
	out[o + 13] = select(subgroupElect(), u32(1), u32(0))
	out[o + 14] = subgroupMin(v)
	out[o + 15] = subgroupMax(v)
	out[o + 16] = subgroupAnd(v)
	out[o + 17] = subgroupOr(v)
	out[o + 18] = subgroupXor(v)
	out[o + 19] = subgroup_invocation_id + subgroup_size * 1000
	out[o + 20] = 7
	if v % 3 == 0 {
		out[o + 20] = subgroupAdd(v)
	}
	out[o + 21] = subgroupMul(v | 1)
}
`

// subgroupRef computes the outputs of kernel sg for one subgroup: lanes
// holds x of each of its invocations (by subgroup invocation id), and
// active says which of them did not return.
func subgroupRef(x []uint32, active []bool, size int) [][22]uint32 {
	out := make([][22]uint32, len(x))
	var ids []int
	for i := range x {
		if active[i] {
			ids = append(ids, i)
		}
	}
	src := func(i int, from int) uint32 { // value of lane from, or own when undefined
		if from >= 0 && from < len(x) && from < size && active[from] {
			return x[from]
		}
		return x[i]
	}
	var sum, mul, and, or, xor, ballot0, ballot1 uint32 = 0, 1, ^uint32(0), 0, 0, 0, 0
	mn, mx := ^uint32(0), uint32(0)
	all, any := true, false
	for _, i := range ids {
		v := x[i]
		sum += v
		mul *= v | 1
		and &= v
		or |= v
		xor ^= v
		mn, mx = min(mn, v), max(mx, v)
		all = all && v%7 != 0
		any = any || v%11 == 0
		if v%2 == 1 {
			if i < 32 {
				ballot0 |= 1 << i
			} else {
				ballot1 |= 1 << (i - 32)
			}
		}
	}
	b := func(c bool) uint32 {
		if c {
			return 1
		}
		return 0
	}
	var sum3 uint32
	for _, i := range ids {
		if x[i]%3 == 0 {
			sum3 += x[i]
		}
	}
	var run uint32
	for k, i := range ids {
		v := x[i]
		o := &out[i]
		o[0] = sum
		o[2] = run
		run += v
		o[1] = run
		o[3] = src(i, 3)
		o[4] = x[ids[0]]
		o[5] = src(i, int(v%37))
		o[6] = src(i, i^5)
		o[7] = src(i, i-3)
		o[8] = src(i, i+3)
		o[9], o[10] = ballot0, ballot1
		o[11], o[12], o[13] = b(all), b(any), b(k == 0)
		o[14], o[15], o[16], o[17], o[18] = mn, mx, and, or, xor
		o[19] = uint32(i + size*1000)
		o[20] = 7
		if v%3 == 0 {
			o[20] = sum3
		}
		o[21] = mul
	}
	return out
}

func TestSubgroupOps(t *testing.T) {
	m := compile(t, subgroupSrc)
	r := newRNG(t)
	for _, size := range []int{8, 32, 4, 64} {
		x := r.u32s(64)
		for i := range x {
			if r.IntN(3) == 0 {
				x[i] = uint32(r.IntN(40)) // small values: more returns, ties, in-range shuffles
			}
		}
		x[3] = 6 // keep lane 3 active in the first subgroup, so broadcast has a source
		out := Poison(64 * 22 * 4)
		mustRun(t, m, "sg", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "out": out}}, Options{SubgroupSize: size})
		got := u32s(t, out)
		for g := 0; g < 64/size; g++ {
			lanes := x[g*size : (g+1)*size]
			active := make([]bool, size)
			for i, v := range lanes {
				active[i] = v%5 != 0
			}
			want := subgroupRef(lanes, active, size)
			for i := range lanes {
				l := g*size + i
				for k := 0; k < 22; k++ {
					w := want[i][k]
					if !active[i] {
						w = 0xcdcdcdcd
					}
					if g := got[l*22+k]; g != w {
						t.Errorf("subgroup size %d, lane %d (x=%d, active %d of the subgroup): output %d = %d, want %d",
							size, l, lanes[i], bits.OnesCount64(countActive(active)), k, g, w)
					}
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

func countActive(a []bool) uint64 {
	var m uint64
	for i, b := range a {
		if b {
			m |= 1 << i
		}
	}
	return m
}

// TestSubgroupFloatAdd checks that float reductions fold in lane order,
// rounding each step, and that a partial last subgroup works.
func TestSubgroupFloatAdd(t *testing.T) {
	m := compile(t, `
enable subgroups

kernel fsum(x read []f32, out read_write []f32) workgroup(12) {
	out[local_index] = subgroupAdd(x[local_index]) + subgroupExclusiveAdd(x[local_index]) * 0.0
}
`)
	r := newRNG(t)
	x := r.floats(12, -1e3, 1e3)
	out := Poison(48)
	mustRun(t, m, "fsum", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "out": out}}, Options{SubgroupSize: 8})
	got := f32s(t, out)
	for l := range x {
		lo, hi := l/8*8, min(l/8*8+8, 12)
		var s float32
		for i := lo; i < hi; i++ {
			s += x[i]
		}
		if got[l] != s {
			t.Errorf("lane %d: %g, want %g", l, got[l], s)
		}
	}
}
