package parse

import (
	"math"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// exprNode is an expression in the participle tree: a box around the ir.Expr
// built by the precedence climber below, or a barrier call, which is a
// statement that the grammar first sees as an expression.
type exprNode interface{ node() *exprBox }

type exprBox struct {
	Pos     lexer.Position
	E       ir.Expr
	Barrier ir.BarrierKind // set for workgroupBarrier() and storageBarrier()
	Store   *ir.CoopStore  // set for coopStore(...), a statement
}

func (b *exprBox) node() *exprBox { return b }

// parseExprNode is participle's hook for exprNode: Go's expression syntax by
// precedence climbing (ir.BinaryOp.Precedence).
func parseExprNode(lex *lexer.PeekingLexer, structs map[string]*ir.Struct) (exprNode, error) {
	t := lex.Peek()
	if !startsExpr(t) {
		return nil, participle.NextMatch
	}
	p := &exprParser{lex: lex, structs: structs}
	if t.Type == tokIdent && (t.Value == "workgroupBarrier" || t.Value == "storageBarrier") {
		return p.barrier()
	}
	if t.Type == tokIdent && t.Value == "coopStore" {
		return p.coopStatement()
	}
	e, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	return &exprBox{Pos: t.Pos, E: e}, nil
}

func startsExpr(t *lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokInt, tokFloat:
		return true
	case tokKeyword:
		switch t.Value {
		case "true", "false", "inf", "nan":
			return true
		}
	case tokPunct:
		switch t.Value {
		case "(", "-", "!", "^", "[":
			return true
		}
	}
	return false
}

type exprParser struct {
	lex     *lexer.PeekingLexer
	depth   int                   // unary operators being parsed (brackets are bounded by the lexer)
	structs map[string]*ir.Struct // struct names: Name{ starts a literal
}

// maxUnary bounds chains of unary operators such as - - - x.
const maxUnary = 200

func irPos(p lexer.Position) ir.Pos { return ir.Pos{File: p.Filename, Line: p.Line, Col: p.Column} }

func (p *exprParser) barrier() (exprNode, error) {
	t := *p.lex.Next()
	kind := ir.WorkgroupBarrier
	if t.Value == "storageBarrier" {
		kind = ir.StorageBarrier
	}
	if err := p.expect("(", "\"(\" after "+t.Value); err != nil {
		return nil, err
	}
	if err := p.expect(")", "\")\": "+t.Value+" takes no arguments"); err != nil {
		return nil, err
	}
	return &exprBox{Pos: t.Pos, Barrier: kind}, nil
}

// expect consumes the punctuation s or fails saying what was expected.
func (p *exprParser) expect(s, what string) error {
	t := p.lex.Peek()
	if t.Type != tokPunct || t.Value != s {
		return unexpected(t, what)
	}
	p.lex.Next()
	return nil
}

func (p *exprParser) is(s string) bool {
	t := p.lex.Peek()
	return t.Type == tokPunct && t.Value == s
}

func (p *exprParser) skipNewlines() {
	for p.lex.Peek().Type == tokNewline {
		p.lex.Next()
	}
}

func (p *exprParser) binary(minPrec int) (ir.Expr, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := *p.lex.Peek()
		if t.Type != tokPunct {
			return x, nil
		}
		op, ok := ir.BinaryOpByText(t.Value)
		if !ok || op.Precedence() < minPrec {
			return x, nil
		}
		p.lex.Next()
		// As in Go, an expression may continue on the next line after an operator.
		p.skipNewlines()
		y, err := p.binary(op.Precedence() + 1)
		if err != nil {
			return nil, err
		}
		x = &ir.Binary{Pos: irPos(t.Pos), Op: op, X: x, Y: y}
		ir.TrimNeededParens(x)
	}
}

