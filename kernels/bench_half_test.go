package kernels_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/kernels"
)

// BenchmarkHalf measures the 16-bit ops on the policy's device (the H200
// through the Vulkan driver; KC_DEVICE selects another), each beside a
// device-to-device copy of 256 MiB in the same run:
//
//	go test ./kernels -run '^$' -bench Half -benchtime 20x
//
// Decode products (x [m, 4096] · Wᵀ, W [4096, 4096] f16 or bf16) report
// GB/s over the weight bytes; they rotate through 8 weight matrices
// (256 MiB, beyond the H200's 50 MiB L2) so that every read comes from
// memory, as a model's layers do; "hot" repeats one matrix. Each
// iteration records reps ops in one scope; the time is from the scope's
// end (its one submit) to the wait's return, so it is the GPU's time for
// the batch plus one submit and fence latency, not the host's recording.
func BenchmarkHalf(b *testing.B) {
	dev, c := openBench(b)
	small := dev.Info().Type == backend.TypeCPU // lavapipe: a short run
	mib := 1 << 20
	n := 64 * mib
	dim, mats := 4096, 8
	if small {
		n, dim, mats = mib, 512, 2
	}
	bench := func(name string, bytes, flops float64, reps int, op func(i int) (*kernels.Tensor, error)) {
		b.Run(name, func(b *testing.B) {
			warmUp(b, dev, func() (*kernels.Tensor, error) { return op(0) })
			var run time.Duration
			for i := 0; i < b.N; i++ {
				run += submitOps(b, dev, reps, op)
			}
			el := run.Seconds() / float64(b.N*reps)
			if bytes > 0 {
				b.ReportMetric(bytes/el/1e9, "GB/s")
			}
			if flops > 0 {
				b.ReportMetric(flops/el/1e12, "TFLOP/s")
			}
			b.ReportMetric(el*1e6, "us/op")
		})
	}
	x := fillOf(b, c, kernels.F32, n)
	bench(fmt.Sprintf("copy/%dMiB", 4*n/mib), float64(8*n), 0, 50, func(int) (*kernels.Tensor, error) { return c.Dup(x) })
	bench(fmt.Sprintf("copy/%dMiB/reps10", 4*n/mib), float64(8*n), 0, 10, func(int) (*kernels.Tensor, error) { return c.Dup(x) })
	for _, d := range []kernels.DType{kernels.F16, kernels.BF16} {
		ws := make([]*kernels.Tensor, mats)
		for i := range ws {
			ws[i] = fillOf(b, c, d, dim*dim)
			ws[i], _ = ws[i].Reshape(dim, dim)
		}
		wbytes := float64(2 * dim * dim)
		for _, m := range []int{1, 16} {
			for _, xd := range []kernels.DType{kernels.F32, d} {
				xm, _ := fillOf(b, c, xd, m*dim).Reshape(m, dim)
				flops := 2 * float64(m*dim*dim)
				bench(fmt.Sprintf("decode/%s_x%s/m%d/k%d", d, xd, m, dim), wbytes, flops, 100, func(i int) (*kernels.Tensor, error) {
					return c.MatMulBT(xm, ws[i%mats], 1)
				})
				if xd == kernels.F32 {
					bench(fmt.Sprintf("decode/%s_x%s/m%d/k%d/hot", d, xd, m, dim), wbytes, flops, 100, func(int) (*kernels.Tensor, error) {
						return c.MatMulBT(xm, ws[0], 1)
					})
				}
			}
		}
		if d == kernels.BF16 {
			continue
		}
		// x·W with W [k, n] (gemvt.kc; PyTorch's skinny baseline is this form)
		for _, m := range []int{1, 4} {
			xm, _ := fillOf(b, c, kernels.F32, m*dim).Reshape(m, dim)
			bench(fmt.Sprintf("decode_nt/f16_xf32/m%d/k%d", m, dim), wbytes, 2*float64(m*dim*dim), 100, func(i int) (*kernels.Tensor, error) {
				return c.MatMul(xm, ws[i%mats])
			})
		}
		xm1, _ := fillOf(b, c, kernels.F32, dim).Reshape(1, dim)
		for _, sl := range []int{16, 32, 128} {
			c.SetGEMVTSlices(sl)
			bench(fmt.Sprintf("decode_nt/f16/m1/slices%d", sl), wbytes, 0, 100, func(i int) (*kernels.Tensor, error) {
				return c.MatMul(xm1, ws[i%mats])
			})
		}
		c.SetGEMVTSlices(0)
		// the f16 team shapes of gemv.kc at m = 1, to tune the default
		xm, _ := fillOf(b, c, kernels.F32, dim).Reshape(1, dim)
		for _, tr := range [][2]int{{32, 2}, {64, 1}, {64, 4}, {128, 2}, {256, 2}} {
			c.SetGEMV(tr[0], tr[1])
			bench(fmt.Sprintf("decode/f16/m1/team%d_r%d", tr[0], tr[1]), wbytes, 0, 100, func(i int) (*kernels.Tensor, error) {
				return c.MatMulBT(xm, ws[i%mats], 1)
			})
		}
		xm16, _ := fillOf(b, c, kernels.F32, 16*dim).Reshape(16, dim)
		for _, tr := range [][2]int{{32, 1}, {128, 1}, {64, 2}} {
			c.SetGEMV(tr[0], tr[1])
			bench(fmt.Sprintf("decode/f16/m16/team%d_r%d", tr[0], tr[1]), wbytes, 0, 100, func(i int) (*kernels.Tensor, error) {
				return c.MatMulBT(xm16, ws[i%mats], 1)
			})
		}
		c.SetGEMV(0, 0)
		// the same products without gemv.kc: cooperative matrices (x cast
		// to f16) where the device has them, to place the threshold
		c.SetNoGEMV(true)
		for _, m := range []int{1, 16} {
			xm, _ := fillOf(b, c, kernels.F32, m*dim).Reshape(m, dim)
			bench(fmt.Sprintf("decode/f16/m%d/nogemv", m), wbytes, 2*float64(m*dim*dim), 100, func(i int) (*kernels.Tensor, error) {
				return c.MatMulBT(xm, ws[i%mats], 1)
			})
		}
		c.SetNoGEMV(false)
		// the full product through the Tensor API (cooperative matrices)
		a, _ := ws[1].Reshape(dim, dim)
		bench(fmt.Sprintf("matmul/f16/%d", dim), 0, 2*math.Pow(float64(dim), 3), 5, func(int) (*kernels.Tensor, error) { return c.MatMul(a, ws[0]) })
		bench(fmt.Sprintf("matmulbt/f16/%d", dim), 0, 2*math.Pow(float64(dim), 3), 5, func(int) (*kernels.Tensor, error) { return c.MatMulBT(a, ws[0], 1) })
	}
	h := fillOf(b, c, kernels.F16, 2*n) // 256 MiB of f16
	h2 := fillOf(b, c, kernels.F16, 2*n)
	bench(fmt.Sprintf("f16/add/%dMiB", 4*n/mib), float64(12*n), 0, 50, func(int) (*kernels.Tensor, error) { return c.Add(h, h2) })
	bench(fmt.Sprintf("f16/silu/%dMiB", 4*n/mib), float64(8*n), 0, 50, func(int) (*kernels.Tensor, error) { return c.SiLU(h) })
	for _, d := range []int{4096, 32768} {
		hr, _ := h.Reshape(-1, d)
		w := fillOf(b, c, kernels.F16, d)
		bench(fmt.Sprintf("f16/rmsnorm/d%d", d), float64(8*n), 0, 50, func(int) (*kernels.Tensor, error) { return c.RMSNorm(hr, w, 1e-5) })
	}
}

func fillOf(b *testing.B, c *kernels.Context, d kernels.DType, n int) *kernels.Tensor {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%97)/97 - 0.5
	}
	t, err := c.TensorOf(d, xs, n)
	if err != nil {
		b.Fatal(err)
	}
	return t
}
