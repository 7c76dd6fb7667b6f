package directive

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// Fill is how a buffer starts.
type Fill struct {
	Mode   string  // "random", "poison", "zero", "edge", "wide" or "range"
	Lo, Hi float64 // Mode "range"
}

var fillModes = []string{"random", "poison", "zero", "edge", "wide"}

func parseFill(pos ir.Pos, val string) (Fill, *ir.Error) {
	for _, m := range fillModes {
		if val == m {
			return Fill{Mode: m}, nil
		}
	}
	if lo, hi, ok := strings.Cut(val, ".."); ok {
		l, err := ParseExpr(pos, lo)
		if err == nil && l.Op != 0 && !(l.Op == '~' && l.Args[0].Op == 0) {
			err = ir.Errorf(pos, "fill range bounds are numbers, not %q", lo)
		}
		if err != nil {
			return Fill{}, err
		}
		hpos := pos
		hpos.Col += len(lo) + 2
		h, err := ParseExpr(hpos, hi)
		if err == nil && h.Op != 0 && !(h.Op == '~' && h.Args[0].Op == 0) {
			err = ir.Errorf(hpos, "fill range bounds are numbers, not %q", hi)
		}
		if err != nil {
			return Fill{}, err
		}
		lv, _ := l.Eval(Env{})
		hv, _ := h.Eval(Env{})
		if !(lv < hv) {
			return Fill{}, ir.Errorf(pos, "fill range %s is empty", val)
		}
		return Fill{Mode: "range", Lo: lv, Hi: hv}, nil
	}
	return Fill{}, ir.Errorf(pos, "unknown fill %q (want %s or LO..HI)", val, strings.Join(fillModes, ", "))
}

// DefaultFill is a buffer's fill when //kc:run names none: poison for
// outputs (so an element the kernel fails to write shows), random for
// inputs.
func DefaultFill(b *ir.Param) Fill {
	if b.Access == ir.ReadWrite {
		return Fill{Mode: "poison"}
	}
	return Fill{Mode: "random"}
}

// Tol is a float output's accepted error against the interpreter: ULP
// ulps of the expected result, or Abs absolute, whichever is larger
// (runspec compares with interp.Tol{ULP, Abs, AbsF16: Abs}). The zero Tol
// is exact.
type Tol struct{ ULP, Abs float64 }

func parseTol(pos ir.Pos, val string) (Tol, *ir.Error) {
	var t Tol
	if val == "exact" {
		return t, nil
	}
	for _, part := range strings.Split(val, ",") {
		k, v, ok := strings.Cut(part, ":")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || f < 0 {
			return t, ir.Errorf(pos, "bad tolerance %q (want exact, or ulp:N and/or abs:X joined by \",\")", part)
		}
		switch k {
		case "ulp":
			t.ULP = f
		case "abs":
			t.Abs = f
		default:
			return t, ir.Errorf(pos, "bad tolerance %q (want exact, or ulp:N and/or abs:X joined by \",\")", part)
		}
		pos.Col += len(part) + 1
	}
	return t, nil
}

// Slots picks elements by index modulo a period.
type Slots struct {
	In     []int
	Period int
}

// Has reports whether element i is one of the slots.
func (s Slots) Has(i int) bool {
	if s.Period == 0 {
		return false
	}
	for _, j := range s.In {
		if i%s.Period == j {
			return true
		}
	}
	return false
}

func parseSlots(pos ir.Pos, val string) (Slots, *ir.Error) {
	list, per, ok := strings.Cut(val, "/")
	p, err := strconv.Atoi(per)
	if !ok || err != nil || p <= 0 {
		return Slots{}, ir.Errorf(pos, "bad slots %q (want S,T,.../PERIOD)", val)
	}
	s := Slots{Period: p}
	for _, f := range strings.Split(list, ",") {
		i, err := strconv.Atoi(f)
		if err != nil || i < 0 || i >= p {
			return Slots{}, ir.Errorf(pos, "bad slot %q in %q (want 0 <= slot < %d)", f, val, p)
		}
		s.In = append(s.In, i)
	}
	return s, nil
}

// Check reports what the directives say that kernel k of m cannot take:
// unknown kernels, params and buffers, a key that names a buffer as a
// param, and missing params, lengths or grid.
func (f *File) Check(m *ir.Module) error {
	var errs ir.ErrorList
	for name, r := range f.Runs {
		if name == "" {
			continue
		}
		if m.Kernel(name) == nil {
			errs = append(errs, ir.Errorf(r.Pos, "//kc:run names kernel %s, which the file lacks", name))
		}
	}
	for _, k := range m.Kernels {
		r, err := f.For(m, k)
		if err != nil {
			errs = append(errs, err.(*ir.Error))
			continue
		}
		if r != nil {
			errs = append(errs, r.check(m, k)...)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Pos.Line < errs[j].Pos.Line })
	return errs
}

