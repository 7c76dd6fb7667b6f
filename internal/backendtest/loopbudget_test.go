package backendtest

import (
	"errors"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestCheckLoops: a run is named only past a known budget, with the
// kernel, the count, the device and the budget in the message.
func TestCheckLoops(t *testing.T) {
	k := &ir.Kernel{Name: "count"}
	lavapipe := backend.AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Limits: backend.Limits{MaxLoopIterations: backend.LLVMPipeLoopIterations}}
	for _, tc := range []struct {
		info  backend.AdapterInfo
		needs int64
		named bool
	}{{lavapipe, 65535, false}, {lavapipe, 65536, true}, {lavapipe, 0, false}, {backend.AdapterInfo{Name: "gpu"}, 1 << 40, false}} {
		err := CheckLoops(tc.info, k, interp.Stats{MaxLoopIterations: tc.needs, MaxLoopInvocation: [3]uint32{3, 1, 0}})
		var lb *LoopBudgetError
		if errors.As(err, &lb) != tc.named || (err != nil && !tc.named) {
			t.Fatalf("%s needing %d: %v, want named %v", tc.info.Name, tc.needs, err, tc.named)
		}
		const want = "kernel count needs 65536 loop iterations per invocation; device llvmpipe (LLVM 15.0.6, 256 bits) stops at 65535 (invocation global_id (3, 1, 0); Limits.MaxLoopIterations, a driver quirk: docs/lavapipe.md)"
		if tc.named && err.Error() != want {
			t.Fatalf("message %q, want %q", err, want)
		}
	}
}
