package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// benchSetups give each corpus kernel test-sized inputs: 4096 elements,
// 64x64 matrices, 16 rows of 1024.
var benchSetups = map[string]func(r *rng) (kernel string, groups [3]int, a *Args){
	"saxpy": func(r *rng) (string, [3]int, *Args) {
		return "saxpy", [3]int{64, 1, 1}, &Args{Params: params("a", float32(2), "n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -1, 1)), "y": Encode(r.floats(4096, -1, 1))}}
	},
	"vecadd_bounded": func(r *rng) (string, [3]int, *Args) {
		return "vecadd_bounded", [3]int{16, 1, 1}, &Args{Buffers: map[string][]byte{"a": Encode(r.floats(4096, -1, 1)), "b": Encode(r.floats(4096, -1, 1)), "c": Poison(4 * 4096)}}
	},
	"reduce_workgroup": func(r *rng) (string, [3]int, *Args) {
		return "reduce_workgroup", [3]int{16, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -1, 1)), "out": Poison(64)}}
	},
	"reduce_subgroup": func(r *rng) (string, [3]int, *Args) {
		return "reduce_subgroup", [3]int{16, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -1, 1)), "out": Poison(64)}}
	},
	"matmul_tiled": func(r *rng) (string, [3]int, *Args) {
		return "matmul_tiled", [3]int{1, 1, 1}, &Args{Params: params("M", 64, "N", 64, "K", 64), Buffers: map[string][]byte{"A": Encode(r.floats(4096, -1, 1)), "B": Encode(r.floats(4096, -1, 1)), "C": Poison(4 * 4096)}}
	},
	"transpose_padded": func(r *rng) (string, [3]int, *Args) {
		return "transpose_padded", [3]int{4, 4, 1}, &Args{Params: params("rows", 64, "cols", 64), Buffers: map[string][]byte{"src": Encode(r.u32s(4096)), "dst": Poison(4 * 4096)}}
	},
	"softmax_row": func(r *rng) (string, [3]int, *Args) {
		return "softmax_row", [3]int{16, 1, 1}, &Args{Params: params("rows", 16, "cols", 1024), Buffers: map[string][]byte{"x": Encode(r.floats(16384, -4, 4)), "y": Poison(4 * 16384)}}
	},
	"layernorm": func(r *rng) (string, [3]int, *Args) {
		return "layernorm", [3]int{16, 1, 1}, &Args{Params: params("rows", 16, "cols", 1024, "eps", float32(1e-5)), Buffers: map[string][]byte{
			"x": Encode(r.floats(16384, -4, 4)), "gamma": Encode(r.floats(1024, 0, 1)), "beta": Encode(r.floats(1024, 0, 1)), "y": Poison(4 * 16384)}}
	},
	"rmsnorm": func(r *rng) (string, [3]int, *Args) {
		return "rmsnorm", [3]int{16, 1, 1}, &Args{Params: params("rows", 16, "cols", 1024, "eps", float32(1e-5)), Buffers: map[string][]byte{
			"x": Encode(r.floats(16384, -4, 4)), "w": Encode(r.floats(1024, 0, 1)), "y": Poison(4 * 16384)}}
	},
	"prefix_scan": func(r *rng) (string, [3]int, *Args) {
		return "prefix_scan", [3]int{16, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.u32s(4096)), "y": Poison(4 * 4096)}}
	},
	"histogram_atomic": func(r *rng) (string, [3]int, *Args) {
		return "histogram_atomic", [3]int{16, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.u32s(4096)), "hist": make([]byte, 256), "stats": make([]byte, 8)}}
	},
	"int_bits": func(r *rng) (string, [3]int, *Args) {
		return "int_bits", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.i32s(4096)), "b": Encode(r.i32s(4096)), "out": Poison(4 * 24 * 4096)}}
	},
	"conversions": func(r *rng) (string, [3]int, *Args) {
		return "conversions", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -3, 3)), "k": Encode(r.i32s(4096)), "out": Poison(4 * 8 * 4096)}}
	},
	"math_intrinsics": func(r *rng) (string, [3]int, *Args) {
		return "math_intrinsics", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -6, 6)), "out": Poison(4 * 16 * 4096)}}
	},
	"vec4_math": func(r *rng) (string, [3]int, *Args) {
		return "vec4_math", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.floats(4*4096, -2, 2)), "b": Encode(r.floats(4*4096, -2, 2)), "out": Poison(16 * 4096), "dots": Poison(4 * 4096)}}
	},
	"control_flow": func(r *rng) (string, [3]int, *Args) {
		return "control_flow", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.i32s(4096)), "y": Poison(4 * 4096)}}
	},
	"specialized": func(r *rng) (string, [3]int, *Args) {
		return "specialized", [3]int{8, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -1, 1)), "y": Poison(4 * 4096)}}
	},
	"two_kernels": func(r *rng) (string, [3]int, *Args) {
		return "scale", [3]int{64, 1, 1}, &Args{Params: params("s", float32(1)), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -1, 1))}}
	},
	"f16_elementwise": func(r *rng) (string, [3]int, *Args) {
		return "f16_elementwise", [3]int{64, 1, 1}, &Args{Params: params("n", 4096, "scale", float32(0.5)), Buffers: map[string][]byte{
			"a": Encode(F32sToF16Bits(r.floats(4096, -4, 4))), "b": Encode(F32sToF16Bits(r.floats(4096, -4, 4))), "out": Poison(2 * 4096)}}
	},
	"geometry_intrinsics": func(r *rng) (string, [3]int, *Args) {
		return "geometry_intrinsics", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.floats(4*4096, -2, 2)), "b": Encode(r.floats(4*4096, -2, 2)), "out": Poison(4 * 21 * 4096)}}
	},
	"vector_bool": func(r *rng) (string, [3]int, *Args) {
		return "vector_bool", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.floats(4*4096, -2, 2)), "b": Encode(r.floats(4*4096, -2, 2)),
			"p": Encode(r.i32s(4 * 4096)), "q": Encode(r.i32s(4 * 4096)), "out": Poison(4 * 8 * 4096), "f": Poison(16 * 2 * 4096)}}
	},
	"atomic_cas": func(r *rng) (string, [3]int, *Args) {
		return "atomic_cas", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"x": Encode(r.u32s(4096)), "own": Encode(r.u32s(4096)),
			"res": Poison(4 * 2 * 4096), "gmax": Encode([]uint32{0}), "wmin": Poison(4 * 64)}}
	},
	"grid_stride": func(r *rng) (string, [3]int, *Args) {
		return "grid_stride", [3]int{16, 2, 3}, &Args{Params: params("a", float32(0.5), "n", 4096), Buffers: map[string][]byte{"x": Encode(r.floats(4096, -2, 2)), "y": Encode(r.floats(4096, -2, 2)), "steps": Poison(4 * 1024 * 6)}}
	},
	"dot4_packed": func(r *rng) (string, [3]int, *Args) {
		return "dot4_packed", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.u32s(4096)), "b": Encode(r.u32s(4096)), "s": Poison(4 * 4096), "u": Poison(4 * 4096)}}
	},
	"f16_geometry": func(r *rng) (string, [3]int, *Args) {
		return "f16_geometry", [3]int{64, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{
			"a": Encode(F32sToF16Bits(r.floats(4*4096, -2, 2))), "b": Encode(F32sToF16Bits(r.floats(4*4096, -2, 2))), "out": Poison(2 * 14 * 4096)}}
	},
	"packing": func(r *rng) (string, [3]int, *Args) {
		return "packing", [3]int{4, 1, 1}, &Args{Params: params("n", 4096), Buffers: map[string][]byte{"a": Encode(r.floats(4*4096, -2, 2)), "k": Encode(r.u32s(4096)), "out": Poison(4 * 11 * 4096), "f": Poison(16 * 3 * 4096)}}
	},
}

// BenchmarkRun runs every corpus kernel at test sizes.
func BenchmarkRun(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		b.Run(c.Name, func(b *testing.B) {
			setup := benchSetups[c.Name]
			if setup == nil {
				b.Fatalf("no benchmark inputs for corpus kernel %s", c.Name)
			}
			m := c.Module(b)
			kernel, groups, a := setup(&rng{rand.New(rand.NewPCG(1, 2)), 1})
			b.ResetTimer()
			for b.Loop() {
				if err := Run(m, kernel, groups, a, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
