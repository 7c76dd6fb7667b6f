package spirv

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
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

//kc:run k=0..1000 len(a)=64 len(b)=64 len(v)=64 len(o)=64 len(ui)=256 grid=8
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
	dirs, err := directive.Parse("misc.kc", []byte(miscSrc))
	if err == nil {
		err = dirs.Check(m)
	}
	if err != nil {
		t.Fatal(err)
	}
	r, _ := dirs.For(m, m.Kernels[0])
	seed := rand.Uint64()
	plan, err := runspec.Draw(r, m, m.Kernels[0], rand.New(rand.NewPCG(seed, 1)), runspec.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d", seed)
	if !diffKernel(t, "misc", m, m.Kernels[0], mod, plan) {
		t.Fatal("misc was not compared")
	}
	kctest.Tool(t, "spirv-val")
	for _, opts := range allOptions(m) {
		mod, err := Emit(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := mod.Validate(context.Background()); err != nil {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}
