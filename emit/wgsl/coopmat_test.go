package wgsl_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// coopKernel wraps body in a kernel with cooperative matrices enabled; its
// buffers are h (f16), c (f32), r (read-only f32) and u (u32).
func coopKernel(body string) string {
	return "enable f16\nenable cooperative_matrix\nkernel k(h read_write []f16, c read_write []f32, r read []f32, u read_write []u32, s f32) workgroup(32) {\n" + body + "}\n"
}

// TestCoopMatRefused: what a dialect cannot express is a positioned
// *ir.UnsupportedError naming the feature and the target, never text.
// Line 4 of each source is the body's first line.
func TestCoopMatRefused(t *testing.T) {
	const (
		wgpu     = "wgsl (-coopmat wgpu)"
		chromium = "wgsl (-coopmat chromium)"
	)
	load := "\tlet m = coopLoad<coopmat<f32, 16, 16, acc>>(c, 0, 16, row_major)\n"
	for _, tc := range []struct {
		dialect wgsl.CoopMatDialect
		body    string
		want    string
	}{
		{wgsl.CoopMatWGPU, "\tlet m = coopmat<f32, 16, 16, acc>(1.0)\n\tcoopStore(m, c, 0, 16, row_major)\n",
			"k.kc:4:10: cooperative-matrix fill with a value other than 0 (wgpu_cooperative_matrix constructs the zero matrix only) is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, "\tlet m = coopmat<f32, 16, 8, acc>(0.0)\n\tcoopStore(m, c, 0, 16, row_major)\n",
			"k.kc:4:10: cooperative matrix shape 16x8 (wgpu_cooperative_matrix has 8x8 and 16x16 only) is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, "\tlet m = coopmat<f32, 32, 32, acc>(0.0)\n\tcoopStore(m, c, 0, 32, row_major)\n",
			"k.kc:4:10: cooperative matrix shape 32x32 (wgpu_cooperative_matrix has 8x8 and 16x16 only) is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, load + "\tcoopStore(m * m, c, 0, 16, row_major)\n",
			"k.kc:5:14: element-wise * of two cooperative matrices is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, load + "\tcoopStore(m / m, c, 0, 16, row_major)\n",
			"k.kc:5:14: element-wise / of two cooperative matrices is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, load + "\tcoopStore(m / s, c, 0, 16, row_major)\n",
			"k.kc:5:14: dividing a cooperative matrix by a scalar is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, "\tlet m = coopLoad<coopmat<f16, 16, 16, acc>>(h, 0, 16, row_major)\n\tcoopStore(coopmat<f32, 16, 16, acc>(m), c, 0, 16, row_major)\n",
			"k.kc:5:12: cooperative-matrix element-type conversion is not supported by target " + wgpu},
		{wgsl.CoopMatWGPU, load + "\tu[0] = coopLength(m)\n",
			"k.kc:5:9: coopLength (the extension does not expose the elements an invocation holds) is not supported by target " + wgpu},
		{wgsl.CoopMatChromium, load + "\tcoopStore(m + m, c, 0, 16, row_major)\n",
			"k.kc:5:14: element-wise + of two cooperative matrices is not supported by target " + chromium},
		{wgsl.CoopMatChromium, load + "\tcoopStore(m - m, c, 0, 16, row_major)\n",
			"k.kc:5:14: element-wise - of two cooperative matrices is not supported by target " + chromium},
		{wgsl.CoopMatChromium, load + "\tcoopStore(m / s, c, 0, 16, row_major)\n",
			"k.kc:5:14: dividing a cooperative matrix by a scalar is not supported by target " + chromium},
		{wgsl.CoopMatChromium, load + "\tvar n = m\n\tn += m\n\tcoopStore(n, c, 0, 16, row_major)\n",
			"k.kc:6:2: element-wise + of two cooperative matrices is not supported by target " + chromium},
		{wgsl.CoopMatChromium, "\tlet m = coopLoad<coopmat<f16, 16, 16, acc>>(h, 0, 16, row_major)\n\tcoopStore(coopmat<f32, 16, 16, acc>(m), c, 0, 16, row_major)\n",
			"k.kc:5:12: cooperative-matrix element-type conversion is not supported by target " + chromium},
		{wgsl.CoopMatChromium, load + "\tu[0] = coopLength(m)\n",
			"k.kc:5:9: coopLength (the extension does not expose the elements an invocation holds) is not supported by target " + chromium},
		{wgsl.CoopMatWGPU, "\tvar m = coopLoad<coopmat<f32, 16, 16, acc>>(c, 0, 16, row_major)\n\tc[0] = m[0]\n",
			"k.kc:5:10: cooperative-matrix element access (the extension has none) is not supported by target " + wgpu},
		{wgsl.CoopMatChromium, "\tvar m = coopLoad<coopmat<f32, 16, 16, acc>>(c, 0, 16, row_major)\n\tm[1] = 2.0\n\tcoopStore(m, c, 0, 16, row_major)\n",
			"k.kc:5:3: cooperative-matrix element access (the extension has none) is not supported by target " + chromium},
	} {
		m := parseSrc(t, "k.kc", coopKernel(tc.body))
		a, err := wgsl.Emit(m, wgsl.Options{CoopMat: tc.dialect})
		var u *ir.UnsupportedError
		if !errors.As(err, &u) || a != nil {
			t.Errorf("%s:\n%s\ngot %v, %v; want an *ir.UnsupportedError and no artifact", tc.dialect, tc.body, a, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n%s\nerror %q\nwant  %q", tc.dialect, tc.body, err, tc.want)
		}
	}
}

// TestOtherFeaturesRefused: bf16 and 8-bit integers have no WGSL form in
// either dialect.
func TestOtherFeaturesRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"enable bf16\nkernel k(h read_write []bf16) workgroup(32) {\n\th[0] = bf16(2.0)\n}\n",
			"k.kc:2:10: bf16 is not supported by target wgsl"},
		{"enable int8\nkernel k(h read_write []u8) workgroup(32) {\n\th[0] = h[1]\n}\n",
			"k.kc:2:10: i8/u8 is not supported by target wgsl"},
		{"enable cooperative_matrix\nenable cooperative_matrix2\nkernel k(c read_write []f32) workgroup(64) {\n\tcoopStore(coopmat<f32, 16, 16, acc, workgroup>(0.0), c, 0, 16, row_major)\n}\n",
			"k.kc:4:12: workgroup-scope cooperative matrices (NV cooperative_matrix2) is not supported by target wgsl"},
		{"enable cooperative_matrix\nenable bf16\nkernel k(h read_write []bf16) workgroup(32) {\n\tlet m = coopLoad<coopmat<bf16, 16, 16, a>>(h, 0, 16, row_major)\n\tcoopStore(m, h, 0, 16, row_major)\n}\n",
			"k.kc:3:10: bf16 is not supported by target wgsl"},
	} {
		for _, d := range []wgsl.CoopMatDialect{wgsl.CoopMatWGPU, wgsl.CoopMatChromium} {
			m, err := parse.File("k.kc", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if err := ir.Check(m); err != nil {
				t.Fatal(err)
			}
			a, err := wgsl.Emit(m, wgsl.Options{CoopMat: d})
			var u *ir.UnsupportedError
			if !errors.As(err, &u) || a != nil {
				t.Fatalf("got %v, %v; want an *ir.UnsupportedError and no artifact", a, err)
			}
			if err.Error() != tc.want {
				t.Errorf("%s: error %q, want %q", d, err, tc.want)
			}
		}
	}
}

