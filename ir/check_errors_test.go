package ir_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkCases are .kc snippets with every error Check must report, exactly
// (line:col: message; a case without a kernel line is wrapped in the
// kernel of testHeader, so its first line is line 2).
var checkCases = []struct {
	name string
	src  string
	want []string
}{
	{"undefined name", `let a = zz`, []string{
		"2:10: undefined: zz",
	}},
	{"redeclared local", `let a = 1
var a = 2`, []string{
		"3:2: a redeclared in this block (previous declaration at t.kc:2:2)",
	}},
	{"redeclared param", `kernel k(n u32, n f32) workgroup(1) {
}`, []string{
		"1:17: n redeclared in this block (previous declaration at t.kc:1:10)",
	}},
	{"shared vs param", `kernel k(n u32) workgroup(1) {
	shared n [4]f32
}`, []string{
		"2:2: n redeclared in this block (previous declaration at t.kc:1:10)",
	}},
	{"body local redeclares param", `let n = 1`, []string{
		"2:2: n redeclared in this block (previous declaration at t.kc:1:10)",
	}},
	{"shadowing in nested block is fine", `let a = 1
{
	let a = 2.0
	let b = a * f
}`, []string{}},
	{"for variable scoped to the for", `for i := 0; i < 4; i++ {
	let i = 2
}
let j = i`, []string{
		"5:10: undefined: i",
	}},
	{"duplicate kernel", `kernel k() workgroup(1) {
}
kernel k() workgroup(1) {
}`, []string{
		"3:1: kernel k redeclared (previous declaration at t.kc:1:1)",
	}},
	{"duplicate const", `const A = 1
const A = 2
kernel k() workgroup(1) {
}`, []string{
		"2:1: A redeclared in this block (previous declaration at t.kc:1:1)",
	}},
	{"let before use refers to outer", `let a = 1
{
	let a = a + 1
}`, []string{}},
	{"untyped to u32 overflows", `var a u32 = -1`, []string{
		"2:14: constant -1 overflows u32",
	}},
	{"big shift to i32", `let a i32 = 1 << 40`, []string{
		"2:16: constant 1099511627776 overflows i32",
	}},
	{"untyped shift intermediate must fit the type", `let a = (1 << 40) >> 20`, []string{
		"2:13: constant 1099511627776 overflows i32",
	}},
	{"float to int truncated", `let a i32 = 2.5`, []string{
		"2:14: constant 2.5 truncated to i32",
	}},
	{"float to int integral ok", `let a i32 = 2.0`, []string{}},
	{"no implicit conversion", `let a f32 = n`, []string{
		"2:14: cannot use n (variable of type u32) as f32 value in variable declaration",
	}},
	{"mixed arithmetic", `let a = n + f`, []string{
		"2:12: invalid operation: n + f (mismatched types u32 and f32)",
	}},
	{"vector scalar mix", `let v = vec4<f32>(1.0) * f
let w = f * vec4<f32>(1.0)
let z = vec4<f32>(1.0) / 2.0`, []string{}},
	{"vector width mismatch", `let v = vec4<f32>(1.0) + vec2<f32>(1.0)`, []string{
		"2:25: invalid operation: vec4<f32>(1.0) + vec2<f32>(1.0) (mismatched types vec4<f32> and vec2<f32>)",
	}},
	{"float remainder allowed", `let a = f % 2.0`, []string{}},
	{"bitwise on float", `let a = f & f`, []string{
		"2:12: invalid operation: operator & not defined on f (variable of type f32)",
	}},
	{"bitwise vector scalar", `let a = vec2<u32>(n) & n`, []string{
		"2:23: invalid operation: vec2<u32>(n) & n (mismatched types vec2<u32> and u32)",
	}},
	{"shift amount untyped becomes u32", `let a = n << 3
let b = iv[0] >> 1`, []string{}},
	{"shift amount i32", `let a = n << iv[0]`, []string{
		"2:17: invalid operation: shift amount iv[0] (value of type i32) must be u32",
	}},
	{"shift amount too big", `let a = n << 32`, []string{
		"2:15: invalid operation: shift amount 32 out of range (must be less than 32)",
	}},
	{"vector shift needs vector amount", `let a = vec2<u32>(n) << n
let b = vec2<u32>(n) << vec2<u32>(1, 2)`, []string{
		"2:26: invalid operation: shift amount n (variable of type u32) must be vec2<u32>",
	}},
	{"comparison mismatched", `let a = n < iv[0]`, []string{
		"2:12: invalid operation: n < iv[0] (mismatched types u32 and i32)",
	}},
	{"comparison bool ordering", `let a = true < false
let b = true == false`, []string{
		"2:15: invalid operation: operator < not defined on true (constant of type bool)",
	}},
	{"comparison vectors", `let a = vec2<f32>(1.0) == vec2<f32>(1.0)
let b = vec2<f32>(f) < f
let c = vec2<u32>(n) < vec3<u32>(n)
let d = a < a
let e = all(a) && any(a == !a) && all(true)
let g = all(n)
let hh = any(vec2<u32>(n))
let i = select(a, vec3<f32>(f), vec3<f32>(1.0))
let j = select(a, vec2<f32>(f), vec2<f32>(1.0)).x + select(a.x, 1.0, f)
var k vec4<bool> = vec4<f32>(f) >= vec4<f32>(0.5)`, []string{
		"3:23: invalid operation: vec2<f32>(f) < f (mismatched types vec2<f32> and f32)",
		"4:23: invalid operation: vec2<u32>(n) < vec3<u32>(n) (mismatched types vec2<u32> and vec3<u32>)",
		"5:12: invalid operation: operator < not defined on a (variable of type vec2<bool>)",
		"7:14: invalid argument: all requires a bool vector or bool, not n (variable of type u32)",
		"8:15: invalid argument: any requires a bool vector or bool, not vec2<u32>(n) (value of type vec2<u32>)",
		"9:17: invalid argument: select condition a (variable of type vec2<bool>) has 2 components, the values vec3<f32> 3",
	}},
	{"logical needs bool", `let a = n && true`, []string{
		"2:10: invalid operation: operator && not defined on n (variable of type u32)",
	}},
	{"unary minus on u32", `let a = -n`, []string{
		"2:10: invalid operation: operator - not defined on n (variable of type u32)",
	}},
	{"not on int", `let a = !n`, []string{
		"2:10: invalid operation: operator ! not defined on n (variable of type u32)",
	}},
	{"bitnot on float", `let a = ^f`, []string{
		"2:10: invalid operation: operator ^ not defined on f (variable of type f32)",
	}},
	{"division by constant zero", `let a = n / 0
let b = n % 0`, []string{
		"2:14: invalid operation: division by zero",
		"3:14: invalid operation: division by zero",
	}},
	{"typed constant overflow", `let a = u32(0) - 1
let b = i32(2147483647) + 1`, []string{
		"2:17: constant -1 overflows u32",
		"3:26: constant 2147483648 overflows i32",
	}},
	{"intrinsic arity", `let a = min(f)
let b = max(f, f, f)`, []string{
		"2:10: not enough arguments in call to min (have 1, want 2)",
		"3:10: too many arguments in call to max (have 3, want 2)",
	}},
	{"intrinsic types", `let a = sqrt(n)
let b = countOneBits(f)
let c = sign(n)
let d = abs(true)`, []string{
		"2:10: invalid argument: sqrt requires a float scalar or vector, not u32",
		"3:10: invalid argument: countOneBits requires an i32 or u32 scalar or vector, not f32",
		"4:10: invalid argument: sign requires a float or i32 scalar or vector, not u32",
		"5:10: invalid argument: abs requires a numeric scalar or vector, not bool",
	}},
	{"intrinsic untyped defaults", `let a = sqrt(4)
let b = min(1, 2)
let c = max(1, 2.5)`, []string{}},
	{"select", `let a = select(f > 0.0, 1.0, 2.0)
let b = select(1, 2, 3)
let c = select(true, n, f)`, []string{
		"3:17: invalid argument: select condition 1 (untyped int constant) must be bool or a bool vector",
		"4:26: cannot use f (variable of type f32) as u32 value in argument to select",
	}},
	{"mix scalar third", `let a = mix(vec2<f32>(1.0), vec2<f32>(2.0), 0.5)
let b = mix(vec2<f32>(1.0), vec2<f32>(2.0), f)`, []string{}},
	{"dot", `let a = dot(vec3<f32>(1.0), vec3<f32>(2.0))
let b = dot(f, f)`, []string{
		"3:10: invalid argument: dot requires numeric vectors, not f32",
	}},
	{"atomics ok", `atomicAdd(h[0], 1)
let a = atomicLoad(h[1])
atomicStore(h[2], a + 1)
let b = atomicExchange(h[3], n)`, []string{}},
	{"atomic misuse", `let a = h[0]
h[1] = 2
let b = atomicAdd(y[0], 1.0)
atomicAdd(h, 1)`, []string{
		"2:11: cannot use h[0] (atomic<u32>) as a value: use atomicLoad",
		"3:2: cannot assign to h[1] (atomic<u32>): use atomicStore",
		"4:21: invalid argument: atomicAdd requires an atomic location, not y[0] (value of type f32)",
		"5:12: invalid argument: atomicAdd requires an atomic location, not buffer h (index it: h[i])",
	}},
	{"atomic shared", `kernel k() workgroup(64) {
	shared s atomic<i32>
	shared arr [4]atomic<u32>
	atomicAdd(s, -1)
	atomicOr(arr[local_index % 4], 1)
	let v = arr[0]
}`, []string{
		"6:13: cannot use arr[0] (atomic<u32>) as a value: use atomicLoad",
	}},
	{"atomic in read buffer", `kernel k(h read []atomic<u32>) workgroup(1) {
	let a = atomicLoad(h[0])
}`, []string{
		"1:10: buffer h: atomic elements need read_write access",
	}},
	{"atomicStore has no value", `let a = atomicStore(h[0], 1)`, []string{
		"2:10: atomicStore(h[0], 1) (no value) used as value",
	}},
	{"value not used", `sqrt(f)
atomicLoad(h[0])`, []string{
		"2:2: sqrt(f) (value of type f32) is not used",
		"3:2: atomicLoad(h[0]) (value of type u32) is not used",
	}},
	{"subgroup broadcast lane constant", `enable subgroups
kernel k(x read_write []f32) workgroup(64) {
	let v = x[0]
	let a = subgroupBroadcast(v, 3)
	let b = subgroupBroadcast(v, local_index)
	let c = subgroupShuffle(v, local_index)
	let d = subgroupBroadcast(v, 200)
	let e = subgroupBallot(v > 0.0)
	let g = subgroupAll(v)
	let h = subgroupElect()
	let i = subgroupAnd(v)
}`, []string{
		"5:31: subgroupBroadcast lane local_index must be a constant",
		"7:31: subgroupBroadcast lane 200 must be below 128",
		"9:22: invalid argument: subgroupAll requires a bool, not v (variable of type f32)",
		"11:10: invalid argument: subgroupAnd requires an i32 or u32 scalar or vector, not f32",
	}},
	{"index types", `let a = x[f]
let b = x[iv[0]]
let c = x[n]
let d = x[-1]`, []string{
		"2:12: invalid argument: index f (variable of type f32) must be i32 or u32",
		"5:12: invalid argument: index -1 out of bounds",
	}},
	{"constant index out of range", `let v = vec3<f32>(1.0)
let a = v[3]
var arr [4]u32
let b = arr[4]
let c = arr[3]`, []string{
		"3:12: invalid argument: index 3 out of bounds [0:3]",
		"5:14: invalid argument: index 4 out of bounds [0:4]",
	}},
	{"index non-indexable", `let a = f[0]`, []string{
		"2:10: invalid operation: cannot index f (variable of type f32)",
	}},
	{"swizzle", `let v = vec3<f32>(1.0)
let a = v.xy
let b = v.w
let c = f.x`, []string{
		"4:11: invalid swizzle .w: vec3<f32> has no component 'w'",
		"5:11: invalid operation: f (variable of type f32) has no components (.x)",
	}},
	{"len", `let a = len(x)
let b = len(n)`, []string{
		"3:14: invalid argument: n (variable of type u32) for built-in len (not a buffer)",
	}},
	{"buffer as value", `let a = x
let b = x + 1.0`, []string{
		"2:10: cannot use buffer x as a value (index it: x[i])",
		"3:10: cannot use buffer x as a value (index it: x[i])",
	}},
	{"convert", `let a = f32(n)
let b = u32(-1)
let c = i32(2.5)
let d = bool(n)
let e = u32(true)
let g = f32(vec2<f32>(1.0))`, []string{
		"3:14: constant -1 overflows u32",
		"4:14: constant 2.5 truncated to i32",
		"7:10: cannot convert vec2<f32>(1.0) (value of type vec2<f32>) to type f32 (convert vectors with vecN<f32>(v))",
	}},
	{"construct", `let a = vec3<f32>(1.0, 2.0)
let b = vec3<f32>(vec2<f32>(1.0), 3.0)
let c = vec4<f32>(1.0, 2.0, 3.0, 4.0, 5.0)
let d = vec2<i32>(vec2<f32>(1.5))
let e = vec2<i32>(vec3<f32>(1.5))
let g = vec2<f32>(n, n)`, []string{
		"2:10: vec3<f32>(1.0, 2.0) has 2 components, want 3",
		"4:10: vec4<f32>(1.0, 2.0, 3.0, 4.0, 5.0) has 5 components, want 4",
		"6:10: cannot convert vec3<f32>(1.5) (value of type vec3<f32>) to vec2<i32> (width 3, want 2)",
		"7:20: cannot use n (variable of type u32) as a component of vec2<f32>",
	}},
	{"bitcast", `let a = bitcast<u32>(f)
let b = bitcast<vec2<f32>>(vec2<i32>(1))
let c = bitcast<vec2<f32>>(f)
let d = bitcast<u32>(true)`, []string{
		"4:10: cannot bitcast f (variable of type f32) to vec2<f32>",
		"5:10: cannot bitcast true (constant of type bool) to u32",
	}},
	{"bitcast f16 pairs", `enable f16
kernel k(n u32) workgroup(1) {
	let a = bitcast<vec2<f16>>(n)
	let b = bitcast<u32>(vec2<f16>(1.0))
	let c = bitcast<vec4<f16>>(vec2<f32>(1.0))
	let d = bitcast<f16>(n)
}`, []string{
		"6:10: cannot bitcast n (variable of type u32) to f16",
	}},
	{"assign let", `let a = 1
a = 2`, []string{
		"3:2: cannot assign to a: a is declared with let",
	}},
	{"assign param", `n = 2`, []string{
		"2:2: cannot assign to n: n is a parameter",
	}},
	{"assign const", `const C = 1
kernel k() workgroup(1) {
	C = 2
}`, []string{
		"3:2: cannot assign to C: C is a constant",
	}},
	{"assign read buffer", `x[0] = 1.0`, []string{
		"2:2: cannot assign to x[0]: buffer x is read-only (declared read)",
	}},
	{"assign buffer itself", `y = 1.0`, []string{
		"2:2: cannot assign to y: buffer y must be indexed",
	}},
	{"assign builtin", `global_id = vec3<u32>(1)`, []string{
		"2:2: cannot assign to global_id: global_id is a builtin value",
	}},
	{"assign multi swizzle", `var v = vec2<f32>(1.0)
v.x = 2.0
v.xy = vec2<f32>(1.0)`, []string{
		"4:2: cannot assign to v.xy: only a single vector component can be assigned",
	}},
	{"assign mismatched", `var a = 1
a = 2.5
a = n`, []string{
		"3:6: constant 2.5 truncated to i32",
		"4:6: cannot use n (variable of type u32) as i32 value in assignment",
	}},
	{"compound ok", `var a = 1
a += 2
a <<= 1
var v = vec2<f32>(1.0)
v *= 2.0
v += vec2<f32>(1.0)
y[0] -= f`, []string{}},
	{"compound mismatched result", `var a = 1.0
a += vec2<f32>(1.0)`, []string{
		"3:2: invalid operation: a += vec2<f32>(1.0) (result of type vec2<f32> cannot be assigned to f32)",
	}},
	{"compound on let", `let a = 1
a += 1`, []string{
		"3:2: cannot assign to a: a is declared with let",
	}},
	{"break outside loop", `break
continue`, []string{
		"2:2: break is not in a loop",
		"3:2: continue is not in a loop",
	}},
	{"for init must be var with init", `for i := 0; i < 4; i++ {
}`, []string{}},
	{"if condition not bool", `if n {
}
for n {
}`, []string{
		"2:5: non-boolean condition in if statement",
		"4:6: non-boolean condition in for statement",
	}},
	{"workgroup limits", `kernel k() workgroup(2048) {
}`, []string{
		"1:22: workgroup size x = 2048 exceeds 1024 (the language's limit)",
	}},
	{"workgroup y z limits", `kernel k() workgroup(1, 1100, 65) {
}`, []string{
		"1:25: workgroup size y = 1100 exceeds 1024 (the language's limit)",
		"1:31: workgroup size z = 65 exceeds 64 (the language's limit)",
	}},
	{"workgroup product", `kernel k() workgroup(32, 64) {
}`, []string{
		"1:1: workgroup size 32x64x1 = 2048 invocations exceeds 1024 (the language's limit)",
	}},
	{"workgroup of 1024 (CUDA's 32x32 block)", `kernel k() workgroup(32, 32) {
}`, []string{}},
	{"geometry intrinsics misused", `let v = vec4<f32>(f)
let a = length(n)
let b = cross(v.xy, v.xy)
let c = normalize(f)
let d = distance(v, v.xyz)
let e = reflect(v, 1)
let g = step(1, n)
let ok = length(v) + distance(f, 1.0) + cross(v.xyz, v.zyx).x + reflect(v, v).w + smoothstep(0.0, 1.0, f) + atan2(f, 1.0)`, []string{
		"3:10: invalid argument: length requires a float scalar or vector, not u32",
		"4:10: invalid argument: cross requires vec3 of a float type, not vec2<f32>",
		"5:10: invalid argument: normalize requires a float vector, not f32",
		"6:23: cannot use v.xyz (value of type vec3<f32>) as vec4<f32> value in argument to distance",
		"7:21: cannot use 1 (untyped int constant) as vec4<f32> value",
		"8:10: invalid argument: step requires a float scalar or vector, not u32",
	}},
	{"packing intrinsics misused", `let v = vec4<f32>(f)
let a = pack4x8snorm(v.xyz)
let b = pack2x16float(v)
let c = unpack4x8unorm(f)
let d = pack4x8unorm(vec4<i32>(1))
let ok = pack4x8snorm(v) + pack4x8unorm(v) + pack2x16float(v.xy) + bitcast<u32>(unpack4x8snorm(n).x + unpack2x16float(1).y)`, []string{
		"3:24: cannot use v.xyz (value of type vec3<f32>) as vec4<f32> value in argument to pack4x8snorm",
		"4:24: cannot use v (variable of type vec4<f32>) as vec2<f32> value in argument to pack2x16float",
		"5:25: cannot use f (variable of type f32) as u32 value in argument to unpack4x8unorm",
		"6:23: cannot use vec4<i32>(1) (value of type vec4<i32>) as vec4<f32> value in argument to pack4x8unorm",
	}},
	{"bit-field intrinsics misused", `let a = extractBits(f, 1, 2)
let b = extractBits(n, -1, 2)
let c = insertBits(n, 1.5, 0, 4)
let d = insertBits(n, iv[0], 0, 4)
let e = extractBits(n, 1, f)
let ok = extractBits(n, 1, 2) + bitcast<u32>(insertBits(iv[0], -1, 3, 40)) + extractBits(vec2<u32>(n), n, n).y`, []string{
		"2:10: invalid argument: extractBits requires an i32 or u32 scalar or vector, not f32",
		"3:25: constant -1 overflows u32",
		"4:24: constant 1.5 truncated to u32",
		"5:26: cannot use iv[0] (value of type i32) as u32 value in argument to insertBits",
		"6:28: cannot use f (variable of type f32) as u32 value in argument to extractBits",
	}},
	{"compare-exchange misused", `let r = atomicCompareExchangeWeak(h[0], 1, 2)
let a = r.old_value + u32(r.exchanged)
let b = r.x
var c = atomicCompareExchangeWeak(h[0], 1, 2)
let d = atomicCompareExchangeWeak(iv[0], 1, 2)
let e = atomicCompareExchangeWeak(h[0], f, 2)
let g = atomicCompareExchangeWeak(h[0], 1)
y[0] = r
let k = r.old_value.x`, []string{
		"4:11: r (variable of type atomic_compare_exchange_result<u32>) has no field x (it has old_value and exchanged)",
		"5:2: var c cannot hold the result of atomicCompareExchangeWeak: bind it with let",
		"6:38: invalid argument: atomicCompareExchangeWeak requires an atomic location, not iv[0] (value of type i32)",
		"7:42: cannot use f (variable of type f32) as u32 value in argument to atomicCompareExchangeWeak",
		"8:10: not enough arguments in call to atomicCompareExchangeWeak (have 2, want 3)",
		"9:9: cannot use r (variable of type atomic_compare_exchange_result<u32>) as f32 value in assignment",
		"10:21: invalid operation: r.old_value (value of type u32) has no components (.x)",
	}},
	{"packed dot products misused", `let a = dot4I8Packed(n, f)
let b = dot4U8Packed(vec2<u32>(n), n)
let c = dot4I8Packed(n)
let ok = dot4I8Packed(n, 0x01020304) + bitcast<i32>(dot4U8Packed(n, n))`, []string{
		"2:10: dot4I8Packed used without `enable packed_4x8_integer_dot_product`",
		"2:26: cannot use f (variable of type f32) as u32 value in argument to dot4I8Packed",
		"3:23: cannot use vec2<u32>(n) (value of type vec2<u32>) as u32 value in argument to dot4U8Packed",
		"4:10: not enough arguments in call to dot4I8Packed (have 1, want 2)",
	}},
	{"packed dot products enabled", `enable packed_4x8_integer_dot_product
kernel k(n u32, y read_write []i32) workgroup(1) {
	y[0] = dot4I8Packed(n, n) + bitcast<i32>(dot4U8Packed(n, 0x01010101))
}`, []string{}},
	{"workgroup zero", `kernel k() workgroup(0) {
}`, []string{
		"1:22: workgroup size x = 0 must be at least 1",
	}},
	{"workgroup not constant", `kernel k(n u32) workgroup(n) {
}`, []string{
		"1:27: workgroup size n (variable of type u32) is not constant",
	}},
	{"workgroup float", `kernel k() workgroup(1.5) {
}`, []string{
		"1:22: workgroup size 1.5 (untyped float constant) must be an integer",
	}},
	{"shared memory limit", `kernel k() workgroup(1) {
	shared a [16384]vec4<f32>
	shared b [4]f32
	shared c [4]f32
}`, []string{
		"3:2: shared memory: b brings the total to 262160 bytes, over 262144 (the language's limit; devices allow less: the backend checks each device's maxComputeSharedMemorySize)",
	}},
	{"array length const", `const N = 4
kernel k() workgroup(1) {
	shared a [N * 2]f32
	var b [N]i32
	var c [0]f32
}`, []string{
		"5:9: invalid array length 0 (must be 1 to 65535)",
	}},
	{"array too long for Tint", `var big [65536]f32
var ok [65535]u32`, []string{
		"2:11: invalid array length 65536 (must be 1 to 65535)",
	}},
	{"array length from param", `kernel k(n u32) workgroup(1) {
	var c [n]f32
}`, []string{
		"2:9: array length n (variable of type u32) is not constant",
	}},
	{"param types", `kernel k(a f16, b bool, c vec2<f32>) workgroup(1) {
}`, []string{
		"1:10: parameter a: f16 params are not supported; pass f16 data in a buffer",
		"1:17: parameter b: scalar parameters must be i32, u32 or f32, not bool",
		"1:25: parameter c: scalar parameters must be i32, u32 or f32, not vec2<f32>",
	}},
	{"buffer bool", `kernel k(b read []bool) workgroup(1) {
}`, []string{
		"1:10: buffer b: element type bool is not host-shareable (bool cannot be stored in a buffer; use u32)",
	}},
	{"f16 without enable", `kernel k(a read []f16) workgroup(1) {
	let x = a[0]
}`, []string{
		"1:10: f16 used without `enable f16`",
	}},
	{"f16 literal context without enable", `kernel k() workgroup(1) {
	let x = f16(1.0)
}`, []string{
		"2:10: f16 used without `enable f16`",
	}},
	{"subgroups without enable", `kernel k() workgroup(1) {
	let a = subgroup_size
	let b = subgroup_invocation_id
}`, []string{
		"2:10: subgroup_size used without `enable subgroups`",
	}},
	{"local atomic", `kernel k() workgroup(1) {
	var a atomic<u32>
}`, []string{
		"2:2: variable a: atomic types can only be used in read_write buffers and shared memory",
	}},
	{"f16 constant without enable", `const H f16 = 1.5
kernel k() workgroup(1) {
}`, []string{
		"1:1: f16 used without `enable f16`",
	}},
	{"subgroup intrinsic without enable", `kernel k(x read_write []f32) workgroup(64) {
	x[0] = subgroupAdd(x[1])
	x[1] = subgroupMax(x[2])
}`, []string{
		"2:9: subgroupAdd used without `enable subgroups`",
	}},
	{"typed constant used in context", `const B u32 = 4
const S = B * 2
kernel k(x read_write []f32, n i32) workgroup(S) {
	x[0] = f32(B)
	let a = n + B
}`, []string{
		"5:12: invalid operation: n + B (mismatched types i32 and u32)",
	}},
	{"untyped constant takes each context's type", `const T = 16
kernel k(x read_write []f32, n i32, m u32) workgroup(T) {
	x[0] = f32(n + T) + f32(m * T) + x[1] * T
}`, []string{}},
	{"untyped float constant to integer contexts", `const F = 2.5
const G = 4.0
kernel k(n i32) workgroup(1) {
	let a = n + G
	let b = n + F
}`, []string{
		"5:14: constant F (2.5) truncated to i32",
	}},
	{"const checks", `const A = B * 2
const B = 3
const C = C + 1
const D f32 = 1
const E u32 = -3
const G = 1 / 0
const H = n
kernel k(n u32) workgroup(A) {
}`, []string{
		"3:1: initialization cycle: constant C refers to itself",
		"5:15: constant -3 overflows u32",
		"6:13: invalid operation: division by zero",
		"7:11: undefined: n",
	}},
	{"const non scalar type", `const V vec2<f32> = 1.0
kernel k() workgroup(1) {
}`, []string{
		"1:1: constant V: type vec2<f32> is not a scalar type",
	}},
	{"uniformity global id", `let i = global_id.x
if i < n {
	workgroupBarrier()
}`, []string{
		"4:3: workgroupBarrier must be called in uniform control flow: the condition at 3:5 depends on global_id",
	}},
	{"uniformity workgroup id ok", `let w = workgroup_id.x
if w < n {
	workgroupBarrier()
}
for j := u32(0); j < n; j++ {
	storageBarrier()
}
if len(x) > u32(4) {
	workgroupBarrier()
}
if x[0] > 0.0 {
	workgroupBarrier()
}`, []string{}},
	{"uniformity read_write load", `if y[0] > 0.0 {
	workgroupBarrier()
}`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the condition at 2:5 depends on a load from read_write buffer y",
	}},
	{"uniformity read buffer at non-uniform index", `if x[local_index] > 0.0 {
	workgroupBarrier()
}`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the condition at 2:5 depends on local_index",
	}},
	{"uniformity early return", `if global_id.x >= n {
	return
}
workgroupBarrier()`, []string{
		"5:2: workgroupBarrier must be called in uniform control flow: the return at 3:3 depends on global_id",
	}},
	{"uniformity uniform return ok", `if n == u32(0) {
	return
}
workgroupBarrier()`, []string{}},
	{"uniformity var assigned in non-uniform control flow", `var flag = false
if local_index == u32(0) {
	flag = true
}
if flag {
	workgroupBarrier()
}`, []string{
		"7:3: workgroupBarrier must be called in uniform control flow: the condition at 6:5 depends on flag (assigned in non-uniform control flow at 4:3)",
	}},
	{"uniformity var assigned non-uniform value later", `var v = u32(0)
for k := 0; k < 4; k++ {
	if v > u32(2) {
		workgroupBarrier()
	}
	v = local_id.x
}`, []string{
		"5:4: workgroupBarrier must be called in uniform control flow: the condition at 4:6 depends on local_id",
	}},
	{"uniformity non-uniform break", `for k := 0; k < 4; k++ {
	workgroupBarrier()
	if y[k] > 0.0 {
		break
	}
}
workgroupBarrier()`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the break at 5:4 depends on a load from read_write buffer y",
	}},
	{"uniformity non-uniform continue", `for k := 0; k < 4; k++ {
	if y[k] > 0.0 {
		continue
	}
	workgroupBarrier()
}`, []string{
		"6:3: workgroupBarrier must be called in uniform control flow: the continue at 4:4 depends on a load from read_write buffer y",
	}},
	{"uniformity non-uniform loop condition", `for k := local_index; k < u32(64); k += u32(64) {
	workgroupBarrier()
}`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the loop condition at 2:24 depends on local_index",
	}},
	{"uniformity shared load", `kernel k() workgroup(64) {
	shared s [64]u32
	if s[0] > u32(0) {
		workgroupBarrier()
	}
}`, []string{
		"4:3: workgroupBarrier must be called in uniform control flow: the condition at 3:5 depends on a load from shared variable s",
	}},
	{"uniformity atomic and subgroup results", `enable subgroups
kernel k(h read_write []atomic<u32>, x read []f32) workgroup(64) {
	if atomicLoad(h[0]) > u32(0) {
		workgroupBarrier()
	}
	if subgroupAdd(x[0]) > 0.0 {
		storageBarrier()
	}
	if subgroup_size > u32(4) {
		workgroupBarrier()
	}
}`, []string{
		"4:3: workgroupBarrier must be called in uniform control flow: the condition at 3:5 depends on the result of atomicLoad",
		"7:3: storageBarrier must be called in uniform control flow: the condition at 6:5 depends on the result of subgroupAdd",
	}},
	{"uniformity return inside loop", `for k := 0; k < 4; k++ {
	workgroupBarrier()
	if global_id.x == u32(3) {
		return
	}
}`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the return at 5:4 depends on global_id",
	}},
	// The uniformity cases below and above were also emitted to WGSL and
	// given to Tint (tools/tint, npm webgpu 0.6.2): it accepted and rejected
	// exactly the same kernels.
	{"uniformity break reconverges after the loop", `for k := 0; k < 4; k++ {
	if y[k] > 0.0 {
		break
	}
}
workgroupBarrier()`, []string{}},
	{"uniformity continue makes later assignments non-uniform", `var c = u32(0)
for k := u32(0); k < n; k++ {
	if local_index == k {
		continue
	}
	c += u32(1)
}
workgroupBarrier()
if c > u32(0) {
	workgroupBarrier()
}`, []string{
		"11:3: workgroupBarrier must be called in uniform control flow: the condition at 10:5 depends on c (assigned in non-uniform control flow at 7:3)",
	}},
	{"uniformity return in a loop escapes it", `for k := u32(0); k < n; k++ {
	if local_index == k {
		return
	}
}
workgroupBarrier()`, []string{
		"7:2: workgroupBarrier must be called in uniform control flow: the return at 4:4 depends on local_index",
	}},
	{"uniformity inner loop break does not leak to the outer loop", `for k := u32(0); k < n; k++ {
	for j := 0; j < 4; j++ {
		if y[j] > 0.0 {
			break
		}
	}
	workgroupBarrier()
}`, []string{}},
	{"uniformity uniform sources", `for k := 0; k < 4; k++ {
	if x[k] > 0.0 {
		workgroupBarrier()
	}
}
if num_workgroups.x > n {
	workgroupBarrier()
}
let w = workgroup_id.x
for j := w; j < n; j++ {
	storageBarrier()
}
if len(y) > n {
	workgroupBarrier()
}`, []string{}},
	{"uniformity subgroup_size is uniform", `enable subgroups
kernel k(n u32) workgroup(64) {
	if subgroup_size > n {
		workgroupBarrier()
	}
}`, []string{}},
	{"uniformity loop variable assigned in non-uniform control flow", `var j = u32(0)
for j < n {
	if local_index == u32(0) {
		j += u32(1)
	}
	j += u32(1)
	workgroupBarrier()
}`, []string{
		"8:3: workgroupBarrier must be called in uniform control flow: the loop condition at 3:6 depends on j (assigned in non-uniform control flow at 5:4)",
	}},
	{"uniformity infinite loop with non-uniform break", `for {
	workgroupBarrier()
	if local_index == u32(0) {
		break
	}
}`, []string{
		"3:3: workgroupBarrier must be called in uniform control flow: the break at 5:4 depends on local_index",
	}},
	{"uniformity uniform early return", `if n > u32(3) {
	return
}
workgroupBarrier()
var s = u32(0)
for k := u32(0); k < n; k++ {
	s += k
}
if s > u32(4) {
	workgroupBarrier()
}`, []string{}},
	{"uniformity else-if under a non-uniform condition", `if local_index == u32(0) {
	y[0] = 1.0
} else if n > u32(2) {
	workgroupBarrier()
}`, []string{
		"5:3: workgroupBarrier must be called in uniform control flow: the condition at 2:5 depends on local_index",
	}},
	{"uniformity vector with a non-uniform component", `let v = vec2<u32>(n, local_index)
if v.x > u32(0) {
	workgroupBarrier()
}`, []string{
		"4:3: workgroupBarrier must be called in uniform control flow: the condition at 3:5 depends on local_index",
	}},
	{"uniformity local array element written at a non-uniform index", `var a [4]u32
a[local_index % u32(4)] = u32(1)
if a[0] == u32(1) {
	workgroupBarrier()
}`, []string{
		"5:3: workgroupBarrier must be called in uniform control flow: the condition at 4:5 depends on local_index",
	}},
}

func TestCheckErrors(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkErrors(t, moduleSrc(tc.src))
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
