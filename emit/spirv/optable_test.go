package spirv

import (
	"context"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestOpTable emits every row of ir's op tables at every type it applies
// to (kctest.OpTable) and validates each module with spirv-val: an
// operator, builtin, conversion or intrinsic the emitter does not handle,
// or lowers to invalid SPIR-V, fails here rather than in a user's kernel.
func TestOpTable(t *testing.T) {
	ctx := context.Background()
	for _, c := range kctest.OpTable(t) {
		a, err := Emit(c.Module, Options{})
		if err != nil {
			t.Errorf("%s: %v\n%s", c, err, c.Src)
			continue
		}
		if err := ValidateArtifact(ctx, a); err != nil {
			t.Errorf("%s: %v\n%s", c, err, c.Src)
		}
	}
}