// TestCoopMatLowering: what each dialect can express comes out as its
// builtins; the whole module then passes its validator (naga for wgpu's,
// Tint for Chromium's) in TestCoopMatValidates.
var coopLowerings = []struct {
	body     string
	wgpu     []string
	chromium []string
}{
	{"\tvar z coopmat<f32, 16, 16, acc>\n\tlet o = coopmat<f32, 16, 16, acc>(0)\n\tcoopStore(z + o, c, 0, 16, col_major)\n",
		[]string{"var z: coop_mat16x16<f32, C>;", "let o: coop_mat16x16<f32, C> = coop_mat16x16<f32, C>();", "coopStore(z + o, &c[0u], 16u);"},
		nil},
	{"\tlet m = coopLoad<coopmat<f32, 8, 8, acc>>(r, 4, 8, col_major)\n\tcoopStore(-m, c, 0, 8, row_major)\n\tcoopStore(s * m, c, 64, 8, row_major)\n",
		[]string{"coopLoad<coop_mat8x8<f32, C>>(&r[4u], 8u)", "coopStoreT(m * -1.0f, &c[0u], 8u);", "coopStoreT(m * params.s, &c[64u], 8u);"},
		[]string{"subgroupMatrixLoad<subgroup_matrix_result<f32, 8, 8>, col_major>(&r, 4u, 8u)",
			"subgroupMatrixStore<row_major>(&c, 0u, subgroupMatrixScalarMultiply(m, -1.0f), 8u);",
			"subgroupMatrixStore<row_major>(&c, 64u, subgroupMatrixScalarMultiply(m, params.s), 8u);"}},
	{"\tlet a = coopLoad<coopmat<f16, 16, 8, a>>(h, 0, 8, row_major)\n\tlet b = coopLoad<coopmat<f16, 8, 16, b>>(h, 0, 16, col_major)\n\tvar acc = coopmat<f32, 16, 16, acc>(s)\n\tacc = coopMulAdd(a, b, acc)\n\tacc *= 2.0\n\tcoopStore(acc, c, i32(len(u)), 16, row_major)\n",
		nil,
		[]string{"subgroup_matrix_left<f16, 8, 16>", "subgroup_matrix_right<f16, 16, 8>", "var acc: subgroup_matrix_result<f32, 16, 16> = subgroup_matrix_result<f32, 16, 16>(params.s);",
			"acc = subgroupMatrixMultiplyAccumulate(a, b, acc);", "acc = subgroupMatrixScalarMultiply(acc, 2.0f);", "subgroupMatrixStore<row_major>(&c, u32(i32(arrayLength(&u))), acc, 16u);"}},
	{"\tlet a = coopLoad<coopmat<f16, 16, 16, a>>(h, 0, 16, row_major)\n\tlet b = coopLoad<coopmat<f16, 16, 16, b>>(h, 256, 16, col_major)\n\tvar acc coopmat<f16, 16, 16, acc>\n\tacc = coopMulAdd(a, b, acc)\n\tacc -= acc * f16(s)\n\tcoopStore(acc, h, 512, 16, row_major)\n",
		[]string{"coopLoadT<coop_mat16x16<f16, A>>(&h[0u], 16u)", "coopLoad<coop_mat16x16<f16, B>>(&h[256u], 16u)", "acc = coopMultiplyAdd(a, b, acc);", "acc = acc - acc * f16(params.s);"},
		nil},
}

