package hlsl_test

import (
	"errors"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestCoopMatRefused: hlsl has no lowering of cooperative matrices or
// bf16 yet; a kernel using either is a positioned *ir.UnsupportedError
// naming the feature and the target, never broken text.
func TestCoopMatRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"enable cooperative_matrix\nkernel k(c read_write []f32) workgroup(32) {\n\tlet m = coopmat<f32, 16, 16, acc>(1.0)\n\tcoopStore(m, c, 0, 16, row_major)\n}\n",
			"k.kc:3:10: cooperative_matrix is not supported by target hlsl"},
		{"enable bf16\nkernel k(h read_write []bf16) workgroup(32) {\n\th[0] = bf16(2.0)\n}\n",
			"k.kc:2:10: bf16 is not supported by target hlsl"},
		{"enable int8\nkernel k(h read_write []u8) workgroup(32) {\n\th[0] = h[1]\n}\n",
			"k.kc:2:10: int8 is not supported by target hlsl"},
	} {
		m, err := parse.File("k.kc", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(m); err != nil {
			t.Fatal(err)
		}
		a, err := hlsl.Emit(m, hlsl.Options{})
		var u *ir.UnsupportedError
		if !errors.As(err, &u) || a != nil {
			t.Fatalf("got %v, %v; want an *ir.UnsupportedError and no artifact", a, err)
		}
		if err.Error() != tc.want {
			t.Errorf("error %q, want %q", err, tc.want)
		}
	}
}
