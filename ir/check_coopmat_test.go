package ir_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
)

// coopHeader opens a module that enables cooperative matrices, f16 and
// bf16; the kernel's body starts on line 5.
const coopHeader = "enable f16\nenable bf16\nenable cooperative_matrix\n" +
	"kernel k(a read []f16, b read []f16, c read_write []f32, r read []f32, h read_write []bf16, n u32) workgroup(32) {\n"

// coopCases: cooperative-matrix programs and every error Check must report.
var coopCases = []struct {
	name string
	body string // statements of k, from line 5
	want []string
}{
	{"tiled matmul checks", `shared tile [256]f16
let ta = coopLoad<coopmat<f16, 16, 16, a>>(a, workgroup_id.x * 256, 16, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, b>>(tile, 0, 16, col_major)
var acc = coopmat<f32, 16, 16, acc>(0.0)
acc = coopMulAdd(ta, tb, acc) * 0.5 + acc / 2.0
let hb = coopmat<bf16, 16, 16, acc>(acc)
coopStore(coopmat<f32, 16, 16, acc>(hb), c, 0, n, row_major)
coopStore(-acc, c, 0, 16, col_major)
let nl = coopLength(acc)
h[0] = bf16(c[0] + f32(h[1]))`, nil},
	{"shape mismatch", `let ta = coopLoad<coopmat<f16, 16, 8, a>>(a, 0, 16, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, b>>(b, 0, 16, row_major)
let acc = coopMulAdd(ta, tb, coopmat<f32, 16, 16, acc>(0.0))`, []string{
		"7:12: coopMulAdd: shapes do not match: A is 16x8, B is 16x16, C is 16x16 (want A MxK, B KxN, C MxN)",
	}},
	{"operand uses", `let ta = coopLoad<coopmat<f16, 16, 16, a>>(a, 0, 16, row_major)
let x = coopMulAdd(ta, ta, coopmat<f32, 16, 16, acc>(0.0))`, []string{
		"6:25: invalid argument: coopMulAdd's b operand must be a cooperative matrix of use b, not ta (variable of type coopmat<f16, 16, 16, a>)",
	}},
	{"accumulator type", `let ta = coopLoad<coopmat<f16, 16, 16, a>>(a, 0, 16, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, b>>(b, 0, 16, row_major)
let x = coopMulAdd(ta, tb, coopmat<bf16, 16, 16, acc>(0.0))`, []string{
		"7:10: coopMulAdd: f16 inputs cannot accumulate in bf16 (want f16 or f32)",
	}},
	{"element type of memory", `let ta = coopLoad<coopmat<f16, 16, 16, a>>(r, 0, 16, row_major)
coopStore(coopmat<f32, 16, 16, acc>(0.0), r, 0, 16, row_major)
coopStore(coopmat<f16, 16, 16, acc>(0.0), c, 0, 16, row_major)`, []string{
		"5:45: coopLoad: r holds f32, but the matrix elements are f16 (want f16, or packed u32 or i32 words: a scalar, vec2 or vec4 of them)",
		"6:44: coopStore to buffer r, which is read-only (declared read)",
		"7:44: coopStore: c holds f32, but the matrix elements are f16 (want f16, or packed u32 or i32 words: a scalar, vec2 or vec4 of them)",
	}},
	{"packed memory", `shared p4 [64]vec4<u32>
shared p2 [64]vec2<i32>
shared p1 [64]u32
shared p3 [64]vec3<u32>
let ta = coopLoad<coopmat<f16, 16, 16, a>>(p4, 2, 5, row_major)
let tb = coopLoad<coopmat<bf16, 16, 16, b>>(p2, 0, 4, col_major)
coopStore(coopmat<f32, 16, 16, acc>(0.0), p1, 0, 16, row_major)
coopStore(coopmat<f16, 16, 16, acc>(0.0), p4, 0, 4, row_major)
let tc = coopLoad<coopmat<f16, 16, 16, a>>(p3, 0, 4, row_major)`, []string{
		"13:45: coopLoad: p3 holds vec3<u32>, but the matrix elements are f16 (want f16, or packed u32 or i32 words: a scalar, vec2 or vec4 of them)",
	}},
	{"not memory", `var x = 1.0
let ta = coopLoad<coopmat<f32, 16, 16, a>>(x, 0, 16, row_major)`, []string{
		"6:45: coopLoad needs a storage buffer or a shared array, not x (variable of type f32)",
	}},
	{"offset and stride", `let ta = coopLoad<coopmat<f16, 16, 16, a>>(a, 1.5, -1, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, a>>(a, r[0], 16, row_major)`, []string{
		"5:48: constant 1.5 truncated to u32",
		"5:53: constant -1 overflows u32",
		"6:49: coopLoad offset r[0] (value of type f32) must be i32 or u32",
	}},
	{"alignment (VUID 08986)", `shared p2 [64]vec2<i32>
let wg = workgroup_id.x * 64
let ta = coopLoad<coopmat<f16, 16, 16, a>>(a, 3, 16, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, b>>(b, wg * 16 + 4, 16, col_major)
coopStore(coopmat<f32, 16, 16, acc>(0.0), c, wg, 18, row_major)
coopStore(coopmat<f16, 16, 16, acc>(0.0), p2, 1, 0, row_major)
let ok1 = coopLoad<coopmat<f16, 4, 4, acc>>(a, wg + 4, 4, row_major)
let bad = coopLoad<coopmat<f16, 4, 4, acc>>(a, 2, 4, row_major)
let ok2 = coopLoad<coopmat<f16, 16, 16, a>>(a, wg * 16 + u32(r[0]), 24, col_major)
let ok3 = coopLoad<coopmat<f16, 16, 16, a>>(a, n, n * 8, col_major)`, []string{
		"7:48: coopLoad: misaligned offset 3 (in f16 elements): 6 bytes, not a multiple of 16 (coopmat<f16, 16, 16, a> row_major needs the lesser of 16 and a row's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)",
		"8:56: coopLoad: misaligned offset wg * 16 + 4 (in f16 elements): 8 bytes modulo 16 at any run-time value, not a multiple of 16 (coopmat<f16, 16, 16, b> col_major needs the lesser of 16 and a column's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)",
		"9:51: coopStore: misaligned stride 18 (in f32 elements): 8 bytes, not a multiple of 16 (coopmat<f32, 16, 16, acc> row_major needs the lesser of 16 and a row's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)",
		"10:48: coopStore: misaligned offset 1 (in vec2<i32> elements): 8 bytes, not a multiple of 16 (coopmat<f16, 16, 16, acc> row_major needs the lesser of 16 and a row's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)",
		"12:49: coopLoad: misaligned offset 2 (in f16 elements): 4 bytes, not a multiple of 8 (coopmat<f16, 4, 4, acc> row_major needs the lesser of 16 and a row's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)",
	}},
	{"divergent control flow", `var acc = coopmat<f32, 16, 16, acc>(0.0)
if global_id.x < 16 {
	acc = coopLoad<coopmat<f32, 16, 16, acc>>(r, 0, 16, row_major)
}
for i := 0; i < 4; i++ {
	if r[local_index] > 0.0 {
		break
	}
	coopStore(acc, c, 0, 16, row_major)
}`, []string{
		"7:9: coopLoad must be called in uniform control flow: the condition at 6:5 depends on global_id",
		"13:3: coopStore must be called in uniform control flow: the break at 11:4 depends on local_index",
	}},
	{"element access", `var acc = coopmat<f32, 16, 16, acc>(0.0)
let l = coopLength(acc)
for i := u32(0); i < l; i++ {
	acc[i] = acc[i] * 2.0 + f32(i)
	acc[i] += 1.0
}
let first = acc[0]
if first > 0.0 {
	workgroupBarrier()
}
if global_id.x < 16 {
	acc[0] = 1.0
}`, []string{
		"13:3: workgroupBarrier must be called in uniform control flow: the condition at 12:5 depends on an element of a cooperative matrix",
		"16:3: an assignment to a cooperative-matrix element must be called in uniform control flow: the condition at 15:5 depends on global_id",
	}},
	{"element access types", `var acc = coopmat<f32, 16, 16, acc>(0.0)
let m = acc
m[1] = 2.0
acc[0.5] = 1.0
acc[2] = 1
acc[3] = f16(1.0)`, []string{
		"7:2: cannot assign to m[1]: m is declared with let",
		"8:6: constant 0.5 truncated to i32",
		"10:11: cannot use f16(1.0) (constant of type f16) as f32 value in assignment",
	}},
	{"element-wise rules", `let m = coopmat<f32, 16, 16, acc>(1.0)
let ma = coopmat<f32, 16, 16, a>(1.0)
let x = m + ma
let y = m % m
let z = 2.0 - m
let w = m * 2
let v = coopmat<bf16, 16, 16, acc>(m) * coopmat<bf16, 16, 16, acc>(m)
let u = m == m`, []string{
		"7:12: invalid operation: m + ma (mismatched types coopmat<f32, 16, 16, acc> and coopmat<f32, 16, 16, a>)",
		"8:12: invalid operation: operator % not defined on cooperative matrices (want + - * /)",
		"9:14: invalid operation: 2.0 - m (a cooperative matrix is scaled by * or divided by /, not -)",
		"11:40: invalid operation: operator * not defined on coopmat<bf16, 16, 16, acc> (bf16 has no arithmetic: convert to f32 with coopmat<f32, ...>(m))",
		"12:12: invalid operation: m == m (comparison of coopmat<f32, 16, 16, acc> values; compare components)",
	}},
	{"conversions", `let m = coopmat<f32, 16, 16, acc>(1.0)
let a2 = coopmat<f16, 16, 16, a>(m)
let s = coopmat<f32, 16, 16, acc>(n)`, []string{
		"6:11: cannot convert m (variable of type coopmat<f32, 16, 16, acc>) to coopmat<f16, 16, 16, a>: a conversion keeps the shape and the use, and changes only the element type",
		"7:36: cannot use n (variable of type u32) to fill coopmat<f32, 16, 16, acc>: want a f32 value or a cooperative matrix to convert",
	}},
	{"types", `var a1 [2]coopmat<f32, 16, 16, acc>
var a2 coopmat<i32, 16, 16, a>
var v vec2<bf16>
var a4 coopmat<bool, 16, 16, a>`, []string{
		"5:2: invalid type [2]coopmat<f32, 16, 16, acc>: cooperative matrices cannot be array elements",
		"6:2: invalid type coopmat<i32, 16, 16, a>: i32 matrices are accumulators (acc); integer inputs are i8 or u8",
		"7:2: invalid vector type vec2<bf16>: bf16 is a storage type (scalars and cooperative matrices only)",
		"8:2: invalid type coopmat<bool, 16, 16, a>: the element type of a cooperative matrix must be f16, bf16, f32, i8, u8, i32 or u32",
	}},
	{"bf16 rules", `let x = h[0] + h[1]
let y = i32(h[0])
h[0] = 1.5
h[1] = bf16(2.5)`, []string{
		"5:15: invalid operation: operator + not defined on h[0] (value of type bf16)",
		"6:10: cannot convert h[0] (value of type bf16) to type i32: bf16 converts only to and from f32",
		"7:9: cannot use 1.5 (untyped float constant) as bf16 value",
	}},
}

