package kernels_test

import (
	"testing"

	"github.com/kcgo/kc/kernels"
)

// TestWGPU runs a subset of the ops through the wgpu driver (WGSL through
// naga onto lavapipe): one of each kernel file's families and the block.
func TestWGPU(t *testing.T) {
	c := open(t, "wgpu")
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *kernels.Context)
	}{
		{"Binary", testBinary}, {"Unary", testUnary}, {"MatMul", testMatMul},
		{"Softmax", testSoftmax}, {"Norms", testNorms}, {"Transpose", testTranspose},
		{"RoPE", testRoPE}, {"CausalAttention", testCausalAttention}, {"TransformerBlock", testTransformerBlock},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, c) })
	}
}
