package hlsl

import (
	"context"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestPostWithEffects: a call with effects in a for statement's post
// statement needs hoisted statements, which HLSL's for header cannot hold.
// The loop tests its condition at the top of the body and runs the post at
// the end of the body and, in a block of its own, before each continue of
// that loop; a continue of an inner loop is left alone. glslang compiles
// the result (internal/difftest TestCompoundPostOrder runs it on a device).
func TestPostWithEffects(t *testing.T) {
	m := loadSrc(t, "post.kc", `fn next(y read_write []u32, i u32) u32 {
	y[i] = i
	return i + 1
}

kernel k(y read_write []u32) workgroup(1) {
	for i := u32(0); i < 4; i = next(y, i) {
		if i == 2 {
			continue
		}
		for j := u32(0); j < 2; j++ {
			if j == i {
				continue
			}
			y[9] += j
		}
		y[8] = i
	}
}
`)
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(a.Code)
	// #line directives aside, the loop must read as below: the post's call
	// hoisted into a temporary, once before the outer continue and once at
	// the end of the body; the inner loop's post stays in its header.
	var lines []string
	for _, l := range strings.Split(code, "\n") {
		if !strings.HasPrefix(l, "#line") {
			lines = append(lines, l)
		}
	}
	body := strings.Join(lines, "\n")
	want := `	for (uint i = 0u; ; ) {
		if (!(i < 4u)) {
			break;
		}
		if (i == 2u) {
			{
				uint kc_t0 = next(i);
				i = kc_t0;
				continue;
			}
		}
		for (uint j = 0u; j < 2u; j += 1u) {
			if (j == i) {
				continue;
			}
			y[9] += j;
		}
		y[8] = i;
		uint kc_t0 = next(i);
		i = kc_t0;
	}`
	if !strings.Contains(body, want) {
		t.Errorf("want the loop\n%s\nin:\n%s", want, code)
	}
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	if _, err := CompileSPIRV(context.Background(), a, "k", CompileOptions{Compiler: Glslang}); err != nil {
		t.Fatal(err)
	}
}

// TestNumWorkgroupsInFunction: a helper function reading num_workgroups
// reads the kernel's hidden params field, which the kernel declares even
// when only its functions read it (both found by internal/difftest with
// irgen's Lang kernels: the function spelled it as an empty name), and
// glslang compiles it.
func TestNumWorkgroupsInFunction(t *testing.T) {
	m := loadSrc(t, "nwg.kc", `fn groups(k u32) u32 {
	return num_workgroups.x * k + num_workgroups.y
}

kernel k(n u32, y read_write []u32) workgroup(64) {
	if global_id.x < n {
		y[global_id.x] = groups(global_id.x)
	}
}
`)
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(a.Code)
	if !strings.Contains(code, "return kc_num_workgroups.x * k_1 + kc_num_workgroups.y;") {
		t.Errorf("the function does not read the hidden field:\n%s", code)
	}
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	if _, err := CompileSPIRV(context.Background(), a, "k", CompileOptions{Compiler: Glslang}); err != nil {
		t.Fatal(err)
	}
}

// TestSelectEffectOrderText pins the order HLSL gives reads next to effects in
// one statement. atomicLoad has no effect (it writes nothing) but, like
// every atomic, is hoisted into a temporary where it is evaluated, so it
// lands before or after an atomicAdd or a helper that writes, as kc orders
// them; a shared scalar, read by its bare name, is hoisted before a later
// effect like any other read of memory, as an index too
// (internal/difftest TestSelectReadOrder runs these on devices).
func TestSelectEffectOrderText(t *testing.T) {
	m := loadSrc(t, "ord.kc", `fn inc(h read_write []atomic<u32>) u32 {
	return atomicAdd(h[2], 5)
}

fn pk(t shared u32, v u32) u32 {
	t = t + v
	return v
}

kernel k(h read_write []atomic<u32>, out read_write []u32) workgroup(1) {
	shared t u32
	out[0] = atomicLoad(h[1]) * 100 + atomicAdd(h[1], 1)
	out[1] = atomicAdd(h[1], 1) * 100 + atomicLoad(h[1])
	out[2] = atomicLoad(h[2]) * 100 + inc(h)
	out[3] = inc(h) * 100 + atomicLoad(h[2])
	out[4] = t + pk(t, 4)
	out[t] = pk(t, 4)
	out[5] = select(atomicLoad(h[2]) == 0, inc(h), atomicLoad(h[2]))
}
`)
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(a.Code)
	_, body, ok := strings.Cut(code, "void k(")
	if !ok {
		t.Fatalf("no entry point k:\n%s", code)
	}
	var got []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "InterlockedOr(h") || strings.HasPrefix(l, "InterlockedAdd(h") ||
			strings.HasPrefix(l, "uint kc_t") && strings.Contains(l, "=") || strings.HasPrefix(l, "out_[") {
			got = append(got, l)
		}
	}
	want := []string{
		"InterlockedOr(h[1], 0u, kc_t0);",
		"InterlockedAdd(h[1], 1u, kc_t1);",
		"out_[0] = kc_t0 * 100u + kc_t1;",
		"InterlockedAdd(h[1], 1u, kc_t2);",
		"InterlockedOr(h[1], 0u, kc_t3);",
		"out_[1] = kc_t2 * 100u + kc_t3;",
		"InterlockedOr(h[2], 0u, kc_t4);",
		"uint kc_t5 = inc();",
		"out_[2] = kc_t4 * 100u + kc_t5;",
		"uint kc_t6 = inc();",
		"InterlockedOr(h[2], 0u, kc_t7);",
		"out_[3] = kc_t6 * 100u + kc_t7;",
		"uint kc_t8 = t;",
		"uint kc_t9 = pk(4u);",
		"out_[4] = kc_t8 + kc_t9;",
		"uint kc_t10 = t;",
		"uint kc_t11 = pk(4u);",
		"out_[kc_t10] = kc_t11;",
		"InterlockedOr(h[2], 0u, kc_t12);",
		"uint kc_t13 = inc();",
		"InterlockedOr(h[2], 0u, kc_t14);",
		"out_[5] = kc_t12 == 0u ? kc_t13 : kc_t14;",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements in this order:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
