package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// coopMatmulSrc: C = alpha * A·B, A MxK, B KxN, row-major. A workgroup of
// two subgroups (64 invocations at subgroup size 32) computes a 16x32
// block of C, one 16x16 tile per subgroup; A's 16x16 tile goes through a
// shared array (loaded by every invocation, then read with coopLoad),
// B's tiles are loaded from the buffer column-major from B's transpose
// layout... no: row-major from B. H gets the tile converted to the input
// type. T is replaced by f16 or bf16.
const coopMatmulSrc = `
enable f16
enable bf16
enable cooperative_matrix

kernel mm(A read []T, B read []T, C read_write []f32, H read_write []T, M u32, N u32, K u32, alpha f32) workgroup(64) {
	shared at [256]T
	let sg = local_index / 32
	let row = workgroup_id.y * 16
	let col = workgroup_id.x * 32 + sg * 16
	var acc coopmat<f32, 16, 16, acc>
	for k := u32(0); k < K; k += 16 {
		for e := local_index; e < 256; e += 64 {
			at[e] = A[(row + e / 16) * K + k + e % 16]
		}
		workgroupBarrier()
		let a = coopLoad<coopmat<T, 16, 16, a>>(at, 0, 16, row_major)
		let b = coopLoad<coopmat<T, 16, 16, b>>(B, k * N + col, N, row_major)
		acc = coopMulAdd(a, b, acc)
		workgroupBarrier()
	}
	let out = acc * alpha
	coopStore(out, C, row * N + col, N, row_major)
	coopStore(coopmat<T, 16, 16, acc>(out), H, col * M + row, M, col_major)
}
`

// TestCoopMatMatmul runs the tiled matmul on random f16 and bf16 inputs
// and compares with a float64 reference of the rounded inputs. Tolerance:
// the interpreter sums each element exactly and rounds once to f32, so C
// is within 2 ulp-ish: |err| <= 2*eps32*sum|a*b|*|alpha| (one rounding of
// the sum per k-tile of 16, K/16 of them, plus the scaling), bounded here
// by K/16+2 roundings. H is C rounded to T: within half an ulp of T
// (2^-11 for f16, 2^-8 for bf16) relative, plus C's error.
func TestCoopMatMatmul(t *testing.T) {
	for _, tc := range []struct {
		elem    string
		toBits  func(float32) uint16
		fromBit func(uint16) float32
		ulp     float64
	}{
		{"f16", F32ToF16Bits, F16BitsToF32, 0x1p-11},
		{"bf16", F32ToBF16Bits, BF16BitsToF32, 0x1p-8},
	} {
		t.Run(tc.elem, func(t *testing.T) {
			m := compile(t, strings.ReplaceAll(coopMatmulSrc, "T", tc.elem))
			r := newRNG(t)
			const M, N, K = 32, 64, 48
			alpha := float32(0.5 + r.Float64())
			round := func(v []float32) ([]uint16, []float64) {
				bits := make([]uint16, len(v))
				exact := make([]float64, len(v))
				for i, x := range v {
					bits[i] = tc.toBits(x)
					exact[i] = float64(tc.fromBit(bits[i]))
				}
				return bits, exact
			}
			aBits, a := round(r.floats(M*K, -2, 2))
			bBits, b := round(r.floats(K*N, -2, 2))
			c := Poison(4 * M * N)
			h := Poison(2 * M * N)
			mustRun(t, m, "mm", [3]int{N / 32, M / 16, 1}, &Args{
				Params:  params("M", M, "N", N, "K", K, "alpha", alpha),
				Buffers: map[string][]byte{"A": Encode(aBits), "B": Encode(bBits), "C": c, "H": h},
			}, Options{SubgroupSize: 32, Races: true})
			got, _ := Decode[float32](c)
			gotH, _ := Decode[uint16](h)
			bad := 0
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					want, mag := dotRef(K, func(k int) float64 { return a[i*K+k] * b[k*N+j] })
					want *= float64(alpha)
					mag *= float64(alpha)
					tol := float64(K/16+2) * 2 * eps32 * mag
					if !closeTo(t, "C", i*N+j, got[i*N+j], want, tol) {
						bad++
					}
					hv := float64(tc.fromBit(gotH[j*M+i]))
					if !closeTo(t, "H", j*M+i, float32(hv), want, tol+tc.ulp*math.Abs(want)) {
						bad++
					}
					if bad > 10 {
						t.Fatal("too many errors")
					}
				}
			}
		})
	}
}

