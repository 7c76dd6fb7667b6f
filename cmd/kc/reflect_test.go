package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestReflectGolden: kc reflect's JSON for every test kernel matches
// testdata/golden/NAME.json (go test -update rewrites them), and agrees
// with the binding layout the backend derives for dispatch.
func TestReflectGolden(t *testing.T) {
	t.Chdir(kctest.Root(t))
	for _, c := range kctest.Cases(t) {
		path := filepath.ToSlash(filepath.Join("testdata", "kernels", c.Name+".kc"))
		args := append([]string{"reflect"}, defineArgs(c)...)
		out, stderr, code := kc(t, "", append(args, path)...)
		if code != exitOK {
			t.Fatalf("kc reflect %s: exit %d\n%s", c.Name, code, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "golden", c.Name+".json"), []byte(out))

		var r ir.Reflection
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		m := c.Module(t)
		if len(r.Kernels) != len(m.Kernels) {
			t.Fatalf("%s: %d kernels reflected, module has %d", c.Name, len(r.Kernels), len(m.Kernels))
		}
		for i, k := range m.Kernels {
			checkReflection(t, r.Kernels[i], k)
		}
	}
}

// checkReflection compares kc reflect's JSON for kernel k with the IR's
// layout functions (ir/layout.go), which the emitters bind by.
func checkReflection(t *testing.T, kr ir.KernelReflection, k *ir.Kernel) {
	t.Helper()
	if kr.Name != k.Name || kr.Workgroup != k.Size {
		t.Errorf("%s: name/workgroup %s %v, kernel %v", k.Name, kr.Name, kr.Workgroup, k.Size)
	}
	size := ir.ParamsSize(k) // the scalars and the hidden num_workgroups field
	if (kr.Params == nil) != (size == 0) || kr.Params != nil && kr.Params.Size != size {
		t.Errorf("%s: params block %+v, layout %d bytes", k.Name, kr.Params, size)
	}
	if off := ir.NumWorkgroupsOffset(k); kr.Params != nil && (kr.Params.NumWorkgroups == nil) != (off < 0) ||
		kr.Params != nil && kr.Params.NumWorkgroups != nil && *kr.Params.NumWorkgroups != off {
		t.Errorf("%s: num_workgroups field %v, layout's offset %d", k.Name, kr.Params.NumWorkgroups, off)
	}
	bufs := ir.Buffers(k)
	if len(kr.Buffers) != len(bufs) {
		t.Fatalf("%s: %d buffers reflected, kernel has %d", k.Name, len(kr.Buffers), len(bufs))
	}
	for i, b := range kr.Buffers {
		s := bufs[i]
		if b.Binding != ir.BufferBinding(k, s) || b.Name != s.Name || b.Stride != ir.ElemStride(s.Type) || b.ReadOnly() != (s.Access == ir.Read) {
			t.Errorf("%s: buffer %+v, kernel's %s", k.Name, b, s.Name)
		}
		if i > 0 && b.Binding <= kr.Buffers[i-1].Binding {
			t.Errorf("%s: buffers not sorted by binding", k.Name)
		}
	}
	hasF16 := false
	for _, f := range kr.Features {
		hasF16 = hasF16 || f == "f16"
	}
	if hasF16 != (k.Features&ir.FeatureF16 != 0) {
		t.Errorf("%s: features %v, kernel uses %v", k.Name, kr.Features, k.Features)
	}
}

// TestReflectNoOrphans: every golden .json belongs to a test kernel.
func TestReflectNoOrphans(t *testing.T) {
	root := kctest.Root(t)
	have := map[string]bool{}
	for _, c := range kctest.Cases(t) {
		have[c.Name] = true
	}
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*.json"))
	for _, f := range files {
		if name := filepath.Base(f); !have[name[:len(name)-len(".json")]] {
			t.Errorf("orphan golden file %s: no testdata/kernels/%s.kc", f, name[:len(name)-len(".json")])
		}
	}
}
