package spirv

import (
	"context"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// miscSrc exercises lowering paths the corpus does not: whole arrays
// loaded from and stored to buffers (relaid out between the buffer's
// ArrayStride form and the plain form), dynamic indexing of let arrays
// (spilled to a variable) and of vectors, nested local arrays, component
// assignment and compound assignment, bool vectors converted to integers,
// and an integer dot product.
const miscSrc = `kernel misc(k u32, a read [][4]f32, b read_write [][4]f32, v read []vec4<f32>, o read_write []vec4<f32>, ui read_write []u32) workgroup(8) {
	let i = global_id.x
	if i >= len(ui) / 4 {
		return
	}
	let row = a[i]
	var cp [4]f32 = row
	cp[k & 3] = 7.0
	b[i] = cp
	let j = (i + k) & 3
	let x = row[j]
	var w = v[i]
	w.z = x
	w.y += 1.0
	w.w *= w.x
	o[i] = w
	ui[4 * i] = u32(w[j] > 0.0)
	ui[4 * i + 1] = select(x > 1.0, u32(5), u32(6))
	let bv = vec2<bool>(x > 0.0, w.x < 0.0)
	ui[4 * i + 2] = vec2<u32>(bv).x + vec2<u32>(bv).y * 2
	var m [2][3]i32
	m[j & 1][j % 3] = i32(i)
	let mm = m
	ui[4 * i + 3] = u32(mm[1][j % 3]) + u32(dot(vec2<i32>(i32(i), 2), vec2<i32>(3, i32(k))))
}
`

func miscModule(t *testing.T) *ir.Module {
	m, err := parse.File("misc.kc", []byte(miscSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMisc validates the module with spirv-val and compares its results
// with the reference interpreter's on random inputs.
func TestMisc(t *testing.T) {
	m := miscModule(t)
	mod, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !diffKernel(t, "misc", m, m.Kernels[0], mod) {
		t.Fatal("misc was not compared")
	}
	kctest.Tool(t, "spirv-val")
	for _, opts := range allOptions(m) {
		mod, err := Emit(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateArtifact(context.Background(), mod); err != nil {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}
