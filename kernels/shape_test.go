package kernels_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

func TestTranspose(t *testing.T) { testTranspose(t, open(t, "vulkan")) }

func testTranspose(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	// 16x16 tiles: sizes below, at and across tile edges
	for _, rc := range [][2]int{{1, 1}, {1, 3}, {17, 1}, {3, 1000}, {33, 47}, {16, 16}} {
		rows, cols := rc[0], rc[1]
		xs := kctest.Randn(rng, rows*cols, -1, 1)
		y, err := c.Transpose(upload(t, c, xs, rows, cols))
		if err != nil {
			t.Fatal(err)
		}
		if s := y.Shape(); s[0] != cols || s[1] != rows {
			t.Fatalf("transpose %v: shape %v", rc, s)
		}
		want := make([]float64, rows*cols)
		for r := 0; r < rows; r++ {
			for cc := 0; cc < cols; cc++ {
				want[cc*rows+r] = float64(xs[r*cols+cc])
			}
		}
		kctest.Compare(t, "transpose"+kernelsShape(rc[:]), host(t, y), want, kctest.Tol{})
	}
}

func TestGather(t *testing.T) { testGather(t, open(t, "vulkan")) }

func testGather(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, tc := range []struct{ rows, d, n int }{{1, 1, 1}, {3, 3, 5}, {17, 1000, 3}, {1000, 17, 300}} {
		xs := kctest.Randn(rng, tc.rows*tc.d, -1, 1)
		idx := make([]int, tc.n)
		for i := range idx {
			idx[i] = rng.Intn(tc.rows)
		}
		y, err := c.Gather(upload(t, c, xs, tc.rows, tc.d), idx)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, tc.n*tc.d)
		for i, r := range idx {
			copy(want[i*tc.d:], f64(xs[r*tc.d:(r+1)*tc.d]))
		}
		kctest.Compare(t, "gather", host(t, y), want, kctest.Tol{})
	}
}

func TestReshapeDup(t *testing.T) { testReshapeDup(t, open(t, "vulkan")) }

func testReshapeDup(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	xs := kctest.Randn(rng, 6*17, -1, 1)
	x := upload(t, c, xs, 6, 17)
	v, err := x.Reshape(-1, 3, 17)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.Shape(); len(s) != 3 || s[0] != 2 {
		t.Fatalf("reshape: shape %v", s)
	}
	if v.View() != x.View() {
		t.Errorf("reshape copied: view %v, want %v", v.View(), x.View())
	}
	d, err := c.Dup(x, 17, 6)
	if err != nil {
		t.Fatal(err)
	}
	if d.View().Buf == x.View().Buf {
		t.Errorf("dup shares the source's buffer")
	}
	// Relu of the view reads the same data
	r, err := c.ReLU(v)
	if err != nil {
		t.Fatal(err)
	}
	want := f64(xs)
	kctest.Compare(t, "dup", host(t, d), want, kctest.Tol{})
	for i := range want {
		want[i] = math.Max(want[i], 0)
	}
	kctest.Compare(t, "relu(reshape)", host(t, r), want, kctest.Tol{})
}

// TestRowsSetRows: SetRows writes exactly its rows of a cache, and a Rows
// prefix view reads exactly its rows.
func TestRowsSetRows(t *testing.T) { testRowsSetRows(t, open(t, "vulkan")) }

func testRowsSetRows(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	const rows, d = 9, 7
	cs := kctest.Randn(rng, rows*d, -1, 1)
	cache := upload(t, c, cs, rows, d)
	for _, at := range []int{0, 4, 8} {
		n := min(3, rows-at)
		src := kctest.Randn(rng, n*d, -1, 1)
		if err := c.SetRows(cache, at, upload(t, c, src, n, d)); err != nil {
			t.Fatal(err)
		}
		copy(cs[at*d:], src)
	}
	kctest.Compare(t, "setrows", host(t, cache), f64(cs), kctest.Tol{})
	pre, err := cache.Rows(0, 5)
	if err != nil {
		t.Fatal(err)
	}
	y, err := c.ReLU(pre)
	if err != nil {
		t.Fatal(err)
	}
	want := f64(cs[:5*d])
	for i := range want {
		want[i] = math.Max(want[i], 0)
	}
	kctest.Compare(t, "relu(rows)", host(t, y), want, kctest.Tol{})
	if err := c.SetRows(cache, 8, upload(t, c, make([]float32, 2*d), 2, d)); err == nil {
		t.Errorf("SetRows past the end: no error")
	}
}