// TestCoopMatErrors: a cooperative operation reached by part of a
// subgroup, or with operands that differ within it, stops the run.
func TestCoopMatErrors(t *testing.T) {
	src := `
enable cooperative_matrix

kernel k(x read []f32, y read_write []f32, off u32) workgroup(64) {
	let m = coopLoad<coopmat<f32, 16, 16, a>>(x, local_index / 16 * off, 16, row_major)
	coopStore(coopmat<f32, 16, 16, a>(x[0]) + m, y, 0, 16, row_major)
}
`
	m := compile(t, src)
	run := func(off int, xlen int) error {
		return Run(m, "k", [3]int{1, 1, 1}, &Args{
			Params:  params("off", off),
			Buffers: map[string][]byte{"x": Encode(make([]float32, xlen)), "y": Poison(4 * 256)},
		}, Options{SubgroupSize: 32})
	}
	if err := run(0, 256); err != nil {
		t.Fatalf("uniform offsets: %v", err)
	}
	for _, tc := range []struct {
		off, xlen int
		want      string
	}{
		{1, 512, "test.kc:4:10: kernel k, invocation global_id (16, 0, 0): coopLoad: the offset differs between invocations of subgroup 0 (0 in invocation 0, 1 in invocation 16); it must be the same"},
		{0, 255, "coopLoad out of bounds: element (15, 15) is at index 255, outside the 255 elements"},
	} {
		err := run(tc.off, tc.xlen)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("off %d, len %d: error %v, want one containing %q", tc.off, tc.xlen, err, tc.want)
		}
	}
}

// TestCoopMatAlignment: a load or store whose byte offset or stride is
// not a multiple of the lesser of 16 and a row's (col_major: a column's)
// bytes stops the run (ir.CoopAlign, Vulkan's VUID 08986); stride 0 is
// aligned; packed memory counts in its own elements.
func TestCoopMatAlignment(t *testing.T) {
	src := `
enable f16
enable cooperative_matrix

kernel k(x read []f16, w read []u32, y read_write []f32, off u32, str u32, soff u32, woff u32) workgroup(32) {
	let a = coopLoad<coopmat<f16, 16, 16, a>>(x, off, str, col_major)
	let p = coopLoad<coopmat<f16, 16, 16, b>>(w, woff, 8, row_major)
	let s = coopLoad<coopmat<f16, 8, 4, acc>>(x, off, 4, row_major)
	coopStore(coopMulAdd(a, p, coopmat<f32, 16, 16, acc>(f32(s[0]))), y, soff, 16, row_major)
}
`
	m := compile(t, src)
	run := func(off, str, soff, woff int) error {
		return Run(m, "k", [3]int{1, 1, 1}, &Args{
			Params:  params("off", off, "str", str, "soff", soff, "woff", woff),
			Buffers: map[string][]byte{"x": Poison(2 * 1024), "w": Poison(4 * 512), "y": Poison(4 * 1024)},
		}, Options{SubgroupSize: 32})
	}
	for _, ok := range [][4]int{{0, 16, 0, 0}, {8, 24, 4, 4}, {16, 0, 512, 12}} {
		if err := run(ok[0], ok[1], ok[2], ok[3]); err != nil {
			t.Errorf("aligned %v: %v", ok, err)
		}
	}
	for _, tc := range []struct {
		off, str, soff, woff int
		want                 string
	}{
		{4, 16, 0, 0, "test.kc:5:10: kernel k, invocation global_id (0, 0, 0): coopLoad misaligned: offset 4 is byte offset 8, not a multiple of 16 (coopmat<f16, 16, 16, a> col_major needs the lesser of 16 and a column's bytes: Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986)"},
		{0, 20, 0, 0, "coopLoad misaligned: stride 20 is byte stride 40, not a multiple of 16"},
		{0, 16, 0, 2, "coopLoad misaligned: offset 2 is byte offset 8, not a multiple of 16 (coopmat<f16, 16, 16, b> row_major"},
		{0, 16, 2, 0, "test.kc:8:2: kernel k, invocation global_id (0, 0, 0): coopStore misaligned: offset 2 is byte offset 8, not a multiple of 16"},
	} {
		err := run(tc.off, tc.str, tc.soff, tc.woff)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc, err, tc.want)
		}
	}
}