func TestCoopMatLowering(t *testing.T) {
	for _, tc := range coopLowerings {
		m := parseSrc(t, "k.kc", coopKernel(tc.body))
		for _, d := range []struct {
			dialect wgsl.CoopMatDialect
			want    []string
		}{{wgsl.CoopMatWGPU, tc.wgpu}, {wgsl.CoopMatChromium, tc.chromium}} {
			if d.want == nil {
				continue
			}
			a, err := wgsl.Emit(m, wgsl.Options{CoopMat: d.dialect})
			if err != nil {
				t.Errorf("%s:\n%s\n%v", d.dialect, tc.body, err)
				continue
			}
			for _, w := range d.want {
				if !strings.Contains(string(a.Code), w) {
					t.Errorf("%s: no %q in\n%s", d.dialect, w, a.Code)
				}
			}
		}
	}
}

// TestCoopMatValidates runs the lowerings through their validators, and
// proves each validator can fail: a multiply-add with A and B swapped
// must be rejected by both (naga: "Invalid operand for cooperative op";
// Tint: no matching overload).
func TestCoopMatValidates(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	want := map[string]string{} // file -> validator that must reject it ("" none)
	write := func(name string, code []byte, rejectBy string) {
		p := filepath.Join(dir, name+".wgsl")
		writeFile(t, p, code)
		paths = append(paths, p)
		want[p] = rejectBy
	}
	for i, tc := range coopLowerings {
		m := parseSrc(t, "k.kc", coopKernel(tc.body))
		for _, d := range []struct {
			dialect wgsl.CoopMatDialect
			want    []string
		}{{wgsl.CoopMatWGPU, tc.wgpu}, {wgsl.CoopMatChromium, tc.chromium}} {
			if d.want == nil {
				continue
			}
			a, err := wgsl.Emit(m, wgsl.Options{CoopMat: d.dialect})
			if err != nil {
				t.Fatal(err)
			}
			name := d.dialect.String() + string(rune('0'+i))
			write(name, a.Code, "")
			if strings.Contains(tc.body, "coopMulAdd(a, b, acc)") {
				bad := strings.Replace(string(a.Code), "(a, b, acc)", "(b, a, acc)", 1)
				who := "naga"
				if d.dialect == wgsl.CoopMatChromium {
					who = "tint"
				}
				write(name+"_swapped", []byte(bad), who)
			}
		}
	}
	msgs, _ := runCheck(t, paths...)
	rejected := map[string]string{}
	for _, m := range msgs {
		if m.kind == "error" {
			rejected[m.file] = m.who
			if want[m.file] == "" {
				t.Errorf("%s: %s rejects: %s", filepath.Base(m.file), m.who, m.text)
			}
		}
	}
	for p, who := range want {
		if who != "" && rejected[p] != who {
			t.Errorf("%s: want a rejection by %s, got %q", filepath.Base(p), who, rejected[p])
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
