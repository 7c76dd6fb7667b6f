package interp

import (
	"strings"
	"testing"
)

// coop2MatmulSrc: C = alpha * A·B with one workgroup-scope 32x64
// accumulator per workgroup of 128 invocations (four subgroups of 32: the
// matrix is one value for all of them), k-steps of 16 read straight from
// the buffers, B column-major from its transpose Bt (N x K).
const coop2MatmulSrc = `
enable f16
enable cooperative_matrix
enable cooperative_matrix2

kernel mm(A read []f16, Bt read []f16, C read_write []f32, M u32, N u32, K u32, alpha f32) workgroup(128) {
	let row = workgroup_id.y * 32
	let col = workgroup_id.x * 64
	var acc coopmat<f32, 32, 64, acc, workgroup>
	for k := u32(0); k < K; k += 16 {
		let a = coopLoad<coopmat<f16, 32, 16, a, workgroup>>(A, row * K + k, K, row_major)
		let b = coopLoad<coopmat<f16, 16, 64, b, workgroup>>(Bt, col * K + k, K, col_major)
		acc = coopMulAdd(a, b, acc)
	}
	coopStore(acc * alpha, C, row * N + col, N, row_major)
	if local_index == 0 {
		C[row * N + col] = f32(coopLength(acc))
	}
}
`

// TestCoopMat2Matmul runs the workgroup-scope matmul on random f16 inputs
// against a float64 reference of the rounded inputs (tolerance as
// TestCoopMatMatmul's), with the race checker on, and checks that
// coopLength divides the matrix among the workgroup's 128 invocations
// (2048 / 128 = 16 elements each).
func TestCoopMat2Matmul(t *testing.T) {
	m := compile(t, coop2MatmulSrc)
	r := newRNG(t)
	const M, N, K = 64, 128, 48
	alpha := float32(0.5 + r.Float64())
	round := func(v []float32) ([]uint16, []float64) {
		bits := make([]uint16, len(v))
		exact := make([]float64, len(v))
		for i, x := range v {
			bits[i] = F32ToF16Bits(x)
			exact[i] = float64(F16BitsToF32(bits[i]))
		}
		return bits, exact
	}
	aBits, a := round(r.floats(M*K, -2, 2))
	bBits, bt := round(r.floats(N*K, -2, 2))
	c := Poison(4 * M * N)
	mustRun(t, m, "mm", [3]int{N / 64, M / 32, 1}, &Args{
		Params:  params("M", M, "N", N, "K", K, "alpha", alpha),
		Buffers: map[string][]byte{"A": Encode(aBits), "Bt": Encode(bBits), "C": c},
	}, Options{SubgroupSize: 32, Races: true})
	got, _ := Decode[float32](c)
	bad := 0
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			if i%32 == 0 && j%64 == 0 { // the tile's first element: coopLength
				if got[i*N+j] != 16 {
					t.Errorf("coopLength of a 32x64 workgroup-scope matrix over 128 invocations = %v, want 16", got[i*N+j])
				}
				continue
			}
			want, mag := dotRef(K, func(k int) float64 { return a[i*K+k] * bt[j*K+k] })
			want *= float64(alpha)
			mag *= float64(alpha)
			if !closeTo(t, "C", i*N+j, got[i*N+j], want, float64(K/16+2)*2*eps32*mag) {
				bad++
			}
			if bad > 10 {
				t.Fatal("too many errors")
			}
		}
	}
}

// TestCoopMat2Errors: a workgroup-scope operation with operands that
// differ within the workgroup (here between its two subgroups, which
// subgroup scope would allow) stops the run, as does one outside its
// buffer. (Reaching one from part of the workgroup is a check error:
// uniform control flow, TestCheckCoopMat2.)
func TestCoopMat2Errors(t *testing.T) {
	src := `
enable cooperative_matrix
enable cooperative_matrix2

kernel k(x read []f32, y read_write []f32, off u32) workgroup(64) {
	let m = coopLoad<coopmat<f32, 16, 16, acc, workgroup>>(x, local_index / 32 * off, 16, row_major)
	coopStore(m, y, 0, 16, row_major)
}
`
	m := compile(t, src)
	run := func(off int, x []float32) error {
		return Run(m, "k", [3]int{1, 1, 1}, &Args{
			Params:  params("off", off),
			Buffers: map[string][]byte{"x": Encode(x), "y": Poison(4 * 256)},
		}, Options{SubgroupSize: 32})
	}
	zeros := make([]float32, 512)
	if err := run(0, zeros); err != nil {
		t.Fatalf("uniform: %v", err)
	}
	for _, tc := range []struct {
		off  int
		x    []float32
		want string
	}{
		{1, zeros, "coopLoad: the offset differs between invocations of the workgroup (0 in invocation 0, 1 in invocation 32); it must be the same"},
		{0, zeros[:255], "coopLoad out of bounds: element (15, 15) is at index 255, outside the 255 elements"},
	} {
		err := run(tc.off, tc.x)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("off %d: error %v, want one containing %q", tc.off, err, tc.want)
		}
	}
}