func TestCheckCoopMat(t *testing.T) {
	for _, tc := range coopCases {
		t.Run(tc.name, func(t *testing.T) {
			src := coopModuleSrc(tc.body)
			got := checkErrors(t, src)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nsource:\n%s", diff, src)
			}
		})
	}
}

// TestCoopMatNeedsEnable: a cooperative matrix or bf16 without its
// `enable` is reported once, at the first use.
func TestCoopMatNeedsEnable(t *testing.T) {
	src := "enable f16\nkernel k(h read_write []bf16) workgroup(32) {\n\tlet m = coopmat<f16, 16, 16, a>(1.0)\n\th[0] = h[1]\n}\n"
	want := []string{
		"2:10: bf16 used without `enable bf16`",
		"3:10: cooperative matrix type coopmat<f16, 16, 16, a> used without `enable cooperative_matrix`",
	}
	if diff := cmp.Diff(want, checkErrors(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func splitLines(s string) []string { return strings.Split(s, "\n") }

// TestCoopMatBuilder builds a tiled matmul with the Go builder, checks it
// and compares it with the same kernel written in .kc.
func TestCoopMatBuilder(t *testing.T) {
	b := ir.NewKernel("mm", 32)
	A := b.Buffer("A", ir.F16, ir.Read)
	B := b.Buffer("B", ir.F16, ir.Read)
	C := b.Buffer("C", ir.F32, ir.ReadWrite)
	k := b.Param("k", ir.U32)
	acc := b.Var("acc", nil, ir.CoopFill(ir.Mat(ir.F32, 16, 16, ir.UseAccumulator), ir.Float(0)))
	b.For("i", ir.Conv(ir.U32, ir.Int(0)), func(i *ir.Ident) ir.Expr { return ir.Lt(i, k) }, ir.Int(16), func(i *ir.Ident) {
		a := b.Let("a", ir.CoopLoadOf(ir.Mat(ir.F16, 16, 16, ir.UseA), A, i, k, ir.RowMajor))
		bm := b.Let("b", ir.CoopLoadOf(ir.Mat(ir.F16, 16, 16, ir.UseB), B, ir.Mul(i, ir.Int(16)), ir.Int(16), ir.RowMajor))
		b.Assign(acc, ir.CoopMulAddOf(a, bm, acc))
	})
	b.CoopStore(acc, C, ir.Int(0), ir.Int(16), ir.ColMajor)
	m := &ir.Module{Enables: []*ir.Enable{{Feature: ir.FeatureF16}, {Feature: ir.FeatureCoopMat}}, Kernels: []*ir.Kernel{b.Kernel()}}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	if got := m.Kernels[0].Features; got != ir.FeatureF16|ir.FeatureCoopMat {
		t.Errorf("features %v, want f16 and cooperative_matrix", got)
	}
	want := `enable f16
enable cooperative_matrix

kernel mm(A read []f16, B read []f16, C read_write []f32, k u32) workgroup(32) {
	var acc = coopmat<f32, 16, 16, acc>(0.0)
	for i := u32(0); i < k; i += 16 {
		let a = coopLoad<coopmat<f16, 16, 16, a>>(A, i, k, row_major)
		let b = coopLoad<coopmat<f16, 16, 16, b>>(B, i * 16, 16, row_major)
		acc = coopMulAdd(a, b, acc)
	}
	coopStore(acc, C, 0, 16, col_major)
}
`
	if got := string(ir.Print(m)); got != want {
		t.Errorf("printed (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// coopModuleSrc wraps statements in coopHeader's kernel.
func coopModuleSrc(body string) string {
	src := coopHeader
	for _, l := range splitLines(body) {
		src += "\t" + l + "\n"
	}
	return src + "}\n"
}

// TestCoopMatUniformCalls: a cooperative operation reached through a call
// from divergent control flow is reported at the call, naming the
// operation; divergence inside the function at the operation.
func TestCoopMatUniformCalls(t *testing.T) {
	src := `enable cooperative_matrix
fn tile(src read []f32, dst read_write []f32) {
	let m = coopLoad<coopmat<f32, 16, 16, acc>>(src, 0, 16, row_major)
	coopStore(m, dst, 0, 16, row_major)
}
fn own(dst read_write []f32, x u32) {
	if dst[0] > 3.0 {
		coopStore(coopmat<f32, 16, 16, acc>(1.0), dst, 0, 16, row_major)
	}
}
fn param(dst read_write []f32, x u32) {
	if x > 3 {
		coopStore(coopmat<f32, 16, 16, acc>(1.0), dst, 0, 16, row_major)
	}
}
kernel k(r read []f32, c read_write []f32) workgroup(32) {
	if global_id.x < 4 {
		tile(r, c)
	}
	tile(r, c)
	own(c, 1)
	param(c, 1)
	param(c, local_index)
}
`
	want := []string{
		"8:3: coopStore must be called in uniform control flow: the condition at 7:5 depends on a load from read_write buffer dst",
		"8:13: coopmat<f32, 16, 16, acc>(...) must be called in uniform control flow: the condition at 7:5 depends on a load from read_write buffer dst",
		"13:3: coopStore must be called in uniform control flow: the condition at 12:5 depends on local_index (in param, called at 23:2)",
		"13:13: coopmat<f32, 16, 16, acc>(...) must be called in uniform control flow: the condition at 12:5 depends on local_index (in param, called at 23:2)",
		"18:3: call of tile reaches coopLoad at 3:10, which must be called in uniform control flow: the condition at 17:5 depends on global_id",
		"18:3: call of tile reaches coopStore at 4:2, which must be called in uniform control flow: the condition at 17:5 depends on global_id",
	}
	if diff := cmp.Diff(want, checkErrors(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestCoopMatPlaces: where a cooperative matrix may not be.
func TestCoopMatPlaces(t *testing.T) {
	src := `enable cooperative_matrix
const C = coopmat<f32, 16, 16, acc>(1.0)
struct S {
	m coopmat<f32, 16, 16, acc>
}
fn g(m coopmat<f32, 16, 16, acc>) {
}
kernel k(x read []coopmat<f32, 16, 16, acc>, p coopmat<f32, 16, 16, acc>) workgroup(32) {
	shared s coopmat<f32, 16, 16, acc>
}
`
	want := []string{
		"2:11: coopmat<f32, 16, 16, acc>(1.0) (value of type coopmat<f32, 16, 16, acc>) is not constant",
		"4:2: field m of struct S: cooperative matrices cannot be struct fields",
		"6:6: parameter m: cooperative matrices cannot be passed to or returned from functions yet",
		"8:10: buffer x: element type coopmat<f32, 16, 16, acc> is not host-shareable (a cooperative matrix lives in a subgroup; store it with coopStore to a buffer of its element type)",
		"8:46: parameter p: scalar parameters must be i32, u32 or f32, not coopmat<f32, 16, 16, acc>",
		"9:2: shared s: a cooperative matrix cannot live in shared memory (store it to a shared array with coopStore)",
	}
	if diff := cmp.Diff(want, checkErrors(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestCoopMatInt8: i8/u8 inputs with i32/u32 accumulators, and the rules
// of the 8-bit storage types.
func TestCoopMatInt8(t *testing.T) {
	src := `enable int8
enable cooperative_matrix
kernel k(a read []i8, b read []u8, c read_write []i32, q read_write []i8) workgroup(32) {
	let x = coopLoad<coopmat<i8, 16, 32, a>>(a, 0, 32, row_major)
	let y = coopLoad<coopmat<i8, 32, 16, b>>(a, 0, 16, col_major)
	var acc = coopmat<i32, 16, 16, acc>(0)
	acc = coopMulAdd(x, y, acc) * 2 + acc
	coopStore(acc, c, 0, 16, row_major)
	q[0] = i8(c[0] + i32(q[1]) + i32(b[2]))
	let bad1 = coopmat<u8, 16, 16, acc>(1)
	let bad2 = x + x
	let bad3 = acc / 2
	let bad4 = coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(0.0))
	let bad5 = coopmat<f32, 16, 16, acc>(acc)
	let bad6 = f32(q[0])
	let bad7 = q[0] + q[1]
	var bad8 vec4<u8>
}
`
	want := []string{
		"10:13: invalid type coopmat<u8, 16, 16, acc>: u8 matrices are inputs (a or b); they accumulate in i32 or u32",
		"11:15: invalid operation: operator + not defined on coopmat<i8, 16, 32, a> (i8 matrices are multiply-add inputs only)",
		"12:17: invalid operation: operator / not defined on coopmat<i32, 16, 16, acc> (integer matrices have + - * only)",
		"13:13: coopMulAdd: i8 inputs cannot accumulate in f32 (want i32 or u32)",
		"14:13: cannot convert acc (variable of type coopmat<i32, 16, 16, acc>) to coopmat<f32, 16, 16, acc>: conversions of integer cooperative matrices are not supported yet",
		"15:13: cannot convert q[0] (value of type i8) to type f32: i8 and u8 convert only to and from i32 and u32",
		"16:18: invalid operation: operator + not defined on q[0] (value of type i8)",
		"17:2: invalid vector type vec4<u8>: u8 is a storage type (scalars and cooperative matrices only)",
	}
	if diff := cmp.Diff(want, checkErrors(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	noEnable := "kernel k(q read_write []u8) workgroup(1) {\n\tq[0] = q[1]\n}\n"
	if diff := cmp.Diff([]string{"1:10: i8/u8 used without `enable int8`"}, checkErrors(t, noEnable)); diff != "" {
		t.Errorf("without enable (-want +got):\n%s", diff)
	}
}
