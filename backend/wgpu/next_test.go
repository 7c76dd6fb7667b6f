//go:build !js

package wgpu

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// Issue 12's constructs (functions, structs, switch, constant arrays,
// precise) through WGSL on wgpu beyond the corpus (whose kernels
// TestCorpus runs): issue 12's reproducer, and TestLangWGSL's kernels,
// against the interpreter on fresh random inputs with every read_write
// buffer poisoned before the dispatch. Buffers are compared by runspec
// (structs field by field, padding skipped).

// nextCase is the inputs of one kernel and its float bound.
type nextCase struct {
	params   map[string]ir.Value
	bufs     map[string][]byte
	grid     [3]int
	abs, rel float64 // floats within abs + rel*|want|
}

// TestReproducerWGSL runs issue 12's reproducer, x*x - y*y + c with x = y
// = 1 and c = 1e-8, through testdata/kernels/precise_diff.kc as WGSL on
// wgpu and logs what comes back: WGSL cannot forbid contraction or
// reassociation (semantics.md §9), so 0 is allowed here; the interpreter
// gives 1e-8.
func TestReproducerWGSL(t *testing.T) {
	d := openDevice(t)
	path := filepath.Join(kctest.Root(t), "testdata", "kernels", "precise_diff.kc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Load(path, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := backend.Emit(m, "precise_diff", backend.WGSL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Load(ctx, a)
	if err != nil {
		t.Fatalf("wgpu rejects the WGSL of precise_diff: %v\n%s", err, a.Code)
	}
	const n = 64
	x, c := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], c[i] = 1, 1e-8
	}
	fields, _ := ir.ParamsLayout(m.Kernels[0])
	if len(fields) != 1 {
		t.Fatalf("precise_diff has %d scalar parameters, want n only", len(fields))
	}
	var views []backend.View
	for _, data := range [][]byte{interp.Encode(x), interp.Encode(x), interp.Encode(c), interp.Poison(8 * n)} {
		buf, err := d.Upload(data)
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, buf.View())
	}
	if err := d.Dispatch(p, backend.Args{Params: []uint32{n}, Buffers: views}, backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	out, err := d.Read(ctx, views[3])
	if err != nil {
		t.Fatal(err)
	}
	exact, zero := 0, 0
	for i := 0; i < 2*n; i++ {
		switch math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])) {
		case 1e-8:
			exact++
		case 0:
			zero++
		default:
			t.Errorf("out[%d] = %g: neither 1e-8 nor 0", i, math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])))
		}
	}
	t.Logf("reproducer x*x - y*y + c (x = y = 1, c = 1e-8) through WGSL on %s: %d results 1e-8, %d results 0, of %d", d.Info().Name, exact, zero, 2*n)
}

