package runspec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
)

// Plan is a concrete run of one kernel: every scalar param, every
// buffer's initial bytes (in ir.Buffers order) and the grid.
type Plan struct {
	Kernel *ir.Kernel
	Params map[string]ir.Value
	Bufs   [][]byte
	Grid   [3]int
}

// Overrides replace parts of a Run (kc run's flags). A nil map overrides
// nothing.
type Overrides struct {
	Params map[string]string // scalar param values as text
	Lens   map[string]int    // buffer lengths in elements
	Data   map[string][]byte // buffer contents (their length follows)
	Grid   []int             // workgroup counts
}

// Draw draws a concrete run of k (a kernel of m) from r, which may be nil
// when o gives everything. Ranges are drawn from rnd; values in o win
// over the directives.
func Draw(r *directive.Run, m *ir.Module, k *ir.Kernel, rnd *rand.Rand, o Overrides) (*Plan, error) {
	p := &Plan{Kernel: k, Params: map[string]ir.Value{}}
	consts := map[string]float64{}
	for _, c := range m.Consts {
		consts[c.Name] = float64(c.Val.Int) + c.Val.Float
	}
	env := directive.Env{Value: func(name string) (float64, bool) {
		if v, ok := p.Params[name]; ok {
			return float64(v.Int) + v.Float, true
		}
		v, ok := consts[name]
		return v, ok
	}}
	if err := planParams(r, p, k, env, rnd, o); err != nil {
		return nil, err
	}
	lens, err := planLens(r, k, env, rnd, o)
	if err != nil {
		return nil, err
	}
	env.Len = func(name string) (int, bool) { n, ok := lens[name]; return n, ok }
	for _, b := range ir.Buffers(k) {
		if data, ok := o.Data[b.Name]; ok {
			p.Bufs = append(p.Bufs, data)
			continue
		}
		fill := directive.DefaultFill(b)
		if f, ok := fillOf(r, b.Name); ok {
			fill = f
		}
		p.Bufs = append(p.Bufs, FillBuffer(rnd, fill, b.Type, lens[b.Name]))
	}
	p.Grid, err = planGrid(r, k, env, o)
	return p, err
}

func fillOf(r *directive.Run, name string) (directive.Fill, bool) {
	if r == nil {
		return directive.Fill{}, false
	}
	f, ok := r.Fills[name]
	return f, ok
}

func planParams(r *directive.Run, p *Plan, k *ir.Kernel, env directive.Env, rnd *rand.Rand, o Overrides) error {
	for _, prm := range k.Params {
		if prm.Kind != ir.ScalarParam {
			continue
		}
		s := ir.ElemScalar(prm.Type)
		if text, ok := o.Params[prm.Name]; ok {
			v, err := ParseScalar(s, text)
			if err != nil {
				return fmt.Errorf("parameter %s=%s: %v", prm.Name, text, err)
			}
			p.Params[prm.Name] = v
			continue
		}
		var spec directive.Value
		ok := false
		if r != nil {
			spec, ok = r.Params[prm.Name]
		}
		if !ok {
			return fmt.Errorf("kernel %s: no value for parameter %s (give it with -p %s=VALUE or a //kc:run line)", k.Name, prm.Name, prm.Name)
		}
		v, err := drawValue(spec, s, env, rnd)
		if err != nil {
			return err
		}
		p.Params[prm.Name] = v
	}
	return nil
}

// drawValue evaluates a param's value, drawing from a range.
func drawValue(spec directive.Value, s ir.Scalar, env directive.Env, rnd *rand.Rand) (ir.Value, error) {
	if spec.Expr != nil {
		f, err := spec.Expr.Eval(env)
		if err != nil {
			return ir.Value{}, err
		}
		return scalarValue(spec.Expr, s, f)
	}
	lo, err := spec.Lo.Eval(env)
	if err != nil {
		return ir.Value{}, err
	}
	hi, err := spec.Hi.Eval(env)
	if err != nil {
		return ir.Value{}, err
	}
	if !(lo <= hi) {
		return ir.Value{}, ir.Errorf(spec.Pos, "empty range %s..%s", spec.Lo.Text, spec.Hi.Text)
	}
	if s.IsFloat() {
		return ir.FloatVal(float64(float32(lo + rnd.Float64()*(hi-lo)))), nil
	}
	l, h := math.Ceil(lo), math.Floor(hi)
	if l > h {
		return ir.Value{}, ir.Errorf(spec.Pos, "range %s..%s holds no integer", spec.Lo.Text, spec.Hi.Text)
	}
	return scalarValue(spec.Lo, s, l+float64(rnd.Int64N(int64(h-l)+1)))
}

