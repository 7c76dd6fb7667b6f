package difftest

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// runEveryPath runs kernel k of src over groups on every path and on the
// interpreter, with the buffers bufs (in binding order; those named in out
// are compared after the run, byte for byte), and fails on any difference.
// It returns the interpreter's buffers.
func runEveryPath(t *testing.T, src string, groups int, names []string, bufs [][]byte, out map[string]bool) map[string][]byte {
	t.Helper()
	return runPaths(t, paths, src, groups, names, bufs, out)
}

// runPaths is runEveryPath on the paths ps only.
func runPaths(t *testing.T, ps []path, src string, groups int, names []string, bufs [][]byte, out map[string]bool) map[string][]byte {
	t.Helper()
	m, err := parse.File("k.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	start, want := map[string][]byte{}, map[string][]byte{}
	for i, n := range names {
		start[n], want[n] = bufs[i], bytes.Clone(bufs[i])
	}
	if err := interp.Run(m, "k", [3]int{groups, 1, 1}, &interp.Args{Buffers: want}, interp.Options{Races: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			_, got := dispatchOn(t, p, m, start, groups)
			for _, n := range names {
				if out[n] && !bytes.Equal(got[n], want[n]) {
					t.Errorf("%s differs from the interpreter's:\n got % x\nwant % x", n, head(got[n]), head(want[n]))
				}
			}
		})
	}
	return want
}

// dispatchOn emits kernel k of m for path p and runs it on the path's
// device from bufs over groups (backendtest.Dispatch); it returns the
// device and every buffer.
func dispatchOn(t *testing.T, p path, m *ir.Module, bufs map[string][]byte, groups int) (*backend.Device, map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	d := device(t, p.driver)
	art, err := p.artifact(ctx, m, "k")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := d.Load(ctx, art)
	if err != nil {
		t.Fatal(err)
	}
	return d, backendtest.Dispatch(t, d, pl, m.Kernel("k"), nil, bufs, [3]int{groups, 1, 1})
}

func head(b []byte) []byte { return b[:min(len(b), 64)] }

// selectOrderSrc calls select with an atomic in two (and in all three)
// arguments. kc evaluates select's arguments in order (docs/semantics.md
// § 5), so a gets the counter's old value and b sees a's increment; WGSL's
// select takes (b, a, cond), which the emitter must not let reorder them.
const selectOrderSrc = `kernel k(h read_write []atomic<u32>, out read_write []u32) workgroup(1) {
	out[0] = select(true, atomicAdd(h[0], 1), atomicAdd(h[0], 10))
	out[1] = select(false, atomicAdd(h[1], 1), atomicAdd(h[1], 10))
	out[2] = select(atomicAdd(h[2], 1) == 0, atomicAdd(h[2], 10), atomicAdd(h[2], 100))
	out[3] = atomicLoad(h[0]) + atomicLoad(h[1]) + atomicLoad(h[2])
}
`

// TestSelectOrder: select's effects happen in kc's order on every path.
func TestSelectOrder(t *testing.T) {
	h := interp.Encode([]uint32{0, 0, 0})
	out := interp.Poison(16)
	want := runEveryPath(t, selectOrderSrc, 1, []string{"h", "out"}, [][]byte{h, out}, map[string]bool{"h": true, "out": true})
	// In kc's order: out[0] = a = 0; out[1] = b = 1 (a ran first);
	// out[2]: cond sees 0, a returns 1, b 11, cond true picks a = 1.
	got, err := interp.Decode[uint32](want["out"])
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0 || got[1] != 1 || got[2] != 1 || got[3] != 11+11+111 {
		t.Fatalf("interpreter: out = %v, want [0 1 1 133]", got)
	}
}

