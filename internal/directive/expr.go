package directive

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kcgo/kc/ir"
)

// Expr is a parsed //kc:run expression: numbers, names, + - * / %,
// parentheses and the functions ceil, floor, min, max and len.
type Expr struct {
	Pos  ir.Pos
	Op   byte    // 0 number, 'n' name, 'f' call, '~' negation, else the binary operator
	Num  float64 // Op 0
	Name string  // Op 'n' and 'f'
	Args []*Expr
	Text string // the source text, for messages
}

// Env answers the names of an expression.
type Env struct {
	Value func(name string) (float64, bool) // params and constants
	Len   func(buf string) (int, bool)      // buffer lengths in elements
}

// Eval computes e in float64.
func (e *Expr) Eval(env Env) (float64, error) {
	switch e.Op {
	case 0:
		return e.Num, nil
	case 'n':
		if env.Value != nil {
			if v, ok := env.Value(e.Name); ok {
				return v, nil
			}
		}
		return 0, ir.Errorf(e.Pos, "unknown name %s (not a scalar param or constant of the kernel)", e.Name)
	case '~':
		v, err := e.Args[0].Eval(env)
		return -v, err
	case 'f':
		return e.call(env)
	}
	a, err := e.Args[0].Eval(env)
	if err != nil {
		return 0, err
	}
	b, err := e.Args[1].Eval(env)
	if err != nil {
		return 0, err
	}
	switch e.Op {
	case '+':
		return a + b, nil
	case '-':
		return a - b, nil
	case '*':
		return a * b, nil
	}
	if b == 0 {
		return 0, ir.Errorf(e.Pos, "division by zero in %s", e.Text)
	}
	if e.Op == '/' {
		return a / b, nil
	}
	return math.Mod(a, b), nil
}

func (e *Expr) call(env Env) (float64, error) {
	if e.Name == "len" {
		if env.Len != nil {
			if n, ok := env.Len(e.Args[0].Name); ok {
				return float64(n), nil
			}
		}
		return 0, ir.Errorf(e.Args[0].Pos, "len(%s): no buffer %s with a known length", e.Args[0].Name, e.Args[0].Name)
	}
	var vs []float64
	for _, a := range e.Args {
		v, err := a.Eval(env)
		if err != nil {
			return 0, err
		}
		vs = append(vs, v)
	}
	switch e.Name {
	case "ceil":
		return math.Ceil(vs[0]), nil
	case "floor":
		return math.Floor(vs[0]), nil
	case "min":
		return math.Min(vs[0], vs[1]), nil
	}
	return math.Max(vs[0], vs[1]), nil
}

// Int evaluates e and requires a whole number in [lo, hi].
func (e *Expr) Int(env Env, what string, lo, hi int64) (int64, error) {
	v, err := e.Eval(env)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, ir.Errorf(e.Pos, "%s = %s = %.6g, want a whole number in [%d, %d]", what, e.Text, v, lo, hi)
	}
	return int64(v), nil
}

// ParseExpr parses s, which starts at pos.
func ParseExpr(pos ir.Pos, s string) (*Expr, *ir.Error) {
	p := &exprParser{s: s, pos: pos}
	e := p.sum()
	if p.err == nil && p.i < len(s) {
		p.fail("unexpected %q in expression %q", s[p.i:], s)
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

type exprParser struct {
	s   string
	i   int
	pos ir.Pos
	err *ir.Error
}

func (p *exprParser) at(i int) ir.Pos { q := p.pos; q.Col += i; return q }

func (p *exprParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = ir.Errorf(p.at(p.i), format, args...)
	}
}

func (p *exprParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *exprParser) node(start int, op byte, args ...*Expr) *Expr {
	return &Expr{Pos: p.at(start), Op: op, Args: args, Text: p.s[start:p.i]}
}

func (p *exprParser) sum() *Expr {
	start := p.i
	e := p.product()
	for p.err == nil && (p.peek() == '+' || p.peek() == '-') {
		op := p.s[p.i]
		p.i++
		e = p.node(start, op, e, p.product())
	}
	return e
}

func (p *exprParser) product() *Expr {
	start := p.i
	e := p.unary()
	for p.err == nil && (p.peek() == '*' || p.peek() == '/' || p.peek() == '%') {
		op := p.s[p.i]
		p.i++
		e = p.node(start, op, e, p.unary())
	}
	return e
}

func (p *exprParser) unary() *Expr {
	start := p.i
	if p.peek() == '-' {
		p.i++
		return p.node(start, '~', p.unary())
	}
	return p.primary()
}

var arity = map[string]int{"ceil": 1, "floor": 1, "min": 2, "max": 2, "len": 1}

func (p *exprParser) primary() *Expr {
	start := p.i
	c := p.peek()
	switch {
	case c == '(':
		p.i++
		e := p.sum()
		p.expect(')')
		return e
	case c >= '0' && c <= '9' || c == '.':
		for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '.' ||
			(p.s[p.i] == '+' || p.s[p.i] == '-') && p.i > start && (p.s[p.i-1]|0x20 == 'e' || p.s[p.i-1]|0x20 == 'p')) {
			p.i++
		}
		v, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil {
			p.i = start
			p.fail("bad number %q", p.s[start:])
			return nil
		}
		e := p.node(start, 0)
		e.Num = v
		return e
	case c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z':
		for p.i < len(p.s) && isAlnum(p.s[p.i]) {
			p.i++
		}
		name := p.s[start:p.i]
		if p.peek() != '(' {
			e := p.node(start, 'n')
			e.Name = name
			return e
		}
		n, ok := arity[name]
		if !ok {
			p.i = start
			p.fail("unknown function %s (known: ceil, floor, min, max, len)", name)
			return nil
		}
		p.i++
		var args []*Expr
		for j := 0; j < n && p.err == nil; j++ {
			if j > 0 {
				p.expect(',')
			}
			args = append(args, p.sum())
		}
		p.expect(')')
		e := p.node(start, 'f', args...)
		e.Name = name
		if p.err == nil && name == "len" && args[0].Op != 'n' {
			p.err = ir.Errorf(args[0].Pos, "len wants a buffer name, not %q", args[0].Text)
		}
		return e
	}
	if c == 0 {
		p.fail("expression ends early: %q", p.s)
	} else {
		p.fail("unexpected %q in expression %q", string(c), p.s)
	}
	return nil
}

func (p *exprParser) expect(c byte) {
	if p.err != nil {
		return
	}
	if p.peek() != c {
		p.fail("want %q in expression %q", string(c), p.s)
		return
	}
	p.i++
}

func isAlnum(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

func (e *Expr) String() string { return fmt.Sprint(e.Text) }