func (r *Run) check(m *ir.Module, k *ir.Kernel) ir.ErrorList {
	var errs ir.ErrorList
	params, bufs := map[string]*ir.Param{}, map[string]*ir.Param{}
	for _, p := range k.Params {
		if p.Kind == ir.BufferParam {
			bufs[p.Name] = p
		} else {
			params[p.Name] = p
		}
	}
	for name, v := range r.Params {
		if params[name] == nil {
			what := "scalar parameter " + name
			if bufs[name] != nil {
				what = "scalar parameter " + name + " (" + name + " is a buffer: use len(" + name + ")=N)"
			}
			errs = append(errs, ir.Errorf(v.Pos, "kernel %s has no %s", k.Name, what))
		}
	}
	for _, m := range []map[string]ir.Pos{keysOf(r, "len("), keysOf(r, "fill("), keysOf(r, "tol("), keysOf(r, "f32bits(")} {
		for name, pos := range m {
			if bufs[name] == nil {
				errs = append(errs, ir.Errorf(pos, "kernel %s has no buffer %s", k.Name, name))
			}
		}
	}
	for name := range r.F32Bits {
		if b := bufs[name]; b != nil && ir.ElemScalar(b.Type).IsFloat() {
			errs = append(errs, ir.Errorf(r.keys["f32bits("+name+")"], "f32bits(%s): %s already holds floats", name, name))
		}
	}
	for _, p := range k.Params {
		switch {
		case p.Kind == ir.BufferParam && !hasKey(r.Lens, p.Name):
			errs = append(errs, ir.Errorf(r.Pos, "//kc:run for kernel %s gives no len(%s)", k.Name, p.Name))
		case p.Kind != ir.BufferParam && p.Kind == ir.ScalarParam:
			if _, ok := r.Params[p.Name]; !ok {
				errs = append(errs, ir.Errorf(r.Pos, "//kc:run for kernel %s gives no value for parameter %s", k.Name, p.Name))
			}
		}
	}
	if r.Grid == nil {
		errs = append(errs, ir.Errorf(r.Pos, "//kc:run for kernel %s gives no grid", k.Name))
	}
	return append(errs, r.checkNames(m, k, params, bufs)...)
}

// checkNames finds names the expressions cannot resolve: params and
// lengths see the scalar params and the module's constants, the grid also
// len(BUF) of the kernel's buffers.
func (r *Run) checkNames(m *ir.Module, k *ir.Kernel, params, bufs map[string]*ir.Param) ir.ErrorList {
	consts := map[string]bool{}
	for _, c := range m.Consts {
		consts[c.Name] = true
	}
	var errs ir.ErrorList
	var walk func(e *Expr, lens bool)
	walk = func(e *Expr, lens bool) {
		if e == nil {
			return
		}
		switch {
		case e.Op == 'n' && params[e.Name] == nil && !consts[e.Name]:
			errs = append(errs, ir.Errorf(e.Pos, "unknown name %s (not a scalar param of kernel %s or a constant)", e.Name, k.Name))
		case e.Op == 'f' && e.Name == "len":
			if !lens {
				errs = append(errs, ir.Errorf(e.Pos, "len(%s) is known only in the grid", e.Args[0].Name))
			} else if bufs[e.Args[0].Name] == nil {
				errs = append(errs, ir.Errorf(e.Args[0].Pos, "kernel %s has no buffer %s", k.Name, e.Args[0].Name))
			}
			return
		}
		for _, a := range e.Args {
			walk(a, lens)
		}
	}
	value := func(v Value, lens bool) {
		walk(v.Expr, lens)
		walk(v.Lo, lens)
		walk(v.Hi, lens)
	}
	for _, p := range k.Params {
		if v, ok := r.Params[p.Name]; ok {
			value(v, false)
		}
		if v, ok := r.Lens[p.Name]; ok {
			value(v, false)
		}
	}
	for _, g := range r.Grid {
		walk(g, true)
	}
	return errs
}

// keysOf returns the buffer names of keys "fn(NAME)" with their positions.
func hasKey(m map[string]Value, k string) bool { _, ok := m[k]; return ok }

func keysOf(r *Run, fn string) map[string]ir.Pos {
	out := map[string]ir.Pos{}
	for key, pos := range r.keys {
		if rest, ok := strings.CutPrefix(key, fn); ok {
			out[strings.TrimSuffix(rest, ")")] = pos
		}
	}
	return out
}
