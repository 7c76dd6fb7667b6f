package kernels_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// TestHostForms: each host-convenience form returns exactly what its
// Tensor form (checked against float64 by the other tests) returns.
func TestHostForms(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	ctx := context.Background()
	const m, k, n = 5, 17, 3
	a, b, bt := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, k*n, -1, 1), kctest.Randn(rng, n*k, -1, 1)
	w, bias := kctest.Randn(rng, k, -1, 1), kctest.Randn(rng, k, -1, 1)
	v := kctest.Randn(rng, n*4, -1, 1)
	T := func(xs []float32, shape ...int) *kernels.Tensor { return upload(t, c, xs, shape...) }
	cases := []struct {
		name   string
		host   func() ([]float32, error)
		tensor func() (*kernels.Tensor, error)
	}{
		{"add", func() ([]float32, error) { return c.AddHost(ctx, a, a) }, func() (*kernels.Tensor, error) { return c.Add(T(a, m*k), T(a, m*k)) }},
		{"silu", func() ([]float32, error) { return c.SiLUHost(ctx, a) }, func() (*kernels.Tensor, error) { return c.SiLU(T(a, m*k)) }},
		{"softmax", func() ([]float32, error) { return c.SoftmaxHost(ctx, a, m, k) }, func() (*kernels.Tensor, error) { return c.Softmax(T(a, m, k)) }},
		{"layernorm", func() ([]float32, error) { return c.LayerNormHost(ctx, a, w, bias, m, k, 1e-5) },
			func() (*kernels.Tensor, error) { return c.LayerNorm(T(a, m, k), T(w, k), T(bias, k), 1e-5) }},
		{"matmul", func() ([]float32, error) { return c.MatMulHost(ctx, a, b, m, k, n) }, func() (*kernels.Tensor, error) { return c.MatMul(T(a, m, k), T(b, k, n)) }},
		{"matmulbt", func() ([]float32, error) { return c.MatMulBTHost(ctx, a, bt, m, n, k, 0.5) },
			func() (*kernels.Tensor, error) { return c.MatMulBT(T(a, m, k), T(bt, n, k), 0.5) }},
		{"attention", func() ([]float32, error) { return c.AttentionHost(ctx, a, bt, v, m, n, k, 4, 0.25) },
			func() (*kernels.Tensor, error) { return c.Attention(T(a, m, k), T(bt, n, k), T(v, n, 4), 0.25) }},
	}
	for _, tc := range cases {
		got, err := tc.host()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		y, err := tc.tensor()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := host(t, y); !slices.Equal(got, want) {
			t.Errorf("%s: host form differs from the tensor form", tc.name)
		}
	}
	var se *kernels.ShapeError
	if _, err := c.AddHost(ctx, a, b); !errors.As(err, &se) {
		t.Errorf("AddHost of %d and %d values: %v, want a *ShapeError", len(a), len(b), err)
	}
	if _, err := c.MatMulHost(ctx, a, b, m, k+1, n); !errors.As(err, &se) {
		t.Errorf("MatMulHost with a wrong k: %v, want a *ShapeError", err)
	}
}