func (p *exprParser) unary() (ir.Expr, error) {
	t := *p.lex.Peek()
	if t.Type != tokPunct {
		return p.postfix()
	}
	var op ir.UnaryOp
	switch t.Value {
	case "-":
		op = ir.OpNeg
	case "!":
		op = ir.OpNot
	case "^":
		op = ir.OpBitNot
	default:
		return p.postfix()
	}
	p.lex.Next()
	if op == ir.OpNeg && isNumber(p.lex.Peek()) {
		// A minus directly on a number is part of the literal: -1, -0.5, -inf.
		litPos := p.lex.Peek().Pos
		lit, err := p.literal(true)
		if err != nil {
			return nil, err
		}
		if !p.is("[") && !p.is(".") {
			lit.Pos = irPos(t.Pos)
			return lit, nil
		}
		// -5[...] or -5.x: the minus applies to the postfix expression.
		if lit.Val.Kind == ir.IntValue && lit.Val.Int == math.MinInt64 {
			return nil, participle.Errorf(litPos, "integer constant 9223372036854775808 overflows")
		}
		negate(lit)
		x, err := p.postfixOf(lit)
		if err != nil {
			return nil, err
		}
		u := &ir.Unary{Pos: irPos(t.Pos), Op: op, X: x}
		ir.TrimNeededParens(u)
		return u, nil
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxUnary {
		return nil, participle.Errorf(t.Pos, "too many unary operators in a row (more than %d)", maxUnary)
	}
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	u := &ir.Unary{Pos: irPos(t.Pos), Op: op, X: x}
	ir.TrimNeededParens(u)
	return u, nil
}

func isNumber(t *lexer.Token) bool {
	return t.Type == tokInt || t.Type == tokFloat || t.Type == tokKeyword && (t.Value == "inf" || t.Value == "nan")
}

// literal consumes a number; neg asks for its negation (which lets -9223372036854775808 through).
func (p *exprParser) literal(neg bool) (*ir.Lit, error) {
	t := *p.lex.Next()
	lit := &ir.Lit{Pos: irPos(t.Pos), Text: t.Value}
	switch {
	case t.Value == "inf":
		lit.Val = ir.FloatVal(math.Inf(1))
	case t.Value == "nan":
		lit.Val = ir.FloatVal(math.NaN())
	case t.Type == tokFloat:
		f, err := strconv.ParseFloat(t.Value, 64)
		if err != nil {
			return nil, participle.Errorf(t.Pos, "float constant %s overflows", t.Value)
		}
		lit.Val = ir.FloatVal(f)
	default:
		var u uint64
		var err error
		if strings.HasPrefix(t.Value, "0x") || strings.HasPrefix(t.Value, "0X") {
			u, err = strconv.ParseUint(t.Value[2:], 16, 64)
		} else {
			u, err = strconv.ParseUint(t.Value, 10, 64)
		}
		switch {
		case err == nil && u <= math.MaxInt64:
			lit.Val = ir.IntVal(int64(u))
		case err == nil && neg && u == 1<<63:
			lit.Val = ir.IntVal(math.MinInt64)
			lit.Text = "-" + t.Value
			return lit, nil
		default:
			return nil, participle.Errorf(t.Pos, "integer constant %s overflows", t.Value)
		}
	}
	if neg {
		negate(lit)
		lit.Text = "-" + t.Value
	}
	return lit, nil
}

func negate(l *ir.Lit) {
	switch l.Val.Kind {
	case ir.IntValue:
		l.Val.Int = -l.Val.Int
	case ir.FloatValue:
		l.Val.Float = -l.Val.Float
	}
}

func (p *exprParser) postfix() (ir.Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfixOf(x)
}

// postfixOf applies [index] and .swizzle suffixes to x.
func (p *exprParser) postfixOf(x ir.Expr) (ir.Expr, error) {
	for {
		t := *p.lex.Peek()
		switch {
		case t.Type == tokPunct && t.Value == "[":
			p.lex.Next()
			i, err := p.expr("an index expression")
			if err != nil {
				return nil, err
			}
			if err := p.expect("]", `"]"`); err != nil {
				return nil, err
			}
			x = &ir.Index{Pos: irPos(t.Pos), X: x, Index: i}
			ir.TrimNeededParens(x)
		case t.Type == tokPunct && t.Value == ".":
			p.lex.Next()
			c := *p.lex.Peek()
			if c.Type != tokIdent {
				return nil, unexpected(&c, "a field name or vector components such as .x or .xyz after \".\"")
			}
			p.lex.Next()
			// A name that is no swizzle is a field: of a struct, or
			// old_value/exchanged of an atomicCompareExchangeWeak result
			// (Check reports a name that is no field).
			if !validSwizzle(c.Value) {
				x = &ir.Field{Pos: irPos(t.Pos), X: x, Name: c.Value}
			} else {
				x = &ir.Swizzle{Pos: irPos(t.Pos), X: x, Comps: c.Value}
			}
			ir.TrimNeededParens(x)
		default:
			return x, nil
		}
	}
}

func validSwizzle(s string) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("xyzw", rune(s[i])) {
			return false
		}
	}
	return true
}