// scalarValue converts f to a value of s, refusing what does not fit.
func scalarValue(e *directive.Expr, s ir.Scalar, f float64) (ir.Value, error) {
	switch s {
	case ir.F32, ir.F16:
		return ir.FloatVal(float64(float32(f))), nil
	case ir.I32:
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return ir.Value{}, ir.Errorf(e.Pos, "%s = %g is not an i32", e.Text, f)
		}
	case ir.U32:
		if f != math.Trunc(f) || f < 0 || f > math.MaxUint32 {
			return ir.Value{}, ir.Errorf(e.Pos, "%s = %g is not a u32", e.Text, f)
		}
	default:
		return ir.Value{}, ir.Errorf(e.Pos, "unsupported parameter type %s", s)
	}
	return ir.IntVal(int64(f)), nil
}

func planLens(r *directive.Run, k *ir.Kernel, env directive.Env, rnd *rand.Rand, o Overrides) (map[string]int, error) {
	lens := map[string]int{}
	for _, b := range ir.Buffers(k) {
		stride := ir.ElemStride(b.Type)
		if data, ok := o.Data[b.Name]; ok {
			lens[b.Name] = len(data) / stride
			continue
		}
		if n, ok := o.Lens[b.Name]; ok {
			lens[b.Name] = n
			continue
		}
		var spec directive.Value
		ok := false
		if r != nil {
			spec, ok = r.Lens[b.Name]
		}
		if !ok {
			return nil, fmt.Errorf("kernel %s: no length for buffer %s (give it with -len %s=N or a //kc:run line)", k.Name, b.Name, b.Name)
		}
		limit := int64(1<<31) / int64(stride)
		if spec.Expr != nil {
			n, err := spec.Expr.Int(env, "len("+b.Name+")", 1, limit)
			if err != nil {
				return nil, err
			}
			lens[b.Name] = int(n)
			continue
		}
		v, err := drawValue(spec, ir.U32, env, rnd)
		if err != nil {
			return nil, err
		}
		if v.Int < 1 || v.Int > limit {
			return nil, ir.Errorf(spec.Pos, "len(%s) = %d elements is out of range", b.Name, v.Int)
		}
		lens[b.Name] = int(v.Int)
	}
	return lens, nil
}

func planGrid(r *directive.Run, k *ir.Kernel, env directive.Env, o Overrides) ([3]int, error) {
	g := [3]int{1, 1, 1}
	if o.Grid != nil {
		copy(g[:], o.Grid)
		return g, nil
	}
	if r == nil || r.Grid == nil {
		return g, fmt.Errorf("kernel %s: no grid (give it with -groups X,Y,Z or a //kc:run line)", k.Name)
	}
	for i, e := range r.Grid {
		n, err := e.Int(env, "grid", 1, math.MaxInt32)
		if err != nil {
			return g, err
		}
		g[i] = int(n)
	}
	return g, nil
}

// ParseScalar reads a param value of type s from text (Go number syntax).
func ParseScalar(s ir.Scalar, text string) (ir.Value, error) {
	if i, err := strconv.ParseInt(text, 0, 64); err == nil && !s.IsFloat() {
		v, err := scalarValue(&directive.Expr{Text: text}, s, float64(i))
		if err != nil {
			return v, fmt.Errorf("not a %s", s)
		}
		return v, nil
	}
	e, perr := directive.ParseExpr(ir.Pos{}, text)
	if perr != nil {
		return ir.Value{}, fmt.Errorf("not a number")
	}
	f, err := e.Eval(directive.Env{})
	if err != nil {
		return ir.Value{}, fmt.Errorf("not a number")
	}
	v, err := scalarValue(e, s, f)
	if err != nil {
		return ir.Value{}, fmt.Errorf("not a %s", s)
	}
	return v, nil
}

// Words encodes the plan's params as the params block (ir.ParamsLayout order).
func (p *Plan) Words() []uint32 {
	fields, _ := ir.ParamsLayout(p.Kernel)
	words := make([]uint32, len(fields))
	for i, f := range fields {
		v := p.Params[f.Param.Name]
		if ir.ElemScalar(f.Param.Type).IsFloat() {
			words[i] = math.Float32bits(float32(v.Float))
		} else {
			words[i] = uint32(v.Int)
		}
	}
	return words
}

// String describes the plan's params and grid ("n=333 a=1.5 grid 6x1x1").
func (p *Plan) String() string {
	var parts []string
	for _, prm := range p.Kernel.Params {
		if v, ok := p.Params[prm.Name]; ok {
			if v.Kind == ir.FloatValue {
				parts = append(parts, fmt.Sprintf("%s=%g", prm.Name, v.Float))
			} else {
				parts = append(parts, fmt.Sprintf("%s=%d", prm.Name, v.Int))
			}
		}
	}
	parts = append(parts, fmt.Sprintf("grid %dx%dx%d", p.Grid[0], p.Grid[1], p.Grid[2]))
	return strings.Join(parts, " ")
}
