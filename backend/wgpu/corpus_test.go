package wgpu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestCorpus runs every test kernel that this naga can take (no f16, no
// subgroups, no //kc:skip-naga) on wgpu through each target that has an
// emitter, and compares every read_write buffer with the reference
// interpreter run on the same inputs. Arguments are generic: integer
// params random in [8, 48] (a lone one, a 1-D size, in [200, 1200)), float
// params random (eps small and positive), every buffer 24*P*Q elements (P,
// Q the two largest integer params; 24*P for a lone one), all
// buffers random (read_write ones too, identically on both sides, so an
// element the GPU fails to write differs from the interpreter's), and the
// grid read from the `grid:` line of the kernel's header comment.
func TestCorpus(t *testing.T) {
	d := openDevice(t)
	for _, target := range []backend.Target{backend.WGSL, backend.SPIRV} {
		t.Run(string(target), func(t *testing.T) {
			for _, c := range kctest.Cases(t) {
				if !c.Wants(string(target)) {
					continue
				}
				t.Run(c.Name, func(t *testing.T) { runCase(t, d, target, c) })
			}
		})
	}
}

// nagaSPIRVBugs are corpus kernels whose SPIR-V this naga (wgpu-native
// v0.19) accepts but translates wrongly. The same SPIR-V gives the
// interpreter's results on lavapipe through the direct Vulkan driver
// (backend/vulkan TestCorpus), so the fault is naga's, not the emitter's.
var nagaSPIRVBugs = map[string]string{
	"layernorm":   "two reductions through one shared array: wrong row sums",
	"softmax_row": "two reductions through one shared array: wrong row sums",
}

func runCase(t *testing.T, d *backend.Device, target backend.Target, c kctest.Case) {
	if c.SkipNaga != "" {
		t.Skipf("//kc:skip-naga %s", c.SkipNaga)
	}
	m := c.Module(t)
	for ki, k := range m.Kernels {
		if k.Features&(ir.FeatureF16|ir.FeatureSubgroups|ir.FeatureCoopMat) != 0 {
			t.Skipf("kernel %s uses %v: this naga predates them", k.Name, k.Features)
		}
		a, err := backend.Emit(m, k.Name, target)
		if err != nil && strings.Contains(err.Error(), "no emitter") {
			kctest.Missing(t, "%v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if why := nagaSPIRVBugs[c.Name]; why != "" && target == backend.SPIRV {
			t.Skipf("known miscompile of naga's SPIR-V front end: %s", why)
		}
		p, err := d.Load(ctx, a)
		if err != nil && target == backend.SPIRV && strings.Contains(err.Error(), "unsupported instruction") {
			t.Skipf("naga's SPIR-V front end (wgpu v0.19) lacks an instruction: %v", err)
		}
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		r := rng(t)
		args, bufs, err := corpusArgs(r, m, k)
		if err != nil {
			t.Fatal(err)
		}
		groups, err := corpusGrid(c.Src, m, k, ki, args, bufs)
		if err != nil {
			t.Fatal(err)
		}
		compareRun(t, d, p, m, k, args, bufs, groups)
	}
}

// corpusArgs chooses params and buffer contents.
func corpusArgs(r *rand.Rand, m *ir.Module, k *ir.Kernel) (map[string]ir.Value, map[string][]byte, error) {
	params := map[string]ir.Value{}
	var ints []int64
	nInts := 0
	for _, p := range k.Params {
		if p.Kind == ir.ScalarParam && ir.ElemScalar(p.Type) != ir.F32 {
			nInts++
		}
	}
	for _, p := range k.Params {
		if p.Kind != ir.ScalarParam {
			continue
		}
		switch ir.ElemScalar(p.Type) {
		case ir.F32:
			f := float64(r.Float32()*4 - 2)
			if p.Name == "eps" {
				f = 1e-5
			}
			params[p.Name] = ir.FloatVal(float64(float32(f)))
		default:
			v := int64(8 + r.IntN(41))
			if nInts == 1 {
				v = int64(200 + r.IntN(1000)) // a 1-D kernel: several workgroups
			}
			params[p.Name] = ir.IntVal(v)
			ints = append(ints, v)
		}
	}
	pq := int64(48 * 48)
	if len(ints) >= 2 {
		a, b := max(ints[0], ints[1]), min(ints[0], ints[1])
		for _, v := range ints[2:] {
			if v > a {
				a, b = v, a
			} else if v > b {
				b = v
			}
		}
		pq = a * b
	} else if len(ints) == 1 {
		pq = ints[0]
	}
	bufs := map[string][]byte{}
	for _, b := range ir.Buffers(k) {
		data := make([]byte, 24*int(pq)*ir.ElemStride(b.Type))
		if _, ok := b.Type.(*ir.Struct); ok {
			fillStructs(r, data, b.Type)
		} else {
			fillCorpus(r, data, ir.ElemScalar(b.Type), b.Access == ir.ReadWrite && isAtomic(b.Type))
		}
		bufs[b.Name] = data
	}
	return params, bufs, nil
}

func isAtomic(t ir.Type) bool { _, ok := t.(ir.Atomic); return ok }

// fillCorpus fills random values: floats in [-2, 2), integers mostly small
// with a quarter full-range; atomics start at zero.
func fillCorpus(r *rand.Rand, data []byte, s ir.Scalar, zero bool) {
	if zero {
		return
	}
	for i := 0; i+4 <= len(data); i += 4 {
		var w uint32
		switch s {
		case ir.F32:
			w = math.Float32bits(r.Float32()*4 - 2)
		default:
			if r.IntN(4) == 0 {
				w = r.Uint32()
			} else {
				w = uint32(int32(r.IntN(129) - 64))
			}
		}
		binary.LittleEndian.PutUint32(data[i:], w)
	}
}

// fillStructs fills a buffer of structs field by field as fillCorpus
// fills scalars; padding bytes get 0xCD.
func fillStructs(r *rand.Rand, data []byte, t ir.Type) {
	for i := range data {
		data[i] = 0xCD
	}
	stride := ir.ElemStride(t)
	for e := 0; e+stride <= len(data); e += stride {
		leaves(t, e, func(off int, s ir.Scalar) { fillCorpus(r, data[off:off+4], s, false) })
	}
}

// compareRun dispatches on the device and in the interpreter and compares
// every read_write buffer.
func compareRun(t *testing.T, d *backend.Device, p *backend.Pipeline, m *ir.Module, k *ir.Kernel, params map[string]ir.Value, bufs map[string][]byte, groups [3]int) {
	t.Helper()
	fields, _ := ir.ParamsLayout(k)
	words := make([]uint32, len(fields))
	for i, f := range fields {
		v := params[f.Param.Name]
		if ir.ElemScalar(f.Param.Type) == ir.F32 {
			words[i] = math.Float32bits(float32(v.Float))
		} else {
			words[i] = uint32(v.Int)
		}
	}
	var views []backend.View
	want := map[string][]byte{}
	for _, b := range ir.Buffers(k) {
		buf, err := d.Upload(bufs[b.Name])
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, buf.View())
		want[b.Name] = bytes.Clone(bufs[b.Name])
	}
	g := backend.Groups(uint32(groups[0]), uint32(groups[1]), uint32(groups[2]))
	if err := d.Dispatch(p, backend.Args{Params: words, Buffers: views}, g); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := interp.Run(m, k.Name, groups, &interp.Args{Params: params, Buffers: want}, interp.Options{SubgroupSize: 8}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	t.Logf("%s: grid %v, interpreter %v", k.Name, groups, time.Since(t0))
	for i, b := range ir.Buffers(k) {
		if b.Access != ir.ReadWrite {
			continue
		}
		got, err := d.Read(ctx, views[i])
		if err != nil {
			t.Fatal(err)
		}
		msg := ""
		if _, ok := b.Type.(*ir.Struct); ok {
			// field by field, padding skipped, with diff's bound
			msg = compareElems(b, got, want[b.Name], nextCase{abs: 2e-3, rel: 2e-3})
		} else {
			msg = diff(ir.ElemScalar(b.Type), got, want[b.Name])
		}
		if msg != "" {
			t.Errorf("%s: buffer %s (grid %v, params %v): %s", k.Name, b.Name, groups, params, msg)
		}
	}
}

// diff compares element by element: integers exactly, f32 within
// 2e-3 + 2e-3*|want| (the looser of lavapipe's math precision and a
// reordered sum of hundreds of terms); NaN equals NaN.
func diff(s ir.Scalar, got, want []byte) string {
	bad, first := 0, ""
	for i := 0; i+4 <= len(want); i += 4 {
		g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:])
		if g == w {
			continue
		}
		if s == ir.F32 {
			gf, wf := float64(math.Float32frombits(g)), float64(math.Float32frombits(w))
			if math.IsNaN(gf) && math.IsNaN(wf) || math.Abs(gf-wf) <= 2e-3+2e-3*math.Abs(wf) {
				continue
			}
			if first == "" {
				first = fmt.Sprintf("element %d = %v, want %v", i/4, gf, wf)
			}
		} else if first == "" {
			first = fmt.Sprintf("element %d = %#x, want %#x", i/4, g, w)
		}
		bad++
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ; first: %s", bad, len(want)/4, first)
}

// corpusGrid evaluates the `grid:` line of the case's header comment: "A x B x C",
// with kernels of one file separated by " and ".
func corpusGrid(src []byte, m *ir.Module, k *ir.Kernel, index int, params map[string]ir.Value, bufs map[string][]byte) ([3]int, error) {
	var doc string
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "//") && strings.Contains(l, "grid:") {
			doc = l
			break
		}
	}
	_, line, ok := strings.Cut(doc, "grid:")
	if !ok {
		return [3]int{}, fmt.Errorf("kernel %s: no `grid:` in its header comment", k.Name)
	}
	line, _, _ = strings.Cut(line, ";")
	line, _, _ = strings.Cut(line, "(any")
	parts := strings.Split(line, " and ")
	if index < len(parts) {
		line = parts[index]
	}
	env := func(name string) (float64, bool) {
		if v, ok := params[name]; ok {
			if v.Kind == ir.FloatValue {
				return v.Float, true
			}
			return float64(v.Int), true
		}
		for _, c := range m.Consts {
			if c.Name == name {
				return float64(c.Val.Int) + c.Val.Float, true
			}
		}
		return 0, false
	}
	lenOf := func(name string) (float64, bool) {
		for _, b := range ir.Buffers(k) {
			if b.Name == name {
				return float64(len(bufs[name]) / ir.ElemStride(b.Type)), true
			}
		}
		return 0, false
	}
	var g [3]int
	dims := strings.Split(line, " x ")
	if len(dims) < 1 || len(dims) > 3 {
		return g, fmt.Errorf("kernel %s: cannot read grid %q", k.Name, line)
	}
	for i := range g {
		g[i] = 1
	}
	for i, d := range dims {
		v, err := evalGrid(strings.TrimSpace(d), env, lenOf)
		if err != nil {
			return g, fmt.Errorf("kernel %s: grid %q: %v", k.Name, line, err)
		}
		g[i] = max(int(math.Ceil(v-1e-9)), 1)
	}
	return g, nil
}

