package ir_test

import (
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestNumWorkgroupsThroughCalls: the hidden num_workgroups field is there
// when the kernel reads the builtin itself or through a helper function
// (two calls deep), and absent otherwise.
func TestNumWorkgroupsThroughCalls(t *testing.T) {
	m, err := parse.Load("nwg.kc", []byte(`fn inner() u32 {
	return num_workgroups.y
}

fn outer(v u32) u32 {
	return inner() + v
}

fn plain(v u32) u32 {
	return v + 1
}

kernel direct(a f32, y read_write []u32) workgroup(64) {
	y[0] = num_workgroups.x
}

kernel through(a f32, y read_write []u32) workgroup(64) {
	y[0] = outer(1)
}

kernel none(a f32, y read_write []u32) workgroup(64) {
	y[0] = plain(1)
}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"direct": 16, "through": 16, "none": -1}
	for _, k := range m.Kernels {
		if got := ir.NumWorkgroupsOffset(k); got != want[k.Name] {
			t.Errorf("%s: offset %d, want %d", k.Name, got, want[k.Name])
		}
		size := 16
		if want[k.Name] >= 0 {
			size = 32
		}
		if got := ir.ParamsSize(k); got != size {
			t.Errorf("%s: params size %d, want %d", k.Name, got, size)
		}
	}
}