// TestRoPE checks rotate-half RoPE against float64, at offset 0 (prefill)
// and at an offset (decode). The angle pos·base^(-2c/dh) is computed in
// f32 on the device (as in PyTorch's reference), so its error grows with
// the position: the bound is 1e-6 + 4e-7·(pos+1) relative to the pair's
// magnitude, plus sin/cos's own error.
func TestRoPE(t *testing.T) { testRoPE(t, open(t, "vulkan")) }

func testRoPE(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	const base = 10000.0
	for _, tc := range []struct{ t, heads, dh, offset int }{{1, 1, 2, 0}, {3, 2, 4, 0}, {17, 3, 16, 5}, {1, 4, 64, 999}, {40, 2, 6, 0}} {
		w := tc.heads * tc.dh
		xs := kctest.Randn(rng, tc.t*w, -2, 2)
		y, err := c.RoPE(upload(t, c, xs, tc.t, w), tc.heads, base, tc.offset)
		if err != nil {
			t.Fatal(err)
		}
		got := host(t, y)
		half := tc.dh / 2
		for r := 0; r < tc.t; r++ {
			pos := float64(r + tc.offset)
			for h := 0; h < tc.heads; h++ {
				for i := 0; i < half; i++ {
					th := pos * math.Pow(base, -2*float64(i)/float64(tc.dh))
					j := r*w + h*tc.dh + i
					x1, x2 := float64(xs[j]), float64(xs[j+half])
					w1 := x1*math.Cos(th) - x2*math.Sin(th)
					w2 := x2*math.Cos(th) + x1*math.Sin(th)
					bound := 2e-6 + 4e-7*(pos+1)*(math.Abs(x1)+math.Abs(x2))
					if d1, d2 := math.Abs(float64(got[j])-w1), math.Abs(float64(got[j+half])-w2); !(d1 <= bound && d2 <= bound) {
						t.Fatalf("rope %+v row %d head %d pair %d: got (%g, %g), want (%g, %g), bound %g", tc, r, h, i, got[j], got[j+half], w1, w2, bound)
					}
				}
			}
		}
	}
}

// TestShapeErrors: wrong shapes are *ShapeErrors naming the op and the
// shapes, recorded nothing and did not panic.
func TestShapeErrors(t *testing.T) { testShapeErrors(t, open(t, "vulkan")) }

func testShapeErrors(t *testing.T, c *kernels.Context) {
	z := func(shape ...int) *kernels.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return upload(t, c, make([]float32, n), shape...)
	}
	cases := []refusal{
		{"kernels: add [2 3] [3 2]: shapes differ", func() (*kernels.Tensor, error) { return c.Add(z(2, 3), z(3, 2)) }},
		{"kernels: matmul [2 3] [2 3]: want [m k] and [k n]", func() (*kernels.Tensor, error) { return c.MatMul(z(2, 3), z(2, 3)) }},
		{"kernels: matmulbt [2 3] [3 2]: want [m k] and [n k]", func() (*kernels.Tensor, error) { return c.MatMulBT(z(2, 3), z(3, 2), 1) }},
		{"kernels: scale [4] [2]: the factor must have one element", func() (*kernels.Tensor, error) { return c.Scale(z(4), z(2)) }},
		{"kernels: addbias [2 3] [2]: the bias must be [3], the last dimension", func() (*kernels.Tensor, error) { return c.AddBias(z(2, 3), z(2)) }},
		{"kernels: layernorm [2 3] [3 1]: weights must be [3], the last dimension", func() (*kernels.Tensor, error) { return c.LayerNorm(z(2, 3), z(3, 1), z(3), 1e-5) }},
		{"kernels: transpose [2 3 4]: want a two-dimensional tensor", func() (*kernels.Tensor, error) { return c.Transpose(z(2, 3, 4)) }},
		{"kernels: gather [4 2] [1]: index 0 is 4, outside [0, 4)", func() (*kernels.Tensor, error) { return c.Gather(z(4, 2), []int{4}) }},
		{"kernels: rope [2 6]: want [t heads·dh] with 2 heads and dh even", func() (*kernels.Tensor, error) { return c.RoPE(z(2, 6), 2, 1e4, 0) }},
		{"kernels: rows [4 2]: rows [3, 5) are not a non-empty part of [0, 4)", func() (*kernels.Tensor, error) { return z(4, 2).Rows(3, 5) }},
		{"kernels: reshape [2 3] [4 -1]: 6 elements do not divide into this shape", func() (*kernels.Tensor, error) { return z(2, 3).Reshape(4, -1) }},
		{"kernels: causalattention [4 8] [3 4] [3 4]: 4 queries but only 3 keys", func() (*kernels.Tensor, error) { return c.CausalAttention(z(4, 8), z(3, 4), z(3, 4), 2, 1) }},
		{"kernels: decodeattention [1 8] [3 4] [3 8]: k and v must be [s 4] (1 heads of 4)", func() (*kernels.Tensor, error) { return c.DecodeAttention(z(1, 8), z(3, 4), z(3, 8), 2, 1) }},
		{"kernels: tensor [2 2]: 3 values for 4 elements", func() (*kernels.Tensor, error) { return c.Tensor(make([]float32, 3), 2, 2) }},
	}
	checkRefused(t, c, cases)
}