// evalGrid evaluates + - * / over numbers, names, ceil(...) and len(buf).
func evalGrid(s string, env, lenOf func(string) (float64, bool)) (float64, error) {
	p := &gridParser{s: strings.ReplaceAll(s, " ", ""), env: env, lenOf: lenOf}
	v := p.sum()
	if p.err == nil && p.i != len(p.s) {
		p.err = fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	return v, p.err
}

type gridParser struct {
	s          string
	i          int
	err        error
	env, lenOf func(string) (float64, bool)
}

func (p *gridParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *gridParser) sum() float64 {
	v := p.product()
	for p.err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.i]
		p.i++
		w := p.product()
		if op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v
}

func (p *gridParser) product() float64 {
	v := p.factor()
	for p.err == nil && (p.peek() == '*' || p.peek() == '/') {
		op := p.s[p.i]
		p.i++
		w := p.factor()
		if op == '*' {
			v *= w
		} else {
			v /= w
		}
	}
	return v
}

func (p *gridParser) factor() float64 {
	switch c := p.peek(); {
	case c == '(':
		p.i++
		v := p.sum()
		p.expect(')')
		return v
	case c >= '0' && c <= '9':
		j := p.i
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
			p.i++
		}
		v, err := strconv.ParseFloat(p.s[j:p.i], 64)
		if err != nil && p.err == nil {
			p.err = err
		}
		return v
	case unicode.IsLetter(rune(c)):
		j := p.i
		for p.i < len(p.s) && (unicode.IsLetter(rune(p.s[p.i])) || unicode.IsDigit(rune(p.s[p.i])) || p.s[p.i] == '_') {
			p.i++
		}
		name := p.s[j:p.i]
		if p.peek() == '(' {
			p.i++
			switch name {
			case "ceil":
				v := p.sum()
				p.expect(')')
				return math.Ceil(v - 1e-9)
			case "len":
				j := p.i
				for p.i < len(p.s) && p.s[p.i] != ')' {
					p.i++
				}
				v, ok := p.lenOf(p.s[j:p.i])
				p.expect(')')
				if !ok && p.err == nil {
					p.err = fmt.Errorf("no buffer %q", p.s[j:p.i-1])
				}
				return v
			}
		}
		v, ok := p.env(name)
		if !ok && p.err == nil {
			p.err = fmt.Errorf("unknown name %q", name)
		}
		return v
	}
	if p.err == nil {
		p.err = fmt.Errorf("unexpected %q at %d", p.s[p.i:], p.i)
	}
	return 0
}

func (p *gridParser) expect(c byte) {
	if p.peek() != c {
		if p.err == nil {
			p.err = fmt.Errorf("want %q at %d in %q", c, p.i, p.s)
		}
		return
	}
	p.i++
}
