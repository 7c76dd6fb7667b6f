package browsertest

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// TestErrors checks that what the browser rejects comes back as error
// values: a WGSL compile error with the compiler's line and column, a
// pipeline the browser's validation refuses (an entry point that is not
// there), a target the browser cannot take; and that after them the device
// still runs a kernel correctly.
func TestErrors(t *testing.T) {
	d := device(t)
	refl := ir.KernelReflection{Name: "bad", Workgroup: [3]int{1, 1, 1}}
	art := func(t emit.Target, code string, words []uint32, entry string) *emit.Artifact {
		return &emit.Artifact{Target: t, Code: []byte(code), Words: words, Entries: []emit.Entry{{Kernel: "bad", Name: entry, Reflection: refl}}}
	}
	bad := art(emit.WGSL, "@compute @workgroup_size(1)\nfn main() {\n  let x: u32 = 1.5;\n}\n", nil, "main")
	_, err := d.Load(ctx, bad)
	if err == nil || !strings.Contains(err.Error(), "wgsl:3:") {
		t.Errorf("Load of WGSL with a type error: %v; want the compiler's message at line 3", err)
	} else {
		t.Logf("as expected: %v", err)
	}
	spv := art(emit.SPIRV, "", []uint32{0x07230203}, "main")
	if _, err := d.Load(ctx, spv); err == nil {
		t.Error("Load of SPIR-V in the browser succeeded; want an error")
	} else {
		t.Logf("as expected: %v", err)
	}
	noEntry := art(emit.WGSL, "@compute @workgroup_size(1)\nfn main() {}\n", nil, "nope")
	if _, err := d.Load(ctx, noEntry); err == nil {
		t.Error("Load with a missing entry point succeeded; want the validation error")
	} else {
		t.Logf("as expected: %v", err)
	}
	// The device still works: saxpy after the failures.
	p := loadSrc(t, d, "saxpy", `kernel saxpy(a f32, n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i >= n {
		return
	}
	y[i] = a * x[i] + y[i]
}`)
	const n = 1000
	x, y := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(1))
	}
	xb, _ := d.Upload(x)
	yb, _ := d.Upload(y)
	if err := d.Dispatch(p, backend.Args{Params: []uint32{math.Float32bits(2), n}, Buffers: []backend.View{xb.View(), yb.View()}}, backend.Groups((n+63)/64)); err != nil {
		t.Fatal(err)
	}
	out, err := d.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != 2*float32(i)+1 {
			t.Fatalf("y[%d] = %v, want %v", i, got, 2*float32(i)+1)
		}
	}
}