// TestBF16Rounding: f32 -> bf16 rounds to nearest even; bf16 -> f32 is exact.
func TestBF16Rounding(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x3f808001, 0x3f81}, // above the tie
		{0x7f7fffff, 0x7f80}, // max f32 rounds to inf
		{0xff800000, 0xff80}, // -inf
	} {
		if got := F32ToBF16Bits(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("F32ToBF16Bits(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	if got := F32ToBF16Bits(float32(math.NaN())); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("NaN -> %#x, not a NaN", got)
	}
	for h := 0; h < 1<<16; h++ {
		f := BF16BitsToF32(uint16(h))
		if f == f && F32ToBF16Bits(f) != uint16(h) {
			t.Fatalf("bf16 %#x does not round-trip", h)
		}
	}
	_ = ir.BF16
}

func init() { corpusChecks["coopmat_matmul"] = checkCoopMatmulCorpus }

// checkCoopMatmulCorpus runs testdata/kernels/coopmat_matmul.kc on random
// f16 inputs, at subgroup sizes 32 (one subgroup per workgroup) and 8
// (four subgroups computing the same tile), against a float64 reference of
// the f16 inputs. Tolerance: one f32 rounding of the exact sum per 16-wide
// k-step plus the scaling, 2*eps32 each, relative to sum|a*b|*alpha.
func checkCoopMatmulCorpus(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	for _, sg := range []int{32, 8} {
		mt, nt, kt := 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(4)
		M, N, K := 16*mt, 16*nt, 16*kt
		alpha := float32(0.5 + 1.5*r.Float64())
		A := F32sToF16Bits(r.floats(M*K, -2, 2))
		B := F32sToF16Bits(r.floats(K*N, -2, 2))
		C := Poison(4*M*N + 12)
		mustRun(t, m, "coopmat_matmul", [3]int{nt, mt, 1}, &Args{
			Params:  params("m", mt, "n", nt, "k", kt, "alpha", alpha),
			Buffers: map[string][]byte{"A": Encode(A), "B": Encode(B), "C": C},
		}, Options{SubgroupSize: sg, Races: true})
		want, tol := make([]float64, M*N), make([]float64, M*N)
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				var s, a float64
				for k := 0; k < K; k++ {
					p := float64(F16BitsToF32(A[i*K+k])) * float64(F16BitsToF32(B[k*N+j]))
					s += p
					a += math.Abs(p)
				}
				want[i*N+j] = s * float64(alpha)
				tol[i*N+j] = 2 * float64(kt+1) * eps32 * a * float64(alpha)
			}
		}
		checkFloats(t, "C", f32s(t, C[:4*M*N]), want, tol)
		poisoned(t, "C", C, 4*M*N)
	}
}

