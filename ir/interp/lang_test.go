package interp

import (
	"encoding/binary"
	"math"
	"testing"
)

// Tests of helper functions, structs, switch and constant arrays: kernels
// on fresh random inputs against Go references that perform the same
// float32 operations in the same order (explicit float32 conversions keep
// Go from fusing them), so results must match bit for bit.

const particleSrc = `
struct Particle {
	pos vec3<f32>
	vel vec3<f32>
	mass f32
}

// advance integrates one particle; it bounces off the floor y = 0.
precise fn advance(p Particle, g f32, dt f32) Particle {
	var q = p
	q.vel.y = q.vel.y - g * dt
	q.pos = q.pos + q.vel * dt
	if q.pos.y < 0.0 {
		q.pos.y = -q.pos.y
		q.vel = vec3<f32>(q.vel.x, -q.vel.y * 0.5, q.vel.z)
	}
	return q
}

fn energy(p Particle) f32 {
	return 0.5 * p.mass * dot(p.vel, p.vel)
}

kernel boids(n u32, g f32, dt f32, ps read_write []Particle, e read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= n {
		return
	}
	let p = advance(ps[i], g, dt)
	ps[i] = p
	e[i] = energy(ps[i])
	ps[i].mass += 1.0
}
`

// particle mirrors the WGSL layout of Particle: pos@0 vel@16 mass@28, size 32.
type particle struct {
	pos, vel [3]float32
	mass     float32
}

func encodeParticles(ps []particle) []byte {
	b := make([]byte, 32*len(ps))
	for i := range b {
		b[i] = 0xCD // padding and fields alike: the kernel must not depend on it
	}
	for i, p := range ps {
		o := 32 * i
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(b[o+4*k:], math.Float32bits(p.pos[k]))
			binary.LittleEndian.PutUint32(b[o+16+4*k:], math.Float32bits(p.vel[k]))
		}
		binary.LittleEndian.PutUint32(b[o+28:], math.Float32bits(p.mass))
	}
	return b
}

func decodeParticle(b []byte, i int) particle {
	var p particle
	o := 32 * i
	f := func(off int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[o+off:])) }
	for k := 0; k < 3; k++ {
		p.pos[k], p.vel[k] = f(4*k), f(16+4*k)
	}
	p.mass = f(28)
	return p
}

func TestStructBufferAndFunctions(t *testing.T) {
	m := compile(t, particleSrc)
	r := newRNG(t)
	n := 200 + r.IntN(100)
	ps := make([]particle, n)
	for i := range ps {
		v := r.floats(7, -2, 2)
		ps[i] = particle{pos: [3]float32{v[0], v[1] * 0.1, v[2]}, vel: [3]float32{v[3], v[4], v[5]}, mass: v[6] + 3}
	}
	g, dt := float32(9.81), float32(0.01)+float32(r.Float64())*0.01
	buf := encodeParticles(ps)
	e := Poison(4 * n)
	mustRun(t, m, "boids", [3]int{ceilDiv(n, 64), 1, 1}, &Args{
		Params:  params("n", uint32(n), "g", g, "dt", dt),
		Buffers: map[string][]byte{"ps": buf, "e": e},
	}, Options{SubgroupSize: 8})
	es := f32s(t, e)
	for i, p := range ps {
		q := p
		q.vel[1] = q.vel[1] - float32(g*dt)
		for k := 0; k < 3; k++ {
			q.pos[k] = q.pos[k] + float32(q.vel[k]*dt)
		}
		if q.pos[1] < 0 {
			q.pos[1] = -q.pos[1]
			q.vel[1] = float32(-q.vel[1] * 0.5)
		}
		d := float32(q.vel[0]*q.vel[0]) + float32(q.vel[1]*q.vel[1])
		d = d + float32(q.vel[2]*q.vel[2])
		wantE := float32(float32(0.5*q.mass) * d)
		q.mass += 1
		got := decodeParticle(buf, i)
		if got != q {
			t.Fatalf("particle %d = %+v, want %+v", i, got, q)
		}
		// dot may be evaluated in float64 by the interpreter (rounded once):
		// allow the difference between that and the float32 sum.
		closeTo(t, "energy", i, es[i], float64(wantE), 4*eps32*math.Abs(float64(wantE))+1e-30)
	}
	// Padding bytes (12..15 and the vec3s' tails) are untouched.
	for i := 0; i < n; i++ {
		if buf[32*i+12] != 0xCD {
			t.Fatalf("padding of particle %d overwritten", i)
		}
	}
}

