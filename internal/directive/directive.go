package directive

import (
	"bufio"
	"bytes"
	"sort"
	"strings"

	"github.com/kcgo/kc/ir"
)

// File is what the //kc: directives of one .kc file say.
type File struct {
	Targets  []string          // nil: every target
	Defines  map[string]string // //kc:define values
	SkipNaga string            // non-empty: why naga cannot take the file
	Runs     map[string]*Run   // by kernel name; "" for lines without kernel=
}

// Run is one kernel's //kc:run lines, merged. Values are kept as parsed
// expressions; Plan evaluates them.
type Run struct {
	Kernel  string
	Pos     ir.Pos           // the first //kc:run line of the kernel
	Grid    []*Expr          // 1 to 3 dimensions; nil when not given
	Params  map[string]Value // by scalar param name
	Lens    map[string]Value // by buffer name: elements
	Fills   map[string]Fill
	Tols    map[string]Tol
	F32Bits map[string]Slots

	keys map[string]ir.Pos // every key given, for duplicates and checks
}

// Value is a param's value: Expr, or a range Lo..Hi to draw from.
type Value struct {
	Pos    ir.Pos
	Expr   *Expr // nil for a range
	Lo, Hi *Expr
}

// Parse reads every //kc: directive of src. Errors carry the position of
// the offending field (file:line:col).
func Parse(file string, src []byte) (*File, error) {
	f := &File{Defines: map[string]string{}, Runs: map[string]*Run{}}
	var errs ir.ErrorList
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimLeft(text, " \t")
		rest, ok := strings.CutPrefix(trimmed, "//kc:")
		if !ok {
			continue
		}
		col := len(text) - len(trimmed) + 1
		pos := ir.Pos{File: file, Line: line, Col: col}
		verb, arg, _ := strings.Cut(rest, " ")
		arg = strings.TrimSpace(arg)
		switch verb {
		case "targets":
			f.Targets = strings.Fields(arg)
		case "define":
			for _, fl := range fieldsAt(text, col+len("//kc:define")) {
				k, v, ok := strings.Cut(fl.text, "=")
				if !ok || k == "" || v == "" {
					errs = append(errs, ir.Errorf(fl.pos(file, line), "//kc:define wants NAME=VALUE, not %q", fl.text))
					continue
				}
				f.Defines[k] = v
			}
		case "skip-naga":
			f.SkipNaga = arg
		case "run":
			errs = append(errs, f.parseRun(file, line, text, col)...)
		default:
			errs = append(errs, ir.Errorf(pos, "unknown directive //kc:%s (known: define, run, skip-naga, targets)", verb))
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Pos.Line < errs[j].Pos.Line })
		return f, errs
	}
	return f, nil
}

// field is one space-separated word of a directive line and its column.
type field struct {
	text string
	col  int
}

func (f field) pos(file string, line int) ir.Pos { return ir.Pos{File: file, Line: line, Col: f.col} }

// fieldsAt splits line from byte column from (1-based) on blanks.
func fieldsAt(line string, from int) []field {
	var out []field
	i := from - 1
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, field{line[i:j], i + 1})
		}
		i = j
	}
	return out
}