// selectReadSrc puts a plain read (of a buffer, a shared array or scalar, or an
// atomic through atomicLoad) next to an operand that writes what it reads
// (a helper call, an atomic), in select and in a binary operator. kc reads
// before or after the write as the operands are written (docs/semantics.md
// § 5); WGSL's select(b, a, cond) evaluates b first, and HLSL hoists the
// effect in front of the statement, so neither may leave such a read
// inline on the wrong side of the write.
const selectReadSrc = `fn bump(x read_write []u32, v u32) u32 {
	x[0] = x[0] + v
	return v
}

fn poke(s shared [2]u32, v u32) u32 {
	s[0] = s[0] + v
	return v
}

fn pk(t shared u32, v u32) u32 {
	t = t + v
	return v
}

fn inc(h read_write []atomic<u32>) u32 {
	return atomicAdd(h[2], 5)
}

kernel k(x read_write []u32, h read_write []atomic<u32>, out read_write []u32) workgroup(1) {
	shared s [2]u32
	shared t u32
	s[0] = 3
	t = 3
	x[0] = 1
	out[0] = select(true, x[0], bump(x, 5))
	out[1] = select(false, bump(x, 5), x[0])
	out[2] = select(x[0] == 11, bump(x, 7), 9)
	out[3] = select(true, atomicLoad(h[0]), atomicAdd(h[0], 1))
	out[4] = select(false, atomicAdd(h[0], 1), atomicLoad(h[0]))
	out[5] = select(true, s[0], poke(s, 4))
	out[6] = s[0] + poke(s, 4)
	out[7] = atomicLoad(h[1]) * 100 + atomicAdd(h[1], 1)
	out[8] = atomicAdd(h[1], 1) * 100 + atomicLoad(h[1])
	out[9] = atomicLoad(h[2]) * 100 + inc(h)
	out[10] = inc(h) * 100 + atomicLoad(h[2])
	out[11] = select(atomicLoad(h[2]) == 10, inc(h), 7)
	out[12] = t + pk(t, 4)
	out[13] = select(true, t, pk(t, 4))
	t = 14
	out[t] = pk(t, 4)
}
`

// TestSelectReadOrder: a read keeps its place in kc's order next to a
// write made by another operand, in select and in a binary operator, on
// every path.
func TestSelectReadOrder(t *testing.T) {
	x := interp.Encode([]uint32{rand.Uint32(), rand.Uint32()})
	h := interp.Encode([]uint32{0, 0, 0})
	out := interp.Poison(4 * 19)
	want := runEveryPath(t, selectReadSrc, 1, []string{"x", "h", "out"}, [][]byte{x, h, out}, map[string]bool{"x": true, "h": true, "out": true})
	got, err := interp.Decode[uint32](want["out"])
	if err != nil {
		t.Fatal(err)
	}
	// x[0]: 1, 6, 11, 18; h[0]: 0, 1, 2; s[0]: 3, 7, 11; h[1]: 0, 1, 2;
	// h[2]: 0, 5, 10, 15; t: 3, 7, 11, then 14, 18
	// (out[t] is out[14]).
	exp := []uint32{1, 11, 7, 0, 2, 3, 7 + 4, 0*100 + 0, 1*100 + 2, 0*100 + 0, 5*100 + 10, 10, 3 + 4, 7, 4}
	for i := range exp {
		if got[i] != exp[i] {
			t.Fatalf("interpreter: out = %v, want %v", got, exp)
		}
	}
}

// compoundOrderSrc: lhs op= rhs loads the target after evaluating rhs
// (docs/semantics.md § 6), so a call in rhs that writes the target (a
// buffer element, a shared scalar) is seen by the load.
const compoundOrderSrc = `fn bump(x read_write []u32, v u32) u32 {
	x[0] = x[0] + v
	return v
}

fn pk(t shared u32, v u32) u32 {
	t = t + v
	return v
}

kernel k(x read_write []u32, out read_write []u32) workgroup(1) {
	shared t u32
	t = 3
	x[0] = 1
	x[0] += bump(x, 5)
	out[0] = x[0]
	t *= pk(t, 4)
	out[1] = t
}
`

// TestCompoundAssignOrder: a compound assignment's load follows its value
// on every path.
func TestCompoundAssignOrder(t *testing.T) {
	x := interp.Encode([]uint32{rand.Uint32(), rand.Uint32()})
	want := runEveryPath(t, compoundOrderSrc, 1, []string{"x", "out"}, [][]byte{x, interp.Poison(4 * 4)}, map[string]bool{"x": true, "out": true})
	got, err := interp.Decode[uint32](want["out"])
	if err != nil {
		t.Fatal(err)
	}
	// x[0]: 1, bump makes it 6, then 6 + 5; t: 3, pk makes it 7, then 7 * 4.
	if got[0] != 11 || got[1] != 28 {
		t.Fatalf("interpreter: out = %v, want [11 28 ...]", got)
	}
}