const langSrc = `
const W = [5]f32{0.0625, 0.25, 0.375, 0.25, 0.0625}
const TABLE = [2][3]i32{[3]i32{1, 2, 3}, [3]i32{-4, -5, -6}}

struct Acc {
	sum i32
	hits u32
	seen bool
	last [2]i32
}

// classify uses switch with several values per case, default and break.
fn classify(v u32) i32 {
	var r = 0
	switch v % 8 {
	case 0, 1:
		r = 10
	case 2:
		r = 20
		if v > 100 {
			break
		}
		r = 21
	case 5, 6, 7:
		r = TABLE[1][v % 3]
	default:
		r = -1
	}
	return r
}

// early returns from inside a loop, in divergent flow.
fn firstAbove(x read []u32, start u32, limit u32) u32 {
	for j := start; j < start + 8; j++ {
		if x[j] > limit {
			return j - start
		}
	}
	return 99
}

fn accumulate(a Acc, v i32) Acc {
	var b = a
	b.sum += v
	b.hits++
	b.seen = true
	b.last[1] = b.last[0]
	b.last[0] = v
	return b
}

fn pair(v i32) [2]i32 {
	return [2]i32{v, -v}
}

// counts writes through a shared-variable parameter.
fn bump(tile shared [64]u32, i u32, v u32) {
	tile[i] = tile[i] + v
}

kernel lang(n u32, x read []u32, f read []f32, out read_write []i32, blur read_write []f32, aux read_write []u32) workgroup(64) {
	shared tile [64]u32
	let i = global_id.x
	var acc = Acc{}
	for k := 0; k < 4; k++ {
		let c = classify(x[i] + u32(k))
		if c < 0 {
			continue
		}
		acc = accumulate(acc, c)
	}
	var s = 0.0
	for k := 0; k < 5; k++ {
		let j = clamp(i32(i) + k - 2, 0, i32(n) - 1)
		s += W[k] * f[j]
	}
	blur[i] = s
	let p = pair(acc.sum)
	out[4 * i] = acc.sum
	out[4 * i + 1] = i32(acc.hits) + select(acc.seen, 100, 0)
	out[4 * i + 2] = acc.last[1] + p[1]
	out[4 * i + 3] = TABLE[i % 2][i % 3]
	bump(tile, local_index, x[i] % 16)
	workgroupBarrier()
	aux[2 * i] = tile[(local_index + 1) % 64]
	aux[2 * i + 1] = firstAbove(x, i, 3000000000)
}
`