// runNext dispatches c on the device and in the interpreter, compares
// every read_write buffer and returns the device's.
func runNext(t *testing.T, d *backend.Device, p *backend.Pipeline, m *ir.Module, k *ir.Kernel, c nextCase) map[string][]byte {
	t.Helper()
	want := map[string][]byte{}
	for name, b := range c.bufs {
		want[name] = bytes.Clone(b)
	}
	got := backendtest.Dispatch(t, d, p, k, c.params, c.bufs, c.grid)
	if err := interp.Run(m, k.Name, c.grid, &interp.Args{Params: c.params, Buffers: want}, interp.Options{SubgroupSize: 8}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	tol := runspec.Tol{Abs: c.abs, ULP: c.rel * 0x1p23}
	out := map[string][]byte{}
	for _, b := range ir.Buffers(k) {
		if b.Access != ir.ReadWrite {
			continue
		}
		out[b.Name] = got[b.Name]
		if msg := runspec.CompareBuffer(b.Type, got[b.Name], want[b.Name], func(int) runspec.Tol { return tol }, nil); msg != "" {
			t.Errorf("%s: buffer %s (grid %v, params %v): %s", k.Name, b.Name, c.grid, c.params, msg)
		}
	}
	return out
}

// langSrc holds further uses of issue 12's constructs for the differential
// test TestLangWGSL (after ir/interp's lang_test): struct results and
// struct locals holding bool and array fields, array values indexed at run
// time (a let, a value parameter, a struct field, a call result, a
// literal), early returns inside
// loops, shared-variable parameters, one function called with two
// different buffers (two WGSL copies), continue from inside a switch,
// builtins read inside functions, and calls with effects as select's
// operands (kc evaluates them in order, WGSL's select takes them reversed).
const langSrc = `
const W = [5]f32{0.0625, 0.25, 0.375, 0.25, 0.0625}
const TABLE = [2][3]i32{[3]i32{1, 2, 3}, [3]i32{-4, -5, -6}}

struct Acc {
	sum i32
	hits u32
	seen bool
	last [2]i32
}

struct Box {
	w [4]f32
	k u32
}

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

fn bump(tile shared [64]u32, i u32, v u32) {
	tile[i] = tile[i] + v
}

fn pick(a [4]f32, i u32) f32 {
	return a[i % 4]
}

fn lane() u32 {
	return local_index + 1000 * workgroup_id.x
}

fn at(b read []f32, i u32) f32 {
	return b[i]
}

fn put(y read_write []u32, i u32, v u32) u32 {
	y[i] = v
	return v + 1
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
	out[4 * i + 2] = acc.last[1] + p[x[i] % 2]
	out[4 * i + 3] = TABLE[i % 2][x[i] % 3]
	tile[local_index] = 0
	workgroupBarrier()
	bump(tile, (local_index + 1) % 64, x[i] % 16)
	workgroupBarrier()
	aux[2 * i] = tile[local_index]
	aux[2 * i + 1] = firstAbove(x, i, 3000000000)
}

kernel more(n u32, x read []u32, f read []f32, y read_write []u32, z read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= n {
		return
	}
	let b = Box{w: [4]f32{f[i], 2.0, 3.0, -1.0}, k: x[i]}
	z[i] = b.w[b.k % 4] + pick(b.w, x[i] >> 3)
	z[i] += at(f, (i + 1) % n) + at(z, i)
	var acc = u32(0)
	for k := u32(0); k < 6; k++ {
		switch (x[i] + k) % 4 {
		case 0:
			continue
		case 1, 2:
			acc += k
		}
		acc += 100
	}
	y[3 * i] = acc + lane() + u32(pair(i32(x[i] % 100))[x[i] % 2] + [3]i32{1, 2, 3}[i % 3])
	y[3 * i + 2] = select(x[i] % 2 == 0, put(y, 3 * i + 1, 7), put(y, 3 * i + 1, 9))
}
`

// unitRange fills floats uniform in [-1, 1).
var unitRange = directive.Fill{Mode: "range", Lo: -1, Hi: 1}

// TestLangWGSL runs langSrc's kernels through WGSL on wgpu against the
// interpreter.
func TestLangWGSL(t *testing.T) {
	d := openDevice(t)
	m, err := parse.Load("lang.kc", []byte(langSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rng(t)
	const groups = 3
	n := 64 * groups
	x := make([]uint32, n+8)
	for i := range x {
		x[i] = r.Uint32()
		if r.IntN(3) == 0 {
			x[i] %= 200 // small values reach the break in classify's case 2
		}
	}
	cases := map[string]nextCase{
		"lang": {
			params: map[string]ir.Value{"n": ir.IntVal(int64(n))},
			bufs: map[string][]byte{"x": interp.Encode(x), "f": runspec.FillBuffer(r, unitRange, ir.F32, n),
				"out": interp.Poison(16 * n), "blur": interp.Poison(4 * n), "aux": interp.Poison(8 * n)},
			grid: [3]int{groups, 1, 1},
			abs:  5 * 0x1p-23, // five products of magnitude <= 1, as blur_const
		},
		"more": {
			params: map[string]ir.Value{"n": ir.IntVal(int64(n - 5))},
			bufs: map[string][]byte{"x": interp.Encode(x), "f": runspec.FillBuffer(r, unitRange, ir.F32, n),
				"y": interp.Poison(12 * n), "z": interp.Poison(4 * n)},
			grid: [3]int{groups, 1, 1},
		},
	}
	for _, k := range m.Kernels {
		t.Run(k.Name, func(t *testing.T) {
			a, err := backend.Emit(m, k.Name, backend.WGSL)
			if err != nil {
				t.Fatal(err)
			}
			p, err := d.Load(ctx, a)
			if err != nil {
				t.Fatalf("wgpu rejects the WGSL of %s: %v\n%s", k.Name, err, a.Code)
			}
			c := cases[k.Name]
			bufs := map[string][]byte{}
			for name, b := range c.bufs {
				bufs[name] = bytes.Clone(b)
			}
			c.bufs = bufs
			runNext(t, d, p, m, k, c)
		})
	}
}