// expr parses a full expression where one is required.
func (p *exprParser) expr(what string) (ir.Expr, error) {
	if !startsExpr(p.lex.Peek()) {
		return nil, unexpected(p.lex.Peek(), what)
	}
	return p.binary(1)
}

func (p *exprParser) primary() (ir.Expr, error) {
	t := *p.lex.Peek()
	switch t.Type {
	case tokInt, tokFloat:
		return p.literal(false)
	case tokKeyword:
		switch t.Value {
		case "true", "false":
			p.lex.Next()
			return &ir.Lit{Pos: irPos(t.Pos), Val: ir.BoolVal(t.Value == "true")}, nil
		case "inf", "nan":
			return p.literal(false)
		}
	case tokPunct:
		if t.Value == "(" {
			p.lex.Next()
			x, err := p.expr("an expression after \"(\"")
			if err != nil {
				return nil, err
			}
			if err := p.expect(")", `")"`); err != nil {
				return nil, err
			}
			// kept by kc fmt unless precedence needs them anyway
			// (trimmed by the operator that takes x as an operand)
			ir.AddParen(x)
			return x, nil
		}
		if t.Value == "[" {
			return p.arrayLit()
		}
	case tokIdent:
		return p.name()
	}
	return nil, unexpected(&t, "an expression")
}

// name parses what starts with a name: a call, a conversion, a vector
// constructor, bitcast, len, a builtin value or a plain identifier.
func (p *exprParser) name() (ir.Expr, error) {
	t := *p.lex.Next()
	pos := irPos(t.Pos)
	name := t.Value
	if vecWidth(name) > 0 {
		return p.construct(t)
	}
	if name == "bitcast" {
		return p.bitcast(t)
	}
	if isCoopName(name) {
		return p.coopName(t)
	}
	if s := p.structs[name]; s != nil {
		if !p.is("{") {
			return nil, unexpected(p.lex.Peek(), `"{": `+name+" is a struct type, its values are written "+name+"{field: value, ...}")
		}
		return p.structLit(t, s)
	}
	if !p.is("(") {
		if b, ok := ir.BuiltinByName(name); ok {
			return &ir.BuiltinValue{Pos: pos, Kind: b}, nil
		}
		if name == "atomic" {
			return nil, participle.Errorf(t.Pos, "%s is a type, not a value", name)
		}
		return &ir.Ident{Pos: pos, Name: name}, nil
	}
	switch name {
	case "workgroupBarrier", "storageBarrier":
		return nil, participle.Errorf(t.Pos, "%s() is a statement and has no value", name)
	}
	args, err := p.args(name)
	if err != nil {
		return nil, err
	}
	if s, ok := ir.ScalarByName(name); ok {
		if len(args) != 1 {
			return nil, participle.Errorf(t.Pos, "conversion to %s takes one argument, not %d", name, len(args))
		}
		return &ir.Convert{Pos: pos, To: s, X: args[0]}, nil
	}
	if name == "len" {
		if len(args) != 1 {
			return nil, participle.Errorf(t.Pos, "len takes one buffer, not %d arguments", len(args))
		}
		id, ok := args[0].(*ir.Ident)
		if !ok {
			return nil, participle.Errorf(t.Pos, "len takes the name of a buffer, as in len(x)")
		}
		return &ir.Len{Pos: pos, Buf: id}, nil
	}
	if f, ok := ir.IntrinsicByName(name); ok {
		return &ir.Call{Pos: pos, Func: f, Args: args}, nil
	}
	// A helper function; Check resolves the name.
	return &ir.FnCall{Pos: pos, Name: name, Args: args}, nil
}