// parseRun reads one //kc:run line into the Run of its kernel.
func (f *File) parseRun(file string, line int, text string, col int) ir.ErrorList {
	var errs ir.ErrorList
	fields := fieldsAt(text, col+len("//kc:run"))
	kernel := ""
	for _, fl := range fields {
		if k, v, ok := strings.Cut(fl.text, "="); ok && k == "kernel" {
			kernel = v
		}
	}
	r := f.Runs[kernel]
	if r == nil {
		r = &Run{Kernel: kernel, Pos: ir.Pos{File: file, Line: line, Col: col}, Params: map[string]Value{},
			Lens: map[string]Value{}, Fills: map[string]Fill{}, Tols: map[string]Tol{}, F32Bits: map[string]Slots{}, keys: map[string]ir.Pos{}}
		f.Runs[kernel] = r
	}
	if len(fields) == 0 {
		return ir.ErrorList{ir.Errorf(r.Pos, "//kc:run says nothing (want KEY=VALUE fields)")}
	}
	for _, fl := range fields {
		if err := r.field(file, line, fl); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// field reads one KEY=VALUE of a //kc:run line.
func (r *Run) field(file string, line int, fl field) *ir.Error {
	pos := fl.pos(file, line)
	key, val, ok := strings.Cut(fl.text, "=")
	if !ok || key == "" || val == "" {
		return ir.Errorf(pos, "//kc:run field %q is not KEY=VALUE", fl.text)
	}
	if key == "kernel" {
		return nil
	}
	if prev, dup := r.keys[key]; dup {
		return ir.Errorf(pos, "%s given twice (first at %s)", key, prev)
	}
	r.keys[key] = pos
	vpos := pos
	vpos.Col += len(key) + 1
	fn, arg, isCall := splitCall(key)
	if !isCall {
		if key == "grid" {
			return r.grid(vpos, val)
		}
		if !isName(key) {
			return ir.Errorf(pos, "bad //kc:run key %q", key)
		}
		v, err := parseValue(vpos, val)
		if err != nil {
			return err
		}
		r.Params[key] = v
		return nil
	}
	if !isName(arg) {
		return ir.Errorf(pos, "bad buffer name %q in %s", arg, key)
	}
	var err *ir.Error
	switch fn {
	case "len":
		var v Value
		v, err = parseValue(vpos, val)
		r.Lens[arg] = v
	case "fill":
		var fm Fill
		fm, err = parseFill(vpos, val)
		r.Fills[arg] = fm
	case "tol":
		var t Tol
		t, err = parseTol(vpos, val)
		r.Tols[arg] = t
	case "f32bits":
		var s Slots
		s, err = parseSlots(vpos, val)
		r.F32Bits[arg] = s
	default:
		err = ir.Errorf(pos, "unknown //kc:run key %s(...) (known: len, fill, tol, f32bits)", fn)
	}
	return err
}

func (r *Run) grid(pos ir.Pos, val string) *ir.Error {
	parts := splitTop(val)
	if len(parts) > 3 {
		return ir.Errorf(pos, "grid has %d dimensions, at most 3", len(parts))
	}
	for _, p := range parts {
		e, err := ParseExpr(pos, p)
		if err != nil {
			return err
		}
		r.Grid = append(r.Grid, e)
		pos.Col += len(p) + 1
	}
	return nil
}

func parseValue(pos ir.Pos, val string) (Value, *ir.Error) {
	if lo, hi, ok := strings.Cut(val, ".."); ok {
		l, err := ParseExpr(pos, lo)
		if err != nil {
			return Value{}, err
		}
		hpos := pos
		hpos.Col += len(lo) + 2
		h, err := ParseExpr(hpos, hi)
		if err != nil {
			return Value{}, err
		}
		return Value{Pos: pos, Lo: l, Hi: h}, nil
	}
	e, err := ParseExpr(pos, val)
	return Value{Pos: pos, Expr: e}, err
}

// splitCall splits "fn(arg)" into fn and arg.
func splitCall(s string) (fn, arg string, ok bool) {
	i := strings.IndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// For returns the Run of kernel k of module m: the lines naming it, or
// the unnamed lines when m has only k. It returns nil when the file has
// no //kc:run for k.
func (f *File) For(m *ir.Module, k *ir.Kernel) (*Run, error) {
	if r := f.Runs[k.Name]; r != nil {
		return r, nil
	}
	r := f.Runs[""]
	if r == nil {
		return nil, nil
	}
	if len(m.Kernels) > 1 {
		return nil, ir.Errorf(r.Pos, "//kc:run without kernel=NAME in a file with %d kernels", len(m.Kernels))
	}
	return r, nil
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
