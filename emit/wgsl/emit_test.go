package wgsl_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// unitSources are small kernels for the spelling tests; TestUnitTint
// validates every one with Tint.
var unitSources = map[string]string{
	"select_effects": `kernel k(h read_write []atomic<u32>, c read []u32, out read_write []u32) workgroup(1) {
	out[0] = select(c[0] > 0, atomicAdd(h[0], 1), c[1])
	out[1] = select(c[0] > 0, atomicAdd(h[0], 1), atomicAdd(h[0], 10))
	out[2] = select(atomicAdd(h[1], 1) == 0, c[1], atomicLoad(h[1]))
	out[3] = select(c[0] > 0, out[0], atomicAdd(h[0], 1))
}
`,
	"compound_effects": `fn bump(x read_write []u32, v u32) u32 {
	x[0] = x[0] + v
	return v
}

kernel k(x read_write []u32, c read_write []atomic<u32>, d read []u32) workgroup(1) {
	x[0] += bump(x, 5)
	x[1] <<= bump(x, 1)
	x[2] += 1
	x[x[3]] += bump(x, 2)
	x[atomicAdd(c[0], 1)] /= d[0]
	x[x[4]] = bump(x, 3)
	x[x[5]] += 1
}
`,
	"compound_post": `fn setidx(x read_write []u32, v u32) u32 {
	x[3] = v
	return v
}

kernel k(x read_write []u32, c read_write []atomic<u32>, d read []u32) workgroup(1) {
	var m u32
	for ; m < 3; x[atomicAdd(c[0], 1)] /= d[0] {
		m++
	}
	for i := u32(0); i < 6; i += 1 + setidx(x, i) {
		if i == 2 {
			continue
		}
		m++
	}
	for ; m < 9; m += 1 {
		x[m] = m
	}
}
`,
	"names": `kernel while(loop u32, array read_write []f32, kc_x read []f32) workgroup(4) {
	shared module [4]f32
	let continuing = global_id.x
	let a = 1
	if continuing < loop {
		let a = 2.0
		module[continuing] = a + kc_x[continuing]
	}
	workgroupBarrier()
	array[continuing] = module[continuing] + f32(a)
}
`,
	"select": `kernel sel(n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	y[i] = select(x[i] > 0.5, x[i] * 2.0, -x[i])
}
`,
	"compound": `kernel comp(n u32, y read_write []f32, z read_write []u32) workgroup(64) {
	let i = global_id.x
	y[i] += 2.0
	var u = z[i]
	u <<= 3
	u ^= 5
	u++
	u--
	u /= n
	u %= n
	var v = vec4<f32>(y[i])
	v.x *= 2.0
	v *= 0.5
	var b = u > 3
	b = b && n > 1
	z[i] = u + select(b, u32(1), u32(0)) + u32(v.y)
}
`,
	"loops": `kernel loops(n u32, y read_write []u32) workgroup(64) {
	var acc u32
	for k := u32(0); k < n; k += 2 {
		if k == 4 {
			continue
		}
		acc += k
	}
	for acc > 100 {
		acc /= 2
	}
	for {
		acc++
		if acc > 7 {
			break
		}
	}
	y[global_id.x] = acc
}
`,
	"vecdiv": `kernel vd(k i32, y read_write []i32) workgroup(1) {
	var v = vec4<i32>(y[0], y[1], y[2], y[3])
	v = v / k
	v %= k
	let w = v << vec4<u32>(bitcast<u32>(k))
	for i := 0; i < 4; i++ {
		var t i32
		t += v[i]
		var s = 0
		s += w[i]
		y[i] = t + s / 4 + s / -1
	}
}
`,
	"templates": `kernel tmpl(a u32, b u32, c u32, y read_write []u32) workgroup(1) {
	let p = a < b >> c
	let q = select(a < b, u32(1), u32(2)) + select(c > a, u32(3), u32(4))
	let v = vec2<bool>(a < b, c > a)
	y[0] = select(p && q > 1 && v.x, u32(1), u32(0))
}
`,
	"constexpr": `kernel ce(y read_write []i32) workgroup(1) {
	let z = bitcast<i32>(f32(3.4028234663852886e+38)) << u32(30)
	let w = -bitcast<i32>(u32(2147483648))
	y[0] = z + w
}
`,
	"precedence": `kernel prec(a u32, b u32, c u32, x i32, y read_write []u32) workgroup(1) {
	let p = (a & b) == c
	let q = a + b * c
	let r = (a + b) * c
	let s = a - (b - c)
	let t = a << (b & 31)
	let u = -(-x)
	let v = a < b == (c < a)
	let w = a & b | c
	let z = ^a + 1
	let m = i32(-2147483648)
	y[0] = select(p && v || !v, q + r + s + t + w + z, u32(u - m))
}
`,
}

