package spirv

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/emit"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestDifferential runs every corpus kernel (and those of testdata/lang*.kc)
// that the test evaluator can carry (no shared memory, atomics, subgroups or f16) on fresh random
// inputs, once as emitted SPIR-V and once in the reference interpreter,
// and compares every output buffer bit for bit (NaNs compare equal).
func TestDifferential(t *testing.T) {
	ran := 0
	for _, c := range append(corpus(t), langCases(t)...) {
		m := c.Module(t)
		mod, err := Emit(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range m.Kernels {
			if len(k.Shared) > 0 || k.Features != 0 {
				continue
			}
			if diffKernel(t, c.Name, m, k, mod) {
				ran++
			}
		}
	}
	if ran < 5 {
		t.Errorf("only %d corpus kernels ran differentially; want at least 5", ran)
	}
}

// diffKernel runs one kernel both ways; it reports false when the inputs
// do not suit it (the interpreter rejects them) or the evaluator lacks an
// instruction it uses.
func diffKernel(t *testing.T, name string, m *ir.Module, k *ir.Kernel, mod *emit.Artifact) bool {
	const n = 256
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	args := &interp.Args{Params: map[string]ir.Value{}, Buffers: map[string][]byte{}}
	var params []uint32
	fields, _ := ir.ParamsLayout(k)
	for _, f := range fields {
		switch f.Param.Type {
		case ir.F32:
			v := float32(r.NormFloat64())
			args.Params[f.Param.Name] = ir.FloatVal(float64(v))
			params = append(params, math.Float32bits(v))
		default:
			v := int64(1 + r.IntN(n))
			args.Params[f.Param.Name] = ir.IntVal(v)
			params = append(params, uint32(v))
		}
	}
	bufs := map[uint32][]*val{}
	for _, p := range ir.Buffers(k) {
		s := baseScalar(p.Type)
		if s == ir.F16 || s == ir.Invalid || s == ir.Bool {
			return false
		}
		raw := make([]byte, ir.ElemStride(p.Type)*n)
		for i := 0; i < len(raw)/4; i++ {
			var x uint32
			switch {
			case p.Access == ir.ReadWrite && r.IntN(2) == 0:
				x = 0xffffffff // poison some outputs
			case s == ir.F32:
				x = math.Float32bits(float32(r.NormFloat64() * 8))
			case r.IntN(4) == 0:
				x = r.Uint32()
			default:
				x = uint32(int32(r.IntN(64) - 16))
			}
			binary.LittleEndian.PutUint32(raw[4*i:], x)
		}
		args.Buffers[p.Name] = raw
		bufs[uint32(ir.BufferBinding(k, p))] = toVals(raw, p.Type)
	}
	groups := [3]int{(n + k.Size[0] - 1) / k.Size[0], 1, 1}
	want := &interp.Args{Params: args.Params, Buffers: map[string][]byte{}}
	for name, b := range args.Buffers {
		want.Buffers[name] = append([]byte(nil), b...)
	}
	if err := interp.Run(m, k.Name, groups, want, interp.Options{}); err != nil {
		t.Logf("%s/%s: interp rejects random inputs (%v); not compared", name, k.Name, err)
		return false
	}
	ev, err := newSpeval(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.run(k.Name, [3]uint32{uint32(groups[0]), 1, 1}, params, bufs); err != nil {
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
				t.Errorf("%s/%s: %s word %d: spirv %#x, interp %#x", name, k.Name, p.Name, i/4, g, e)
				return true
			}
		}
	}
	t.Logf("%s/%s: %d buffers agree", name, k.Name, len(ir.Buffers(k)))
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
