package ir_test

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestInstances: a function is specialised once per tuple of resources it
// is called with in a kernel, callees first, with unique names.
func TestInstances(t *testing.T) {
	src := `fn g(b read []f32, i u32) f32 {
	return b[i]
}

fn f(b read []f32, s shared [4]f32, i u32) f32 {
	return g(b, i) + s[i % 4] + h(i)
}

fn h(i u32) f32 {
	return f32(i)
}

kernel k(x read []f32, y read []f32, out read_write []f32) workgroup(4) {
	shared s [4]f32
	shared t [4]f32
	let i = global_id.x
	out[i] = f(x, s, i) + f(y, s, i) + f(x, s, i + 1) + f(x, t, i) + h(i)
}
`
	m, err := parse.File("i.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	plan := ir.Instances(m.Kernels[0])
	var got []string
	for _, in := range plan.Instances {
		desc := in.Name + "(" + in.Func.Name
		for _, p := range in.Func.Params {
			if o, ok := in.Res[p]; ok {
				desc += " " + p.Name + "=" + o.ObjName()
			}
		}
		got = append(got, desc+")")
	}
	want := "g(g b=x) h(h) f(f b=x s=s) g_1(g b=y) f_1(f b=y s=s) f_2(f b=x s=t)"
	if strings.Join(got, " ") != want {
		t.Errorf("instances\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	// Each call in the kernel body maps to its instance; calls inside an
	// instance's body map per calling instance.
	var calls []string
	ir.Inspect(m.Kernels[0].Body, func(n ir.Node) bool {
		if c, ok := n.(*ir.FnCall); ok {
			calls = append(calls, plan.Callee(nil, c).Name)
		}
		return true
	})
	if strings.Join(calls, " ") != "f f_1 f f_2 h" {
		t.Errorf("kernel calls map to %v", calls)
	}
	for _, in := range plan.Instances {
		if in.Func.Name != "f" {
			continue
		}
		ir.Inspect(in.Func.Body, func(n ir.Node) bool {
			if c, ok := n.(*ir.FnCall); ok && c.Name == "g" {
				if callee := plan.Callee(in, c); callee.Res[callee.Func.Params[0]] != in.Res[in.Func.Params[0]] {
					t.Errorf("%s calls %s with a different buffer", in.Name, callee.Name)
				}
			}
			return true
		})
	}
}