// TestCoopMatElementwise: element-wise + - * /, negation, scaling on
// both sides, division by a scalar, compound assignment, fill, f16 and
// bf16 conversion and coopLength, against Go's float32 arithmetic (each
// operation rounded once to f32, so exact).
func TestCoopMatElementwise(t *testing.T) {
	m := compile(t, `
enable f16
enable bf16
enable cooperative_matrix

kernel k(x read []f32, y read []f32, s f32, out read_write []f32, h read_write []f16, b read_write []bf16, n read_write []u32) workgroup(16) {
	let p = coopLoad<coopmat<f32, 8, 4, acc>>(x, 0, 4, row_major)
	let q = coopLoad<coopmat<f32, 8, 4, acc>>(y, 0, 8, col_major)
	var r = (p + q) * p - q / p
	r += -p * s
	r = s * r / s
	r -= coopmat<f32, 8, 4, acc>(0.25)
	coopStore(r, out, 0, 4, row_major)
	coopStore(coopmat<f16, 8, 4, acc>(r), h, 0, 4, row_major)
	coopStore(coopmat<bf16, 8, 4, acc>(r), b, 0, 4, row_major)
	n[0] = coopLength(r)
}
`)
	r := newRNG(t)
	x, y := r.floats(32, -3, 3), r.floats(32, -3, 3)
	for i := range x {
		if math.Abs(float64(x[i])) < 0.1 {
			x[i] = 0.5 // no huge quotients
		}
	}
	s := float32(0.5 + r.Float64())
	out, h, b, n := Poison(4*32), Poison(2*32), Poison(2*32), Poison(4)
	mustRun(t, m, "k", [3]int{1, 1, 1}, &Args{
		Params:  params("s", s),
		Buffers: map[string][]byte{"x": Encode(x), "y": Encode(y), "out": out, "h": h, "b": b, "n": n},
	}, Options{SubgroupSize: 8})
	got, _ := Decode[float32](out)
	gotH, _ := Decode[uint16](h)
	gotB, _ := Decode[uint16](b)
	for i := 0; i < 8; i++ {
		for j := 0; j < 4; j++ {
			p, q := x[i*4+j], y[j*8+i] // q is read column-major
			// float32() after each product keeps Go from fusing it into an fma
			v := float32(float32(p+q)*p) - q/p
			v = v + float32((-p)*s)
			v = float32(s*v) / s
			v -= 0.25
			e := i*4 + j
			if got[e] != v {
				t.Errorf("out[%d] = %g, want %g", e, got[e], v)
			}
			if gotH[e] != F32ToF16Bits(v) || gotB[e] != F32ToBF16Bits(v) {
				t.Errorf("h/b[%d] = %#x/%#x, want %#x/%#x", e, gotH[e], gotB[e], F32ToF16Bits(v), F32ToBF16Bits(v))
			}
		}
	}
	if l, _ := Decode[uint32](n); l[0] != 4 { // 32 elements over 8 invocations
		t.Errorf("coopLength = %d, want 4", l[0])
	}
}

// TestCoopMatInt8 multiplies random i8 and u8 matrices into i32 and u32
// accumulators: exact integer results, checked against Go's int32/uint32
// arithmetic (wrapping).
func TestCoopMatInt8(t *testing.T) {
	m := compile(t, `
enable int8
enable cooperative_matrix

kernel k(a read []i8, b read []u8, c read_write []i32, d read_write []u32, q read_write []i8, K u32) workgroup(32) {
	var acc = coopmat<i32, 16, 16, acc>(-5)
	var accu coopmat<u32, 16, 16, acc>
	for i := u32(0); i < K; i += 32 {
		let x = coopLoad<coopmat<i8, 16, 32, a>>(a, i, K, row_major)
		let y = coopLoad<coopmat<i8, 32, 16, b>>(a, i * 16, 16, row_major)
		let u = coopLoad<coopmat<u8, 16, 32, a>>(b, i, K, row_major)
		let v = coopLoad<coopmat<u8, 32, 16, b>>(b, i, K, col_major)
		acc = coopMulAdd(x, y, acc)
		accu = coopMulAdd(u, v, accu)
	}
	acc = acc * 3 - acc + -acc
	coopStore(acc, c, 0, 16, row_major)
	coopStore(accu, d, 0, 16, col_major)
	q[0] = i8(c[0])
	q[1] = i8(i32(q[2]) + 1)
}
`)
	r := newRNG(t)
	const K = 64 // a is 16xK (also read as Kx16 for y), b likewise
	a, b := make([]uint32, 16*K/4), make([]uint32, 16*K/4)
	for i := range a {
		a[i], b[i] = r.Uint32(), r.Uint32()
	}
	ab, bb := Encode(a), Encode(b)
	q := Poison(3)
	q[2] = 0x7f // 127 + 1 wraps to -128
	c, d := Poison(4*256), Poison(4*256)
	mustRun(t, m, "k", [3]int{1, 1, 1}, &Args{
		Params:  params("K", K),
		Buffers: map[string][]byte{"a": ab, "b": bb, "c": c, "d": d, "q": q},
	}, Options{SubgroupSize: 32})
	gotC, _ := Decode[int32](c)
	gotD, _ := Decode[uint32](d)
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			s := int32(-5)
			var us uint32
			for k := 0; k < K; k++ {
				s += int32(int8(ab[i*K+k])) * int32(int8(ab[k*16+j]))
				us += uint32(bb[i*K+k]) * uint32(bb[j*K+k]) // v is read column-major
			}
			want := s*3 - s + -s
			if gotC[i*16+j] != want {
				t.Errorf("c[%d][%d] = %d, want %d", i, j, gotC[i*16+j], want)
			}
			if gotD[j*16+i] != us {
				t.Errorf("d[%d][%d] = %d, want %d", j, i, gotD[j*16+i], us)
			}
		}
	}
	if int8(q[0]) != int8(gotC[0]) || int8(q[1]) != -128 {
		t.Errorf("q = %d, %d, want %d, -128", int8(q[0]), int8(q[1]), int8(gotC[0]))
	}
}

