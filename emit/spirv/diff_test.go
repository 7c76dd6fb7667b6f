package spirv

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestDifferential runs every corpus kernel (and those of testdata/lang*.kc)
// that the test evaluator can carry (no shared memory, atomics, subgroups,
// f16 or struct buffers) as its //kc:run directives say (fresh random
// inputs, poisoned outputs), once as emitted SPIR-V and once in the
// reference interpreter, and compares every output buffer bit for bit
// (NaNs compare equal).
func TestDifferential(t *testing.T) {
	ran := 0
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, c := range append(corpus(t), withRuns(t, langCases(t))...) {
		m := c.Module(t)
		mod, err := Emit(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range m.Kernels {
			if len(k.Shared) > 0 || k.Features != 0 || hasStructBuffer(k) {
				continue
			}
			r := rand.New(rand.NewPCG(seed, uint64(len(c.Name))<<8|uint64(len(k.Name))))
			plan, err := runspec.Draw(c.Run(t, m, k), m, k, r, runspec.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			if diffKernel(t, c.Name, m, k, mod, plan) {
				ran++
			}
		}
	}
	if ran < 5 {
		t.Errorf("only %d corpus kernels ran differentially; want at least 5", ran)
	}
}

// diffKernel runs one kernel both ways; it reports false when the
// evaluator lacks an instruction the kernel uses.
func diffKernel(t *testing.T, name string, m *ir.Module, k *ir.Kernel, mod *emit.Artifact, plan *runspec.Plan) bool {
	bufs := map[uint32][]*val{}
	want := &interp.Args{Params: plan.Params, Buffers: map[string][]byte{}}
	for i, p := range ir.Buffers(k) {
		s := baseScalar(p.Type)
		if s == ir.F16 || s == ir.Invalid || s == ir.Bool {
			return false
		}
		want.Buffers[p.Name] = append([]byte(nil), plan.Bufs[i]...)
		bufs[uint32(ir.BufferBinding(k, p))] = toVals(plan.Bufs[i], p.Type)
	}
	if err := interp.Run(m, k.Name, plan.Grid, want, interp.Options{}); err != nil {
		t.Fatalf("%s/%s: interp: %v", name, k.Name, err)
	}
	ev, err := newSpeval(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	g := plan.Grid
	if err := ev.run(k.Name, [3]uint32{uint32(g[0]), uint32(g[1]), uint32(g[2])}, plan.Words(), bufs); err != nil {
		t.Logf("%s/%s: evaluator: %v; not compared", name, k.Name, err)
		return false
	}
	for _, p := range ir.Buffers(k) {
		if p.Access != ir.ReadWrite {
			continue
		}
		got := fromVals(bufs[uint32(ir.BufferBinding(k, p))], p.Type, len(want.Buffers[p.Name]))
		exp := want.Buffers[p.Name]
		for i := 0; i+4 <= len(exp); i += 4 {
			g, e := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(exp[i:])
			if g != e && !(baseScalar(p.Type) == ir.F32 && isNaN32(g) && isNaN32(e)) {
				t.Errorf("%s/%s (%v): %s word %d: spirv %#x, interp %#x", name, k.Name, plan, p.Name, i/4, g, e)
				return true
			}
		}
	}
	t.Logf("%s/%s: %d buffers agree (%v)", name, k.Name, len(ir.Buffers(k)), plan)
	return true
}

func isNaN32(x uint32) bool { return math.IsNaN(float64(math.Float32frombits(x))) }

// baseScalar is the scalar an element type is made of, through arrays.
func baseScalar(t ir.Type) ir.Scalar {
	if a, ok := t.(*ir.Array); ok {
		return baseScalar(a.Elem)
	}
	return ir.ElemScalar(t)
}

// toVals decodes buffer bytes into element values of type t (32-bit
// scalars, vectors and arrays of them, laid out by ir.ElemStride).
func toVals(raw []byte, t ir.Type) []*val {
	stride := ir.ElemStride(t)
	var out []*val
	for i := 0; i+stride <= len(raw); i += stride {
		out = append(out, decodeElem(raw[i:], t))
	}
	return out
}

func decodeElem(b []byte, t ir.Type) *val {
	switch t := t.(type) {
	case ir.Vector:
		v := &val{}
		for j := 0; j < t.N; j++ {
			v.c = append(v.c, &val{s: binary.LittleEndian.Uint32(b[4*j:])})
		}
		return v
	case *ir.Array:
		v := &val{}
		es := ir.ElemStride(t.Elem)
		for j := 0; j < t.Len; j++ {
			v.c = append(v.c, decodeElem(b[j*es:], t.Elem))
		}
		return v
	}
	return &val{s: binary.LittleEndian.Uint32(b)}
}

// fromVals encodes element values back into n bytes (padding left zero).
func fromVals(vs []*val, t ir.Type, n int) []byte {
	out := make([]byte, n)
	stride := ir.ElemStride(t)
	for i, v := range vs {
		encodeElem(out[i*stride:], v, t)
	}
	return out
}

func encodeElem(b []byte, v *val, t ir.Type) {
	switch t := t.(type) {
	case ir.Vector:
		for j := 0; j < t.N; j++ {
			binary.LittleEndian.PutUint32(b[4*j:], v.c[j].s)
		}
	case *ir.Array:
		es := ir.ElemStride(t.Elem)
		for j := 0; j < t.Len; j++ {
			encodeElem(b[j*es:], v.c[j], t.Elem)
		}
	default:
		binary.LittleEndian.PutUint32(b, v.s)
	}
}

func hasStructBuffer(k *ir.Kernel) bool {
	for _, b := range ir.Buffers(k) {
		if _, ok := b.Type.(*ir.Struct); ok {
			return true
		}
	}
	return false
}

// withRuns gives cases without //kc:run lines (testdata/lang*.kc) the
// inputs this test used before the corpus had directives: 256 elements a
// buffer, integer parameters in 1..256, small integers in read buffers, a
// 1-D grid over 256 invocations.
func withRuns(t *testing.T, cases []kctest.Case) []kctest.Case {
	var out []kctest.Case
	for _, c := range cases {
		m := c.Module(t)
		var b strings.Builder
		for _, k := range m.Kernels {
			fmt.Fprintf(&b, "//kc:run kernel=%s grid=%d", k.Name, (256+k.Size[0]-1)/k.Size[0])
			for _, p := range k.Params {
				switch {
				case p.Kind == ir.ScalarParam && ir.ElemScalar(p.Type).IsFloat():
					fmt.Fprintf(&b, " %s=-2..2", p.Name)
				case p.Kind == ir.ScalarParam:
					fmt.Fprintf(&b, " %s=1..256", p.Name)
				case p.Kind == ir.BufferParam:
					fmt.Fprintf(&b, " len(%s)=256", p.Name)
					if s := ir.ElemScalar(p.Type); p.Access == ir.Read && (s == ir.I32 || s == ir.U32) {
						fmt.Fprintf(&b, " fill(%s)=0..47", p.Name)
					}
				}
			}
			b.WriteString("\n")
		}
		c.Src = append(append([]byte(nil), c.Src...), b.String()...)
		d, err := directive.Parse(c.Path, c.Src)
		if err != nil {
			t.Fatal(err)
		}
		c.Dirs = d
		out = append(out, c)
	}
	return out
}