func emitSrc(t *testing.T, name string) *emit.Artifact {
	t.Helper()
	a, err := wgsl.Emit(parseSrc(t, name+".kc", unitSources[name]), wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantLines checks that each want is exactly one line of the output
// (ignoring indentation).
func wantLines(t *testing.T, a *emit.Artifact, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(string(a.Code), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("missing line %q in\n%s", w, a.Code)
		}
	}
}

func TestReservedNames(t *testing.T) {
	a := emitSrc(t, "names")
	wantLines(t, a,
		"loop_: u32,",
		"@group(0) @binding(1) var<storage, read_write> array_: array<f32>;",
		"@group(0) @binding(2) var<storage, read> xkc_x: array<f32>;",
		"var<workgroup> module_: array<f32, 4>;",
		"fn while_(@builtin(global_invocation_id) global_id: vec3<u32>) {",
		"let continuing_: u32 = global_id.x;",
		"let a: i32 = 1i;",
		"if continuing_ < params.loop_ {",
		"let a_1: f32 = 2.0f;",
		"module_[continuing_] = a_1 + xkc_x[continuing_];",
		"array_[continuing_] = module_[continuing_] + f32(a);",
	)
	if got := a.Entries; len(got) != 1 || got[0].Kernel != "while" || got[0].Name != "while_" || got[0].Reflection.Name != "while" {
		t.Errorf("Entries = %+v", got)
	}
}

func TestSelectOrder(t *testing.T) {
	wantLines(t, emitSrc(t, "select"), "y[i] = select(-x[i], x[i] * 2.0f, x[i] > 0.5f);")
}

func TestCompoundAssign(t *testing.T) {
	wantLines(t, emitSrc(t, "compound"),
		"y[i] += 2.0f;",
		"u <<= 3u;",
		"u ^= 5u;",
		"u++;",
		"u--;",
		"u = kc_div_u32(u, params.n);",
		"u = kc_rem_u32(u, params.n);",
		"v.x *= 2.0f;",
		"v *= 0.5f;",
		"b = b && params.n > 1u;",
		"z[i] = u + select(0u, 1u, b) + kc_f2u_f32(v.y);",
	)
}

func TestLoops(t *testing.T) {
	wantLines(t, emitSrc(t, "loops"),
		"for (var k: u32 = 0u; k < params.n; k += 2u) {",
		"continue;",
		"while acc > 100u {",
		"loop {",
		"break;",
	)
}

// TestDivShiftLoopVar checks the spellings that make kc's rules hold
// under naga v0.19 too: guarded division, masked shifts, loop-local vars
// re-initialised every iteration.
func TestDivShiftLoopVar(t *testing.T) {
	wantLines(t, emitSrc(t, "vecdiv"),
		"v = kc_div_vec4_i32(v, vec4<i32>(params.k));",
		"v = kc_rem_vec4_i32(v, vec4<i32>(params.k));",
		"let w: vec4<i32> = v << (vec4<u32>(bitcast<u32>(params.k)) & vec4<u32>(31u));",
		"var t: i32;",
		"t = i32();",
		"var s: i32;",
		"s = 0i;",
		"y[i] = t + s / 4i + kc_div_i32(s, -1i);",
		"return x / select(y, vec4<i32>(1i), (y == vec4<i32>(0i)) | ((x == vec4<i32>(i32(-2147483648))) & (y == vec4<i32>(-1i))));",
	)
}

// TestTemplateTraps checks the spellings that keep WGSL's template-list
// discovery from reading comparisons as template arguments.
func TestTemplateTraps(t *testing.T) {
	wantLines(t, emitSrc(t, "templates"),
		"let p: bool = params.a < (params.b >> (params.c & 31u));",
		"let q: u32 = select(2u, 1u, params.a < params.b) + select(4u, 3u, params.c > params.a);",
		"let v: vec2<bool> = vec2<bool>((params.a < params.b), params.c > params.a);",
	)
}

// TestConstExprTraps checks that constant expressions the checker does
// not evaluate (bitcasts) are not left to WGSL's shader-creation
// evaluation, which rejects overflows that kc wraps.
func TestConstExprTraps(t *testing.T) {
	wantLines(t, emitSrc(t, "constexpr"),
		"let z: i32 = kc_rt_i32(bitcast<i32>(3.4028234663852886e+38f)) << 30u;",
		"let w: i32 = -kc_rt_i32(bitcast<i32>(2147483648u));",
	)
}

func TestPrecedence(t *testing.T) {
	wantLines(t, emitSrc(t, "precedence"),
		"let p: bool = (params.a & params.b) == params.c;",
		"let q: u32 = params.a + params.b * params.c;",
		"let r: u32 = (params.a + params.b) * params.c;",
		"let s: u32 = params.a - (params.b - params.c);",
		"let t: u32 = params.a << (params.b & 31u);",
		"let u: i32 = -(-params.x);",
		"let v: bool = (params.a < params.b) == (params.c < params.a);",
		"let w: u32 = (params.a & params.b) | params.c;",
		"let z: u32 = ~params.a + 1u;",
		"let m: i32 = i32(-2147483648);",
		"y[0i] = select(u32(u - m), q + r + s + t + w + z, (p && v) || !v);",
	)
}

// TestUnitTint validates the WGSL of every unit source with Tint and naga.
func TestUnitTint(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	arts := map[string]*emit.Artifact{}
	for _, name := range sortedKeys(unitSources) {
		a := emitSrc(t, name)
		p := filepath.Join(dir, name+".wgsl")
		writeFile(t, p, a.Code)
		paths = append(paths, p)
		arts[p] = a
	}
	msgs, failed := runCheck(t, paths...)
	for _, m := range msgs {
		if m.kind == "error" {
			t.Errorf("%s:%d:%d (from %s): %s: %s", filepath.Base(m.file), m.line, m.col, arts[m.file].SourcePos(m.line), m.who, m.text)
		}
	}
	if failed && !t.Failed() {
		t.Errorf("check.mjs failed without an error message: %v", msgs)
	}
}

// TestDeterminism emits every corpus module twice in a row and from eight
// goroutines at once: the bytes and line maps must be identical.
func TestDeterminism(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("wgsl") {
			continue
		}
		m := c.Module(t)
		first, err := wgsl.Emit(m, wgsl.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var wg sync.WaitGroup
		outs := make([]*emit.Artifact, 9)
		errs := make([]error, 9)
		outs[0], errs[0] = wgsl.Emit(m, wgsl.Options{})
		for g := 1; g < len(outs); g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[g], errs[g] = wgsl.Emit(m, wgsl.Options{})
			}()
		}
		wg.Wait()
		for g, a := range outs {
			if errs[g] != nil {
				t.Fatalf("%s: emit %d: %v", c.Name, g, errs[g])
			}
			if !bytes.Equal(a.Code, first.Code) {
				t.Errorf("%s: emit %d differs from the first", c.Name, g)
			}
			if len(a.Lines) != len(first.Lines) {
				t.Errorf("%s: emit %d has %d line positions, the first %d", c.Name, g, len(a.Lines), len(first.Lines))
				continue
			}
			for i := range a.Lines {
				if a.Lines[i] != first.Lines[i] {
					t.Errorf("%s: emit %d maps line %d to %v, the first to %v", c.Name, g, i+1, a.Lines[i], first.Lines[i])
					break
				}
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	src := "kernel k(y read_write []f32) workgroup(1) {\n\ty[0] = 1.0\n}\n"
	m := parseSrc(t, "k.kc", src)

	if _, err := wgsl.Emit(nil, wgsl.Options{}); err == nil || err.Error() != "wgsl: nil module" {
		t.Errorf("nil module: %v", err)
	}
	if _, err := wgsl.Emit(m, wgsl.Options{Kernel: "nope"}); err == nil || err.Error() != `wgsl: no kernel "nope" in k.kc` {
		t.Errorf("unknown kernel: %v", err)
	}
	unchecked := *m
	unchecked.Checked = false
	if _, err := wgsl.Emit(&unchecked, wgsl.Options{}); err == nil || err.Error() != "wgsl: module is not checked (run ir.Check first)" {
		t.Errorf("unchecked module: %v", err)
	}

	// A feature WGSL lacks (bf16; cooperative matrices: coopmat_test.go).
	k := *m.Kernels[0]
	k.Features |= ir.FeatureBF16
	k.FeatPos = map[ir.Feature]ir.Pos{ir.FeatureBF16: {File: "k.kc", Line: 2, Col: 2}}
	bf := *m
	bf.Kernels = []*ir.Kernel{&k}
	_, err := wgsl.Emit(&bf, wgsl.Options{})
	var ue *ir.UnsupportedError
	if !errors.As(err, &ue) || ue.Feature != "bf16" || ue.Target != "wgsl" {
		t.Fatalf("bf16: %v, want *ir.UnsupportedError", err)
	}
	if got, want := err.Error(), "k.kc:2:2: bf16 is not supported by target wgsl"; got != want {
		t.Errorf("bf16 error %q, want %q", got, want)
	}
}

// TestOneKernel emits one kernel of a two-kernel module: its names lose
// the kernel prefix and the other kernel is absent.
func TestOneKernel(t *testing.T) {
	m := parseFile(t, filepath.Join(kctest.Root(t), "testdata", "kernels", "two_kernels.kc"))
	a, err := wgsl.Emit(m, wgsl.Options{Kernel: "add_offset"})
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, a,
		"@group(0) @binding(0) var<uniform> params: Params;",
		"@group(0) @binding(1) var<storage, read_write> z: array<i32>;",
		"z[i] += params.c;",
	)
	if bytes.Contains(a.Code, []byte("scale")) {
		t.Errorf("kernel scale leaked into\n%s", a.Code)
	}
}

// TestLines checks Artifact.Lines: every statement line maps to the .kc
// line of that statement, and lines from nowhere map to the zero Pos.
func TestLines(t *testing.T) {
	src := "kernel k(n u32, y read_write []f32) workgroup(64) {\n\tlet i = global_id.x\n\tif i < n {\n\t\ty[i] = 2.0\n\t}\n}\n"
	a, err := wgsl.Emit(parseSrc(t, "k.kc", src), wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"let i: u32 = global_id.x;": 2,
		"if i < params.n {":         3,
		"y[i] = 2.0f;":              4,
		"fn k(@builtin(global_invocation_id) global_id: vec3<u32>) {": 1,
	}
	lines := strings.Split(strings.TrimSuffix(string(a.Code), "\n"), "\n")
	if len(lines) != len(a.Lines) {
		t.Fatalf("%d lines, %d positions", len(lines), len(a.Lines))
	}
	for i, l := range lines {
		l = strings.TrimSpace(l)
		pos := a.SourcePos(i + 1)
		if w, ok := want[l]; ok {
			if pos.Line != w || pos.File != "k.kc" {
				t.Errorf("line %d %q maps to %v, want k.kc:%d", i+1, l, pos, w)
			}
			delete(want, l)
		}
		if (l == "}" || l == "") && pos.IsValid() {
			t.Errorf("line %d %q maps to %v, want no position", i+1, l, pos)
		}
	}
	for l := range want {
		t.Errorf("line %q not emitted", l)
	}
	if p := a.SourcePos(0); p.IsValid() {
		t.Errorf("SourcePos(0) = %v", p)
	}
	if p := a.SourcePos(len(lines) + 1); p.IsValid() {
		t.Errorf("SourcePos past the end = %v", p)
	}
}

// TestCompoundEffects: lhs op= rhs with effects in rhs evaluates rhs into
// a let before WGSL's op= loads the target, as kc loads after rhs
// (docs/semantics.md § 6; WGSL's e1 op= e2 is e1 = e1 op (e2), loading
// first). naga happens to load after the call, so the devices do not show
// it (internal/difftest TestCompoundAssignOrder); the text pins it. The
// location comes first, once (§ 6): an index reading writable memory
// before a value with effects, and an index with effects where the
// operator needs a helper spelling the target twice, go into lets first
// (naga shows only the second: difftest TestCompoundPlaceOrder); an index
// reading memory next to a value without effects stays as written.
func TestCompoundEffects(t *testing.T) {
	wantLines(t, emitSrc(t, "compound_effects"),
		"let kc_v: u32 = bump(5u);",
		"x[0i] += kc_v;",
		"let kc_v_1: u32 = bump(1u);",
		"x[1i] <<= kc_v_1 & 31u;",
		"x[2i]++;",
		"let kc_i: u32 = x[3i];",
		"let kc_v_2: u32 = bump(2u);",
		"x[kc_i] += kc_v_2;",
		"let kc_i_1: u32 = atomicAdd(&c[0i], 1u);",
		"x[kc_i_1] = kc_div_u32(x[kc_i_1], d[0i]);",
		"let kc_i_2: u32 = x[4i];",
		"x[kc_i_2] = bump(3u);",
		"x[x[5i]]++;",
	)
}

// TestCompoundPost: a for post needing lets before it (an index with
// effects, a value with effects) goes into the continuing block of a
// loop, which continue reaches too; a plain post stays WGSL's for update
// (internal/difftest TestCompoundPostOrder runs both on a device).
func TestCompoundPost(t *testing.T) {
	wantLines(t, emitSrc(t, "compound_post"),
		"loop {",
		"if !(m < 3u) {",
		"break;",
		"continuing {",
		"let kc_i: u32 = atomicAdd(&c[0i], 1u);",
		"x[kc_i] = kc_div_u32(x[kc_i], d[0i]);",
		"var i: u32 = 0u;",
		"if !(i < 6u) {",
		"let kc_v: u32 = 1u + setidx(i);",
		"i += kc_v;",
		"for (; m < 9u; m++) {",
	)
}

// TestSelectEffects: select keeps WGSL's own spelling unless one of its
// operands has effects and another has effects too or reads a writable
// buffer (out[3]: out[0] before the atomic), and then goes through a
// helper taking them in kc's order (internal/difftest TestSelectOrder and
// TestSelectReadOrder run both on devices). A read-only buffer (c, out[0])
// may be read in any order.
func TestSelectEffects(t *testing.T) {
	a := emitSrc(t, "select_effects")
	wantLines(t, a,
		"out[0i] = select(c[1i], atomicAdd(&h[0i], 1u), c[0i] > 0u);",
		"out[1i] = kc_select_u32_bool(c[0i] > 0u, atomicAdd(&h[0i], 1u), atomicAdd(&h[0i], 10u));",
		"out[2i] = kc_select_u32_bool(atomicAdd(&h[1i], 1u) == 0u, c[1i], atomicLoad(&h[1i]));",
		"out[3i] = kc_select_u32_bool(c[0i] > 0u, out[0i], atomicAdd(&h[0i], 1u));",
		"fn kc_select_u32_bool(c: bool, a: u32, b: u32) -> u32 {",
		"return select(b, a, c);",
	)
}

// TestSharedComments: the comments written with a shared declaration
// (ir.Shared.Doc above it, Comment after it on its line) are printed with
// the var<workgroup> declaration, not lost and not left in the body.
func TestSharedComments(t *testing.T) {
	src := `kernel k(y read_write []f32) workgroup(64) {
	let i = local_index
	// tile holds a row
	/* of y */
	shared tile [64]f32 /* after tile */
	tile[i] = y[i]
	workgroupBarrier()
	y[i] = tile[63 - i]
}
`
	a, err := wgsl.Emit(parseSrc(t, "sc.kc", src), wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n// tile holds a row\n// of y\nvar<workgroup> tile: array<f32, 64>; // after tile\n"
	if got := string(a.Code); !strings.Contains(got, want) || strings.Count(got, "tile holds") != 1 {
		t.Errorf("want the shared declaration as\n%s\nin\n%s", want, got)
	}
}