// TestCoopMatPacked loads and stores matrices through packed memory
// (ir.CoopPacks): f16 A staged with 16-byte copies into a shared array of
// vec4<u32> and read from it (offset and stride in vec4s, 24-half rows),
// f16 B read column-major straight from a buffer of u32 words, the f32
// product stored into a buffer of vec2<u32> (offset and stride in vec2s);
// byte offsets and strides multiples of 16 (ir.CoopAlign), rows and
// columns padded by 16 bytes.
// The reference reads the same bytes by the rule of ir.Layout: element
// (i, j) at byte (off + i·stride)·P + j·E. The product of f16 values
// summed once in float64 and rounded to f32 is exact to 1 ulp of f32.
func TestCoopMatPacked(t *testing.T) {
	m := compile(t, `
enable f16
enable cooperative_matrix

kernel k(A read []vec4<u32>, B read []u32, C read_write []vec2<u32>) workgroup(32) {
	shared as [48]vec4<u32>
	for e := local_index; e < 48; e += 32 {
		as[e] = A[e]
	}
	workgroupBarrier()
	let a = coopLoad<coopmat<f16, 16, 16, a>>(as, 1, 3, row_major)
	let b = coopLoad<coopmat<f16, 16, 16, b>>(B, 4, 12, col_major)
	let c = coopMulAdd(a, b, coopmat<f32, 16, 16, acc>(0.0))
	coopStore(c, C, 2, 10, row_major)
}
`)
	r := newRNG(t)
	aBits := make([]uint16, 48*8)
	bBits := make([]uint16, 2*(4+15*12)+32)
	for _, v := range [][]uint16{aBits, bBits} {
		for i := range v {
			v[i] = F32ToF16Bits(float32(r.Float64()*4 - 2))
		}
	}
	ab, bb := Encode(aBits), Encode(bBits)
	c := Poison(8 * (2 + 15*10 + 8))
	mustRun(t, m, "k", [3]int{1, 1, 1}, &Args{
		Buffers: map[string][]byte{"A": ab, "B": bb, "C": c},
	}, Options{SubgroupSize: 32, Races: true})
	half := func(b []byte, at int) float64 {
		return float64(F16BitsToF32(uint16(b[at]) | uint16(b[at+1])<<8))
	}
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			want, mag := dotRef(16, func(k int) float64 { return half(ab, (1+i*3)*16+k*2) * half(bb, (4+j*12)*4+k*2) })
			at := (2+i*10)*8 + j*4
			got := math.Float32frombits(uint32(c[at]) | uint32(c[at+1])<<8 | uint32(c[at+2])<<16 | uint32(c[at+3])<<24)
			closeTo(t, "C", i*16+j, got, want, 2*eps32*mag)
		}
	}
	// The 16 bytes of C before the matrix, and the gaps between rows of
	// 64 bytes every 80, stay poisoned.
	for _, at := range []int{0, 15, 16 + 64, 16 + 79} {
		if c[at] != Poison(1)[0] {
			t.Errorf("C byte %d = %#x, written outside the matrix", at, c[at])
		}
	}
	// Bounds are checked in bytes: B one word short of its last column's
	// end, whose last two elements (14, 15) and (15, 15) then fall outside.
	err := Run(m, "k", [3]int{1, 1, 1}, &Args{
		Buffers: map[string][]byte{"A": ab, "B": bb[:(4+15*12)*4+28], "C": Poison(len(c))},
	}, Options{SubgroupSize: 32})
	want := "coopLoad out of bounds: element (14, 15) is at byte 764, outside the 764 bytes"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
