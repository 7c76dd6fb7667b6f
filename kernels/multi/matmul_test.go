package multi_test

import (
	"context"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels/multi"
)

// matmulRef is a[i]·w in float64 for a [batch·m, k] and w [k, n].
func matmulRef(a, w []float32, rows, k, n int) []float64 {
	out := make([]float64, rows*n)
	for r := 0; r < rows; r++ {
		for j := 0; j < n; j++ {
			var s float64
			for i := 0; i < k; i++ {
				s += float64(a[r*k+i]) * float64(w[i*n+j])
			}
			out[r*n+j] = s
		}
	}
	return out
}

// matmulTol: inputs in [-1, 1] and k = 33 terms: f32 accumulation errs by
// at most about k·2⁻²⁴·Σ|aᵢwᵢ| <= 33·6e-8·33 = 6.5e-5 (worst case; typical
// errors are ~1e-6).
var matmulTol = kctest.Tol{Abs: 1e-4, Rel: 0}

// TestMatMulSameAdapterTwice splits batched products over two devices
// opened on one adapter (lavapipe through the Vulkan driver) and checks
// them against float64 and, bit for bit, against one device running the
// whole batch: same driver, same kernels, and each row's dot products
// summed in one order whatever the rows around it.
func TestMatMulSameAdapterTwice(t *testing.T) {
	d0, d1 := openDev(t, "vulkan"), openDev(t, "vulkan")
	testMatMul(t, group(t, d0, d1), group(t, d0), kctest.Tol{})
}

// TestMatMulPerDriver splits the products over lavapipe through the
// Vulkan driver (kc's SPIR-V) and through wgpu (WGSL through naga), and
// compares with the Vulkan device alone. The two compilers may contract
// a·b+c into an fma differently (DESIGN.md's float rule), so the parts
// agree within the float64 bound, not bit for bit.
func TestMatMulPerDriver(t *testing.T) {
	dv, dw := openDev(t, "vulkan"), openDev(t, "wgpu")
	testMatMul(t, group(t, dv, dw), group(t, dv), matmulTol)
}

func testMatMul(t *testing.T, g, single *multi.Group, same1 kctest.Tol) {
	ctx := context.Background()
	rng := kctest.NewRand(t)
	const m, k, n = 5, 33, 17
	w := kctest.Randn(rng, k*n, -1, 1)
	mm, err := g.NewMatMul(ctx, w, k, n)
	if err != nil {
		t.Fatal(err)
	}
	defer mm.Close()
	ms, err := single.NewMatMul(ctx, w, k, n)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	devs := g.Workers()
	for _, batch := range []int{1, 3, 7, 2} {
		a := kctest.Randn(rng, batch*m*k, -1, 1)
		before := stats(devs)
		got := poisoned(batch * m * n)
		if err := mm.RunInto(ctx, got, a, batch, m); err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		checkShares(t, devs, before, multi.Split(batch, g.Weights()), m*k*4)
		kctest.Compare(t, "matmul", got, matmulRef(a, w, batch*m, k, n), matmulTol)
		want, err := ms.Run(ctx, a, batch, m)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "matmul", got, want, same1)
	}
}

func stats(ws []multi.Worker) []backend.Stats {
	out := make([]backend.Stats, len(ws))
	for i, w := range ws {
		out[i] = w.Device.Stats()
	}
	return out
}

// checkShares checks that each device did its share of the call and
// nothing more: it uploaded exactly its items' inputs (itemBytes each; the
// weights stay where NewMatMul or NewBlock put them), dispatched only when
// it had items, and read back once.
func checkShares(t *testing.T, ws []multi.Worker, before []backend.Stats, counts []int, itemBytes int) {
	t.Helper()
	for i, w := range ws {
		st := w.Device.Stats().Since(before[i])
		if st.BytesUp != uint64(counts[i]*itemBytes) {
			t.Errorf("device %v uploaded %d bytes for %d items, want %d (%v)", w, st.BytesUp, counts[i], counts[i]*itemBytes, st)
		}
		if (st.Dispatches > 0) != (counts[i] > 0) || (st.Readbacks == 1) != (counts[i] > 0) {
			t.Errorf("device %v: %d items but %d dispatches and %d readbacks", w, counts[i], st.Dispatches, st.Readbacks)
		}
	}
}
