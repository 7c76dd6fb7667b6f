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
		{"RoPE", testRoPE}, {"CausalAttention", testCausalAttention}, {"Causality", testCausality},
		{"DecodeAttention", testDecodeAttention}, {"TransformerBlock", testTransformerBlock},
		{"Cast", testCast}, {"HalfElementwise", testHalfElementwise}, {"HalfNorms", testHalfNorms},
		{"HalfMatMul", testHalfMatMul},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, c) })
	}
}

// TestGrid2D runs the ops whose grids spread over x and y with a limit of
// 3 workgroups per dimension, as tensors beyond 65535 workgroups do on a
// real device: every element and row must still be covered exactly once.
func TestGrid2D(t *testing.T) {
	c := open(t, "vulkan")
	c.SetMaxGroups(3)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *kernels.Context)
	}{
		{"Binary", testBinary}, {"Unary", testUnary}, {"ScaleAndBias", testScaleAndBias},
		{"Softmax", testSoftmax}, {"Norms", testNorms}, {"Gather", testGather}, {"RoPE", testRoPE},
		{"Cast", testCast}, {"HalfElementwise", testHalfElementwise}, {"HalfNorms", testHalfNorms},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, c) })
	}
}

// TestRowsLooped runs the row ops through rows.kc at every length (the
// kernels for rows too long for registers).
func TestRowsLooped(t *testing.T) {
	c := open(t, "vulkan")
	c.SetRowsLooped(true)
	t.Run("Softmax", func(t *testing.T) { testSoftmax(t, c) })
	t.Run("Norms", func(t *testing.T) { testNorms(t, c) })
}