// TestReleased: an op on a released tensor, or on a closed device, is an
// error, not a panic.
func TestReleased(t *testing.T) {
	c := open(t, "vulkan")
	x := upload(t, c, []float32{1, 2, 3}, 3)
	y := upload(t, c, []float32{1, 2, 3}, 3)
	x.Release()
	x.Release()
	if out, err := c.Add(x, y); err == nil || out != nil {
		t.Errorf("add of a released tensor: %v, %v", out, err)
	}
	if _, err := x.ToHost(context.Background()); err == nil {
		t.Errorf("reading a released tensor: no error")
	}
	c.Device().Close()
	if _, err := c.ReLU(y); err == nil {
		t.Errorf("relu on a closed device: no error")
	}
	if _, err := c.Tensor([]float32{1}, 1); err == nil {
		t.Errorf("upload to a closed device: no error")
	}
}

// refusal is an op that must be refused: the *ShapeError's text and the call.
type refusal struct {
	want string
	run  func() (*kernels.Tensor, error)
}

// checkRefused runs each refusal: no tensor, a *ShapeError saying want,
// and no dispatch recorded by any of them.
func checkRefused(t *testing.T, c *kernels.Context, cases []refusal) {
	t.Helper()
	before := c.Device().Stats()
	for _, tc := range cases {
		out, err := tc.run()
		var se *kernels.ShapeError
		if out != nil || !errors.As(err, &se) || err.Error() != tc.want {
			t.Errorf("got %v, %v; want a *ShapeError %q", out, err, tc.want)
		}
	}
	if d := c.Device().Stats().Since(before).Dispatches; d != 0 {
		t.Errorf("refused ops recorded %d dispatches", d)
	}
}

// TestDupBits: Dup copies every bit (NaN payloads of 16-bit tensors
// included) of whole tensors and of a Rows view, through the copy kernel
// (sizes that are multiples of 16 bytes) and the transfer command (the
// rest, or forced), into poisoned outputs.
func TestDupBits(t *testing.T) {
	c := open(t, "vulkan")
	defer c.SetCopyByCommand(false)
	rng := kctest.NewRand(t)
	ctx := context.Background()
	for _, byCmd := range []bool{false, true} {
		c.SetCopyByCommand(byCmd)
		for _, d := range halfTypes {
			for _, n := range append(halfSizes, 8, 1024+8) {
				bits := make([]uint16, n)
				for i := range bits {
					bits[i] = uint16(rng.Uint32())
				}
				x, err := c.TensorBits(d, bits, n)
				if err != nil {
					t.Fatal(err)
				}
				checkDupBits(t, ctx, c, x, bits, fmt.Sprintf("%s[%d] command %v", d, n, byCmd))
				// rows [16, n/8) of [n/8, 8]: a view from byte 256 (an
				// offset any Vulkan device accepts), its size n-128 halves
				if n > 128 {
					m, _ := x.Reshape(n/8, 8)
					v, err := m.Rows(16, n/8)
					if err != nil {
						t.Fatal(err)
					}
					checkDupBits(t, ctx, c, v, bits[128:], fmt.Sprintf("%s[%d] rows from 16 of 8, command %v", d, n, byCmd))
				}
			}
		}
		for _, n := range []int{1, 3, 17, 1000, 4096} {
			xs := kctest.Randn(rng, n, -1e3, 1e3)
			x := upload(t, c, xs, n)
			d, err := c.Dup(x)
			if err != nil {
				t.Fatal(err)
			}
			if got := host(t, d); !slices.Equal(got, xs) {
				t.Errorf("f32[%d] command %v: dup differs", n, byCmd)
			}
		}
	}
}

func checkDupBits(t *testing.T, ctx context.Context, c *kernels.Context, x *kernels.Tensor, want []uint16, what string) {
	t.Helper()
	d, err := c.Dup(x)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer d.Release()
	if got, err := d.Bits(ctx); err != nil || !slices.Equal(got, want) {
		t.Errorf("%s: %v, bits equal %v", what, err, slices.Equal(got, want))
	}
}
