//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestCoopMat2Info: AdapterInfo.CoopMat2 is reported exactly when the
// device has VK_NV_cooperative_matrix2 (enabled with its features), and a
// kernel with workgroup-scope matrices is refused, naming the feature, by
// a device without it (lavapipe) and loads on one with it (the H200,
// where coopmat's TestCoop2Device runs such kernels).
func TestCoopMat2Info(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	has := slices.Contains(info.Extensions, extCoopMat2NV)
	if c := info.CoopMat2; (c != nil) != has {
		t.Fatalf("CoopMat2 = %+v with the extension %v", c, has)
	} else if c != nil && c.WorkgroupScope && (c.MaxWorkgroupSize == 0 || len(c.Flexible) == 0) {
		t.Errorf("workgroup scope without limits or flexible shapes: %+v", c)
	}
	m, err := parse.Load("wg.kc", []byte("enable cooperative_matrix\nenable cooperative_matrix2\n"+
		"kernel wg(c read_write []f32) workgroup(32) {\n\tcoopStore(coopmat<f32, 16, 16, acc, workgroup>(1.0), c, 0, 16, row_major)\n}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := spirv.Emit(m, spirv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Load(context.Background(), a)
	var unsup *ir.UnsupportedError
	switch {
	case info.CoopMat2 == nil || !info.CoopMat2.WorkgroupScope:
		if !errors.As(err, &unsup) || unsup.Feature != "cooperative_matrix" && unsup.Feature != "cooperative_matrix2" {
			t.Errorf("%s: load: %v, want an UnsupportedError naming a cooperative-matrix feature", info.Name, err)
		}
	case err != nil:
		t.Errorf("%s: load: %v", info.Name, err)
	}
}
