package wgsl_test

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
)

// Issue 12's constructs in unit sources: TestUnitTint validates them with
// Tint and naga 30 along with the others; backend/wgpu's TestNextWGSL and
// TestLangWGSL run them on lavapipe.
func init() {
	unitSources["lang12"] = `const TAPS = [3]f32{0.25, 0.5, 0.25}

struct Cell {
	pos vec3<f32>
	alive bool
	hist [2]u32
}

struct Pair {
	a vec3<f32>
	b f32
}

fn lane() u32 {
	return local_index
}

precise fn mix3(v [3]f32, i u32) f32 {
	return v[i % 3] * TAPS[i % 3]
}

fn tally(bins shared [4]atomic<u32>, out read_write []u32, i u32) {
	atomicAdd(bins[i % 4], 1)
	out[i] = lane()
}

kernel first(n u32, ps read_write []Pair, out read_write []u32) workgroup(32) {
	shared bins [4]atomic<u32>
	let i = global_id.x
	var c = Cell{alive: i < n}
	c.hist[lane() % 2] = 3
	let w = [3]f32{1.0, 2.0, 3.0}
	switch i32(i) - 4 {
	case -1, -2:
		c.pos = vec3<f32>(mix3(w, i))
	}
	tally(bins, out, i)
	if c.alive {
		ps[i] = Pair{a: c.pos, b: f32(c.hist[i % 2])}
	}
}

fn size(x read_write []Pair) u32 {
	return len(x)
}

kernel second(ys read_write []Pair, out read_write []u32) workgroup(16) {
	lane()
	out[0] = size(ys)
	shared bins [4]atomic<u32>
	let i = global_id.x
	tally(bins, out, i + lane())
	ys[i].b += mix3([3]f32{ys[i].a.x, ys[i].a.y, ys[i].b}, lane())
	ys[i].a.x = [2]f32{1.0, 2.0}[i % 2] + [2]f32{3.0, 4.0}[1]
}
`
	// A barrier under a condition on workgroup_id inside a function: uniform
	// for kc and, with the builtin passed as a parameter, for Tint (a
	// var<private> copy would be taken for non-uniform).
	unitSources["lang12_uniform"] = `fn g(t shared [64]f32) {
	if workgroup_id.x > 0 {
		workgroupBarrier()
		t[0] = 1.0
	}
}

kernel k(y read_write []f32) workgroup(64) {
	shared t [64]f32
	g(t)
	y[global_id.x] = t[0]
}
`
	unitSources["lang12_nested"] = `struct A {
	x f32
	bs [2]B
}

struct B {
	v vec3<f32>
	n u32
}

kernel k(y read_write []A) workgroup(64) {
	let i = global_id.x
	y[i].bs[1].n += 1
	y[i].x = y[i].bs[0].v.y
}
`
}

// TestStructOrder: a struct is declared after the structs it holds.
func TestStructOrder(t *testing.T) {
	code := string(emitSrc(t, "lang12_nested").Code)
	a, b := strings.Index(code, "struct A {"), strings.Index(code, "struct B {")
	if a < 0 || b < 0 || b > a {
		t.Errorf("want struct B before struct A in\n%s", code)
	}
}

// TestLangSpelling checks the WGSL of functions, structs, switch, constant
// arrays and precise (docs/lowering-12.md): two kernels share function
// sources but get their own copies, prefixed; builtins reach functions as
// trailing parameters, through callers that pass them on; a switch
// without default gets one; array values indexed at run time are vars or
// go through a helper (naga v0.19).
func TestLangSpelling(t *testing.T) {
	a := emitSrc(t, "lang12")
	wantLines(t, a,
		"var<private> TAPS: array<f32, 3> = array<f32, 3>(0.25f, 0.5f, 0.25f);",
		"// size 32, align 16: pos@0 alive@12 hist@16",
		"struct Cell {",
		"alive: bool,",
		"hist: array<u32, 2>,",
		"// size 16, align 16: a@0 b@12",
		"fn first_lane(local_index: u32) -> u32 {",
		"return local_index;",
		"// precise: WGSL cannot forbid contraction; a consumer may fuse a*b+c here",
		"fn first_mix3(v: array<f32, 3>, i: u32) -> f32 {",
		"var v_1: array<f32, 3> = v;",
		"return v_1[i % 3u] * TAPS[i % 3u];",
		"// tally with bins = first_bins, out = first_out",
		"fn first_tally(i: u32, local_index: u32) {",
		"atomicAdd(&first_bins[i % 4u], 1u);",
		"first_out[i] = first_lane(local_index);",
		"var c: Cell = Cell(vec3<f32>(), (i < first_params.n), array<u32, 2>());",
		"var w: array<f32, 3> = array<f32, 3>(1.0f, 2.0f, 3.0f);",
		"switch i32(i) - 4i {",
		"case -1i, -2i: {",
		"default: {}",
		"c.pos = vec3<f32>(first_mix3(w, i));",
		"first_tally(i, local_index);",
		"first_ps[i] = Pair(c.pos, f32(c.hist[i % 2u]));",
		"fn second_lane(local_index: u32) -> u32 {",
		"second_lane(local_index);",
		"return arrayLength(&second_ys);",
		"second_out[0i] = second_size();",
		"second_tally(i + second_lane(local_index), local_index);",
		"second_ys[i].b += second_mix3(array<f32, 3>(second_ys[i].a.x, second_ys[i].a.y, second_ys[i].b), second_lane(local_index));",
		"second_ys[i].a.x = kc_index_arr2_f32_u32(array<f32, 2>(1.0f, 2.0f), i % 2u) + array<f32, 2>(3.0f, 4.0f)[1i];",
		"fn kc_index_arr2_f32_u32(a: array<f32, 2>, i: u32) -> f32 {",
	)
	// A kernel alone keeps its names unprefixed.
	one, err := wgsl.Emit(parseSrc(t, "lang12.kc", unitSources["lang12"]), wgsl.Options{Kernel: "second"})
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, one, "fn lane(local_index: u32) -> u32 {", "tally(i + lane(local_index), local_index);")
	if strings.Contains(string(one.Code), "Cell") {
		t.Errorf("the second kernel alone does not use Cell, but it is declared:\n%s", one.Code)
	}
}