func TestFunctionsSwitchConstArrays(t *testing.T) {
	m := compile(t, langSrc)
	r := newRNG(t)
	const groups = 3
	n := 64 * groups
	x := r.u32s(n + 8)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] %= 200 // small values reach the break in case 2
		}
	}
	fv := r.floats(n, -1, 1)
	out, blur, aux := Poison(16*n), Poison(4*n), Poison(8*n)
	mustRun(t, m, "lang", [3]int{groups, 1, 1}, &Args{
		Params:  params("n", uint32(n)),
		Buffers: map[string][]byte{"x": Encode(x), "f": Encode(fv), "out": out, "blur": blur, "aux": aux},
	}, Options{SubgroupSize: 8, Races: true})
	table := [2][3]int32{{1, 2, 3}, {-4, -5, -6}}
	classify := func(v uint32) int32 {
		switch v % 8 {
		case 0, 1:
			return 10
		case 2:
			if v > 100 {
				return 20
			}
			return 21
		case 5, 6, 7:
			return table[1][v%3]
		}
		return -1
	}
	w := []float32{0.0625, 0.25, 0.375, 0.25, 0.0625}
	o, bl, ax := i32s(t, out), f32s(t, blur), u32s(t, aux)
	for i := 0; i < n; i++ {
		var sum int32
		var hits uint32
		seen := false
		last := [2]int32{}
		for k := 0; k < 4; k++ {
			c := classify(x[i] + uint32(k))
			if c < 0 {
				continue
			}
			sum += c
			hits++
			seen = true
			last[1], last[0] = last[0], c
		}
		extra := int32(0)
		if seen {
			extra = 100
		}
		want := [4]int32{sum, int32(hits) + extra, last[1] - sum, table[i%2][i%3]}
		if got := [4]int32(o[4*i : 4*i+4]); got != want {
			t.Fatalf("out[%d] = %v, want %v (x = %d..)", i, got, want, x[i])
		}
		var s float32
		for k := 0; k < 5; k++ {
			j := min(max(i+k-2, 0), n-1)
			s = s + float32(w[k]*fv[j])
		}
		if bl[i] != s {
			t.Fatalf("blur[%d] = %g, want %g", i, bl[i], s)
		}
		g, li := i/64, i%64
		neighbour := 64*g + (li+1)%64
		if ax[2*i] != x[neighbour]%16 {
			t.Fatalf("tile read by %d = %d, want %d", i, ax[2*i], x[neighbour]%16)
		}
		first := uint32(99)
		for j := 0; j < 8; j++ {
			if x[i+j] > 3000000000 {
				first = uint32(j)
				break
			}
		}
		if ax[2*i+1] != first {
			t.Fatalf("firstAbove(%d) = %d, want %d", i, ax[2*i+1], first)
		}
	}
}

// TestFunctionCallOrderAndEffects: calls with side effects run in operand
// order, left to right.
func TestFunctionCallOrderAndEffects(t *testing.T) {
	m := compile(t, `
fn put(y read_write []u32, i u32, v u32) u32 {
	y[i] = v
	return v + 1
}

kernel k(y read_write []u32) workgroup(4) {
	let i = global_id.x
	// Arguments and operands are evaluated left to right.
	let a = put(y, 2 * i, 10) + put(y, 2 * i, 20)
	y[2 * i + 1] = a
}
`)
	y := Poison(4 * 8)
	mustRun(t, m, "k", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"y": y}}, Options{})
	for i, v := range u32s(t, y) {
		want := uint32(20)
		if i%2 == 1 {
			want = 32
		}
		if v != want {
			t.Errorf("y[%d] = %d, want %d", i, v, want)
		}
	}
}

// TestBarrierInFunction: a barrier inside a helper function synchronises
// the shared variable passed to it (the race detector would report a read
// of a neighbour's slot before the barrier).
func TestBarrierInFunction(t *testing.T) {
	m := compile(t, `
fn publish(s shared [64]u32, v u32) u32 {
	s[local_index] = v
	workgroupBarrier()
	return s[(local_index + 1) % 64]
}

kernel k(x read []u32, y read_write []u32) workgroup(64) {
	shared s [64]u32
	let i = global_id.x
	y[i] = publish(s, x[i] * 3)
}
`)
	r := newRNG(t)
	n := 128
	x := r.u32s(n)
	y := Poison(4 * n)
	mustRun(t, m, "k", [3]int{2, 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true, SubgroupSize: 8})
	for i, v := range u32s(t, y) {
		if want := x[64*(i/64)+(i%64+1)%64] * 3; v != want {
			t.Fatalf("y[%d] = %d, want %d", i, v, want)
		}
	}
}
