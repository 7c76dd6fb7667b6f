package multi_test

import (
	"math"
	"slices"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels/multi"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		w    []float64
		want []int
	}{
		{1, []float64{1, 1}, []int{1, 0}},
		{3, []float64{1, 1}, []int{2, 1}},
		{7, []float64{1, 1}, []int{4, 3}},
		{7, []float64{1, 1, 1}, []int{3, 2, 2}},
		{10, []float64{3, 1}, []int{8, 2}},
		{5, []float64{0, 1}, []int{0, 5}},
		{4, []float64{1, 0, 1}, []int{2, 0, 2}},
		{0, []float64{1, 1}, []int{0, 0}},
		{2, []float64{0, 0}, []int{0, 0}},
	} {
		if got := multi.Split(tc.n, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%d, %v) = %v, want %v", tc.n, tc.w, got, tc.want)
		}
	}
}

// TestSplitProportional: for random weights every count is within one of
// its exact share, the counts sum to n, and a zero weight gets nothing.
func TestSplitProportional(t *testing.T) {
	rng := kctest.NewRand(t)
	for it := 0; it < 2000; it++ {
		w := make([]float64, 1+rng.Intn(6))
		sum := 0.0
		for i := range w {
			if rng.Intn(4) > 0 {
				w[i] = rng.Float64() * 10
			}
			sum += w[i]
		}
		if sum == 0 {
			continue
		}
		n := rng.Intn(100)
		got := multi.Split(n, w)
		total := 0
		for i, c := range got {
			total += c
			if exact := float64(n) * w[i] / sum; math.Abs(float64(c)-exact) >= 1 || (w[i] == 0 && c != 0) {
				t.Fatalf("Split(%d, %v) = %v: count %d is %d, exact share %g", n, w, got, i, c, exact)
			}
		}
		if total != n {
			t.Fatalf("Split(%d, %v) = %v sums to %d", n, w, got, total)
		}
	}
}

func TestPolicy(t *testing.T) {
	as := []backend.AdapterInfo{
		{Index: 0, Driver: "vulkan", Name: "NVIDIA H200", API: "Vulkan 1.4.312", Type: backend.TypeDiscrete},
		{Index: 1, Driver: "vulkan", Name: "NVIDIA H200", API: "Vulkan 1.4.312", Type: backend.TypeDiscrete},
		{Index: 2, Driver: "vulkan", Name: "llvmpipe (LLVM 15.0.6, 256 bits)", API: "Vulkan 1.3.230", Type: backend.TypeCPU},
		{Index: 3, Driver: "wgpu", Name: "NVIDIA H200", API: "Vulkan", Type: backend.TypeDiscrete},
		{Index: 4, Driver: "wgpu", Name: "llvmpipe (LLVM 15.0.6, 256 bits)", API: "OpenGL", Type: backend.TypeCPU},
	}
	idx := func(as []backend.AdapterInfo) []int {
		var out []int
		for _, a := range as {
			out = append(out, a.Index)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		p    multi.Policy
		want []int
	}{
		{"all", multi.Policy{}, []int{0, 1, 2, 3, 4}},
		{"discrete", multi.Discrete, []int{0, 1}},
		{"wgpu", multi.Policy{Drivers: []string{"wgpu"}}, []int{3, 4}},
		{"vulkan api", multi.Policy{APIs: []string{"Vulkan"}}, []int{0, 1, 2, 3}},
		{"name", multi.Policy{Name: "h200"}, []int{0, 1, 3}},
		{"cpu by name and type", multi.Policy{Name: "LLVMPIPE", Types: []backend.DeviceType{backend.TypeCPU}, Drivers: []string{"vulkan"}}, []int{2}},
		{"accept", multi.Policy{Accept: func(a backend.AdapterInfo) bool { return a.Index%2 == 0 }}, []int{0, 2, 4}},
		{"none", multi.Policy{Name: "no such GPU"}, nil},
	} {
		if got := idx(tc.p.Filter(as)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