// intToFloatSrc converts u32 and i32 to f32.
const intToFloatSrc = `kernel k(u read []u32, i read []i32, fu read_write []f32, fi read_write []f32) workgroup(64) {
	let j = global_id.x
	if j < len(u) {
		fu[j] = f32(u[j])
		fi[j] = f32(i[j])
	}
}
`

// TestIntToFloatRounding pins integer-to-f32 conversion to round to
// nearest, ties to even, on every path (docs/semantics.md § 5.4). WGSL
// leaves the rounding of an inexact conversion to the implementation, as it
// does for + - * /; kc requires round-to-nearest-even of every target and
// this test holds each path to it, on exact ties and on fresh random values
// beyond 2^24, against Go's own conversion (which rounds to nearest even)
// as well as the interpreter.
func TestIntToFloatRounding(t *testing.T) {
	us := []uint32{1<<24 + 1, 1<<24 + 3, 1<<25 + 2, 1<<25 + 6, 0xffffffff, 0xffffff80, 0xffffff7f, 0xffffff81, 0x7fffffc0, 0x80000040, 0x800000c0}
	is := []int32{1<<24 + 1, -(1<<24 + 1), 1<<24 + 3, -(1<<24 + 3), math.MaxInt32, math.MinInt32, math.MinInt32 + 64, math.MinInt32 + 192, -0x7fffffc0, 0x7fffffbf}
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for len(us) < 4096 {
		us = append(us, r.Uint32()|1<<24)
		is = append(is, int32(r.Uint32()))
	}
	is = is[:len(us)]
	n := len(us)
	want := runEveryPath(t, intToFloatSrc, (n+63)/64, []string{"u", "i", "fu", "fi"},
		[][]byte{interp.Encode(us), interp.Encode(is), interp.Poison(4 * n), interp.Poison(4 * n)},
		map[string]bool{"fu": true, "fi": true})
	fu, _ := interp.Decode[float32](want["fu"])
	fi, _ := interp.Decode[float32](want["fi"])
	for j := range n {
		if fu[j] != float32(us[j]) || fi[j] != float32(is[j]) {
			t.Fatalf("interpreter: f32(%d) = %v, f32(%d) = %v; Go gives %v, %v", us[j], fu[j], is[j], fi[j], float32(us[j]), float32(is[j]))
		}
	}
}

// compoundPlaceSrc: lhs op= rhs evaluates the location once, before rhs
// (docs/semantics.md § 6): an index reading memory that rhs writes sees
// the old value, an index with effects (an atomic) runs once also where
// the operator needs a helper (/, % of integers). A plain assignment
// finds its location before its value too.
const compoundPlaceSrc = `fn setidx(x read_write []u32, v u32) u32 {
	x[3] = v
	return v
}

kernel k(x read_write []u32, v read_write []vec4<u32>, c read_write []atomic<u32>, d read []u32, out read_write []u32) workgroup(1) {
	x[3] = 1
	x[x[3]] += setidx(x, 2)
	x[atomicAdd(c[0], 1)] /= d[0]
	x[atomicAdd(c[0], 1) + 4] %= d[1]
	x[atomicAdd(c[0], 1) + 6] *= setidx(x, 3)
	x[x[3] + 8] = setidx(x, 5)
	x[setidx(x, 6) + 8] %= d[1]
	v[atomicAdd(c[0], 1)].y /= d[0]
	v[x[3] - 6].z -= setidx(x, 7)
	var a [4][4]u32
	a[x[3] & 3][x[3] >> 1] += setidx(x, 1)
	out[0] = atomicLoad(c[0])
	out[1] = x[3]
	out[2] = a[3][3] * 10 + a[1][0]
}
`

