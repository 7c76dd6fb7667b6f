package ir_test

import (
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// langCases are the checker's errors for helper functions, structs,
// switch and constant arrays (format of checkCases).
var langCases = []checkCase{
	{"direct recursion", `fn f(x i32) i32 {
	return f(x - 1)
}

kernel k(y read_write []i32) workgroup(1) {
	y[0] = f(1)
}`, []string{
		"2:9: recursive call: f calls f at 2:9 (functions cannot be recursive)",
	}},
	{"indirect recursion", `fn f(x i32) i32 {
	return g(x)
}

fn g(x i32) i32 {
	if x > 0 {
		return f(x - 1)
	}
	return 0
}

kernel k(y read_write []i32) workgroup(1) {
	y[0] = f(1)
}`, []string{
		"7:10: recursive call: f calls g at 2:9, g calls f at 7:10 (functions cannot be recursive)",
	}},
	{"barrier in a function called from divergent flow", `fn sync() {
	workgroupBarrier()
}

kernel k(y read_write []f32) workgroup(64) {
	if global_id.x < u32(10) {
		sync()
	}
}`, []string{
		"7:3: call of sync reaches workgroupBarrier at 2:2, which must be called in uniform control flow: the condition at 6:5 depends on global_id",
	}},
	{"barrier in a function called from uniform flow", `fn sync(x f32) f32 {
	workgroupBarrier()
	return x
}

kernel k(y read_write []f32) workgroup(64) {
	y[global_id.x] = sync(y[global_id.x])
}`, []string{}},
	{"non-uniform result of a function", `fn id(x u32) u32 {
	return x
}

kernel k(y read_write []f32) workgroup(64) {
	if id(7) == u32(7) {
		workgroupBarrier()
	}
	if id(local_index) == u32(7) {
		workgroupBarrier()
	}
}`, []string{
		"10:3: workgroupBarrier must be called in uniform control flow: the condition at 9:5 depends on local_index",
	}},
	{"barrier after divergent return in a function", `fn f(i u32) {
	if i > u32(3) {
		return
	}
	workgroupBarrier()
}

fn g() {
	if local_index > u32(3) {
		return
	}
	workgroupBarrier()
}

kernel k() workgroup(64) {
	f(u32(1))
	f(local_index)
	g()
	g()
}`, []string{
		"5:2: workgroupBarrier must be called in uniform control flow: the return at 3:3 depends on local_index (in f, called at 17:2)",
		"12:2: workgroupBarrier must be called in uniform control flow: the return at 10:3 depends on local_index",
	}},
	{"own divergence reported once", `fn outer() {
	inner()
}

fn inner() {
	if local_index == u32(0) {
		workgroupBarrier()
	}
}

kernel k() workgroup(64) {
	outer()
	inner()
}`, []string{
		"7:3: workgroupBarrier must be called in uniform control flow: the condition at 6:5 depends on local_index",
	}},
	{"array lengths in fields and signatures name constants", `const N = 4

struct S {
	a [N]f32
	b [N + 1]u32
}

fn first(v [N]f32) [N + 1]u32 {
	var r [N + 1]u32
	r[0] = u32(v[0])
	return r
}

kernel k(y read_write []S) workgroup(1) {
	var s = y[0]
	s.b = first(s.a)
	y[0] = s
}`, []string{}},
	{"function call errors", `fn f(x f32, y read_write []f32) f32 {
	return x
}

kernel k(a read []f32, b read_write []f32, c read_write []i32) workgroup(1) {
	let u = f(1.0)
	let v = f(1.0, a)
	let w = f(1.0, c)
	let z = f(true, b)
	let q = g(1)
	let r = f
	f(1.0, b)
}`, []string{
		"6:10: not enough arguments in call to f: have 1, want 2",
		"7:17: cannot pass read-only buffer a to y read_write []f32 of f",
		"8:17: cannot use buffer c ([]i32) as []f32 in argument to f",
		"9:12: cannot use true (constant of type bool) as f32 value in argument to f",
		"10:10: undefined function: g",
		"11:10: f (function) used as a value: call it, as in f(...)",
	}},
	{"returns", `fn f() f32 {
	let x = 1.0
}

fn g() {
	return 1
}

fn h(a bool) f32 {
	if a {
		return 1.0
	}
	return
}

fn t(a bool) i32 {
	if a {
		return 1
	} else {
		return 2
	}
}

kernel k() workgroup(1) {
	return 1
}`, []string{
		"2:2: missing return at the end of function f",
		"6:2: too many return values: function g has no result",
		"13:2: not enough return values: function h returns f32",
		"25:2: too many return values: a kernel returns nothing",
	}},
	{"param is immutable", `fn f(x f32) f32 {
	x = 2.0
	return x
}

kernel k() workgroup(1) {
}`, []string{
		"2:2: cannot assign to x: x is a parameter",
	}},
	{"unknown field", `struct P {
	a f32
	b vec3<f32>
}

kernel k(y read_write []P) workgroup(1) {
	let p = y[0]
	y[0].c = 1.0
	let q = p.x
	let r = P{a: 1.0, c: 2.0}
	let s = P{a: 1.0, a: 2.0}
	let t = P{b: 1.0}
}`, []string{
		"8:6: y[0].c undefined (type P has no field c)",
		"9:11: p.x undefined (type P has no field x)",
		"10:23: unknown field c in struct literal of type P",
		"11:23: duplicate field name a in struct literal",
		"12:15: cannot use 1.0 (untyped float constant) as vec3<f32> value",
	}},
	{"struct with a bool in a buffer", `struct P {
	alive bool
	v f32
}

kernel k(y read_write []P) workgroup(1) {
}`, []string{
		"6:10: buffer y: element type P is not host-shareable (field alive of P: bool cannot be stored in a buffer; use u32)",
	}},
	{"struct declarations", `struct A {
	a f32
	a u32
}

struct B {
	c [2]C
}

struct C {
	b B
}

struct D {
	n atomic<u32>
}

kernel k() workgroup(1) {
}`, []string{
		"3:2: duplicate field a in struct A (previous declaration at t.kc:2:2)",
		"6:1: invalid recursive type B: B contains C contains B",
		"15:2: field n of struct D: atomic fields are not supported (use a buffer of atomics)",
	}},
	{"switch errors", `var s = 0
let v = i32(n)
switch n {
case 1, 2:
	s = 1
case 2:
	s = 2
case v:
	s = 3
case -1:
default:
default:
}
switch f {
case 1:
}
switch s {
case u32(1):
}`, []string{
		"7:7: duplicate case 2 in switch (previous case at t.kc:5:10)",
		"9:7: case v (variable of type i32) is not constant",
		"11:7: constant -1 overflows u32",
		"13:2: multiple defaults in switch (first at t.kc:12:2)",
		"15:9: switch on f (variable of type f32): the tag must be i32 or u32",
		"19:7: invalid case u32(1) in switch on i32 (mismatched types u32 and i32)",
	}},
	{"switch with break and continue", `var s = 0
for i := 0; i < 4; i++ {
	switch i {
	case 0:
		if s > 2 {
			break
		}
		s += 1
	case 1:
		continue
	default:
		s += 2
	}
}
switch s {
case 0:
	continue
}`, []string{
		"18:3: continue is not in a loop",
	}},
	{"switch on non-uniform tag with barrier", `switch local_index {
case u32(0):
	workgroupBarrier()
}`, []string{
		"4:3: workgroupBarrier must be called in uniform control flow: the switch tag at 2:9 depends on local_index",
	}},
	{"const array", `const W = [3]f32{1.0, 2.0, 3.0}
const B = [2]f32{1.0, n}
const C = [2]i32{1, 2, 3}

kernel k(n u32, y read_write []f32) workgroup(1) {
	y[0] = W[n] + W[2]
	let z = W[3]
	W[0] = 1.0
}`, []string{
		"2:23: undefined: n",
		"3:11: array literal [2]i32 has 3 elements, want 2",
		"7:12: invalid argument: index 3 out of bounds [0:3]",
		"8:2: cannot assign to W[0]: W is a constant",
	}},
}

func TestCheckLangErrors(t *testing.T) { runCheckCases(t, langCases) }

// TestSpecializeConstArray: -D cannot replace a constant array.
func TestSpecializeConstArray(t *testing.T) {
	m, err := parse.File("s.kc", []byte("const W = [2]f32{1.0, 2.0}\n\nkernel k(y read_write []f32) workgroup(1) {\n\ty[0] = W[1]\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = ir.Specialize(m, map[string]string{"W": "1"})
	if want := "s.kc:1:1: -D W=1: W is a constant array; -D defines scalar constants"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