func vecWidth(name string) int {
	switch name {
	case "vec2":
		return 2
	case "vec3":
		return 3
	case "vec4":
		return 4
	}
	return 0
}

// args parses "(" [expr {"," expr} [","]] ")".
func (p *exprParser) args(fn string) ([]ir.Expr, error) {
	if err := p.expect("(", `"("`); err != nil {
		return nil, err
	}
	var out []ir.Expr
	for !p.is(")") {
		a, err := p.expr("an argument of " + fn + " or \")\"")
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		if p.is(",") {
			p.lex.Next()
			continue
		}
		if !p.is(")") {
			return nil, unexpected(p.lex.Peek(), `"," or ")" in the arguments of `+fn)
		}
	}
	p.lex.Next()
	return out, nil
}

// scalarName consumes a scalar type name.
func (p *exprParser) scalarName(ctx string) (ir.Scalar, error) {
	t := p.lex.Peek()
	if t.Type != tokIdent {
		return 0, unexpected(t, "a scalar type in "+ctx)
	}
	s, ok := ir.ScalarByName(t.Value)
	if !ok {
		return 0, participle.Errorf(t.Pos, "%s is not a scalar type (want bool, i32, u32, f32 or f16) in %s", t.Value, ctx)
	}
	p.lex.Next()
	return s, nil
}

// construct parses vecN<T>(args) after vecN.
func (p *exprParser) construct(t lexer.Token) (ir.Expr, error) {
	n := vecWidth(t.Value)
	if !p.is("<") {
		return nil, unexpected(p.lex.Peek(), `"<" after `+t.Value+`: vectors are written `+t.Value+`<f32>(...)`)
	}
	p.lex.Next()
	elem, err := p.scalarName(t.Value + "<...>")
	if err != nil {
		return nil, err
	}
	if err := p.expect(">", `">" after `+t.Value+"<"+elem.String()); err != nil {
		return nil, err
	}
	vt := ir.Vec(elem, n)
	if !p.is("(") {
		return nil, unexpected(p.lex.Peek(), `"(": `+vt.String()+" is a type, its values are built as "+vt.String()+"(...)")
	}
	args, err := p.args(vt.String())
	if err != nil {
		return nil, err
	}
	return &ir.Construct{Pos: irPos(t.Pos), To: vt, Args: args}, nil
}

// bitcast parses bitcast<T>(x) after bitcast; T is a scalar or a vector, so
// the closing ">>" of bitcast<vec2<u32>> arrives as one token.
func (p *exprParser) bitcast(t lexer.Token) (ir.Expr, error) {
	if err := p.expect("<", `"<" after bitcast, as in bitcast<u32>(x)`); err != nil {
		return nil, err
	}
	var to ir.Type
	nt := p.lex.Peek()
	if nt.Type == tokIdent && vecWidth(nt.Value) > 0 {
		n := vecWidth(nt.Value)
		p.lex.Next()
		if err := p.expect("<", `"<" after `+nt.Value); err != nil {
			return nil, err
		}
		elem, err := p.scalarName("bitcast<" + nt.Value + "<...>>")
		if err != nil {
			return nil, err
		}
		to = ir.Vec(elem, n)
		if p.is(">>") {
			p.lex.Next()
		} else {
			if err := p.expect(">", `">"`); err != nil {
				return nil, err
			}
			if err := p.expect(">", `">"`); err != nil {
				return nil, err
			}
		}
	} else {
		s, err := p.scalarName("bitcast<...>")
		if err != nil {
			return nil, err
		}
		to = s
		if err := p.expect(">", `">" after bitcast<`+s.String()); err != nil {
			return nil, err
		}
	}
	args, err := p.args("bitcast")
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, participle.Errorf(t.Pos, "bitcast takes one argument, not %d", len(args))
	}
	return &ir.Bitcast{Pos: irPos(t.Pos), To: to, X: args[0]}, nil
}