// TestCompoundPlaceOrder: a compound assignment's location is evaluated
// once and before its value on every path, in a statement and in a for
// post.
func TestCompoundPlaceOrder(t *testing.T) {
	x := make([]uint32, 16)
	for i := range x {
		x[i] = rand.Uint32()
	}
	d := []uint32{1 + rand.Uint32N(7), 1 + rand.Uint32N(7)}
	v := make([]uint32, 4*4)
	for i := range v {
		v[i] = rand.Uint32()
	}
	want := runEveryPath(t, compoundPlaceSrc, 1, []string{"x", "v", "c", "d", "out"},
		[][]byte{interp.Encode(x), interp.Encode(v), interp.Encode([]uint32{0, 0}), interp.Encode(d), interp.Poison(4 * 3)},
		map[string]bool{"x": true, "v": true, "c": true, "out": true})
	got, err := interp.Decode[uint32](want["x"])
	if err != nil {
		t.Fatal(err)
	}
	// x[x[3]] += setidx(x, 2): the location is x[1], found before
	// setidx sets x[3]; x[x[3] + 8] = setidx(x, 5) writes x[11], where
	// x[3] was 3; each atomic runs once: c[0] = 4. v[6 - 6].z (x[3]
	// was 6 before setidx); a[7 & 3][7 >> 1] = a[3][3] gets 1.
	if got[1] != x[1]+2 || got[2] != x[2] || got[11] != 5 || got[13] != x[13] {
		t.Fatalf("interpreter: x[1], x[2], x[11], x[13] = %d, %d, %d, %d, want %d, %d, 5, %d", got[1], got[2], got[11], got[13], x[1]+2, x[2], x[13])
	}
	if c, _ := interp.Decode[uint32](want["c"]); c[0] != 4 {
		t.Fatalf("interpreter: c = %v, want [4 ...]", c)
	}
	gv, _ := interp.Decode[uint32](want["v"])
	if o, _ := interp.Decode[uint32](want["out"]); o[2] != 10 || gv[2] != v[2]-7 {
		t.Fatalf("interpreter: out[2] = %d, v[0].z = %d, want 10, %d", o[2], gv[2], v[2]-7)
	}
}

// compoundPostSrc: compound assignments in a for post statement keep
// kc's order (location once, then value, then load) as statements do:
// with effects in the value of a loop variable's update, and, without an
// init statement (where the post may assign any place), with an atomic
// or a read of memory the value writes in the index, a continue
// reaching the post.
const compoundPostSrc = `fn setidx(x read_write []u32, v u32) u32 {
	x[3] = v
	return v
}

kernel k(x read_write []u32, c read_write []atomic<u32>, d read []u32, out read_write []u32) workgroup(1) {
	var n u32
	for k := u32(0); k < 6; k += 1 + atomicAdd(c[0], 1) {
		n++
	}
	for j := u32(100); j > 0; j /= d[0] + atomicAdd(c[0], 1) {
		n++
	}
	out[0] = atomicLoad(c[0])
	out[1] = n
	var m u32
	for ; m < 3; x[atomicAdd(c[1], 1)] /= d[0] {
		m++
	}
	x[3] = 1
	for ; m < 6; x[x[3] + 8] += setidx(x, m) {
		m++
		if m == 4 {
			continue
		}
		x[15] += m
	}
	out[2] = atomicLoad(c[1])
}
`

// TestCompoundPostOrder runs compoundPostSrc on every path, HLSL included
// (its emitter runs such a post at the end of the body and before each
// continue of its loop; the last loop's continue checks that).
func TestCompoundPostOrder(t *testing.T) {
	ps := paths
	d := []uint32{1 + rand.Uint32N(7)}
	x := make([]uint32, 16)
	for i := range x {
		x[i] = rand.Uint32()
	}
	want := runPaths(t, ps, compoundPostSrc, 1, []string{"x", "c", "d", "out"},
		[][]byte{interp.Encode(x), interp.Encode([]uint32{0, 0}), interp.Encode(d), interp.Poison(4 * 3)},
		map[string]bool{"x": true, "c": true, "out": true})
	got, err := interp.Decode[uint32](want["out"])
	if err != nil {
		t.Fatal(err)
	}
	// k: 0, 1, 3, 6 (three posts, c from 0 to 3); j: 100 divided by
	// d[0] + 3, + 4, ... until 0; every iteration ends in one post.
	c := uint32(3)
	for j := uint32(100); j > 0; c++ {
		j /= d[0] + c
	}
	if got[0] != c || got[1] != c || got[2] != 3 {
		t.Fatalf("interpreter: out = %v, want [%d %d 3]", got, c, c)
	}
	// The last loop's posts: x[1 + 8] += 4 (x[3] was 1), x[4 + 8] += 5,
	// x[5 + 8] += 6.
	gx, _ := interp.Decode[uint32](want["x"])
	if gx[9] != x[9]+4 || gx[12] != x[12]+5 || gx[13] != x[13]+6 || gx[15] != x[15]+5+6 {
		t.Fatalf("interpreter: x[9], x[12], x[13], x[15] = %d %d %d %d", gx[9], gx[12], gx[13], gx[15])
	}
}
