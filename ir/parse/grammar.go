package parse

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// The grammar, one production per struct (participle). Newline tokens are
// the semicolons the lexer inserts at line ends; expressions are parsed by
// the hand-written precedence climber in expr.go (exprNode).
//
// participle records a Pos field on every attempt at a production, matched or
// not, and builds the production's struct before it fails: the keyword that
// selects a statement is matched in itemAST, before its production is tried,
// and the productions that always start where their statement does (declAST,
// forAST, ifAST, sharedAST) or with an expression (simpleAST, whose exprNode
// has the position) have no Pos: the converter takes it from there.

type fileAST struct {
	Pos   lexer.Position
	Decls []*topItemAST `parser:"@@*"`
}

// topItemAST is a declaration and its terminator (see itemAST).
type topItemAST struct {
	Pos  lexer.Position
	Decl *topAST `parser:"@@"`
	Semi bool    `parser:"@';'?"`
}

type topAST struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Enable  *enableAST `parser:"  @@"`
	Const   *constAST  `parser:"| @@"`
	Struct  *structAST `parser:"| @@"`
	Precise bool       `parser:"| ( @'precise'?"`
	Func    *funcAST   `parser:"    ( @@"`
	Kernel  *kernelAST `parser:"    | @@ ) )"`
}

// structAST is `struct Name { field T ... }`, one field per line (or ";").
type structAST struct {
	Pos    lexer.Position
	Name   string      `parser:"'struct' @Ident '{' ';'?"`
	Fields []*fieldAST `parser:"( @@ ';'? )* '}'"`
}

type fieldAST struct {
	Pos  lexer.Position
	Name string   `parser:"@Ident"`
	Type *typeAST `parser:"@@"`
}

// funcAST is `fn name(params) T { ... }` after an optional precise.
type funcAST struct {
	Pos    lexer.Position
	Name   string      `parser:"'fn' @Ident"`
	Params []*paramAST `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
	Result *typeAST    `parser:"@@?"`
	Body   *blockAST   `parser:"@@"`
}

// switchAST is a switch statement after its "switch".
type switchAST struct {
	Tag   exprNode   `parser:"@@? '{' ';'?"`
	Cases []*caseAST `parser:"@@* '}'"`
}

// caseAST is one clause: "case v, w:" or "default:" and its statements.
type caseAST struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Default bool       `parser:"( @'default'"`
	Values  []exprNode `parser:"| 'case' @@ ( ',' @@ )* ) ':' ';'?"`
	Items   []*itemAST `parser:"@@*"`
}

type enableAST struct {
	Pos  lexer.Position
	Name string `parser:"'enable' @Ident"`
}

type constAST struct {
	Pos   lexer.Position
	Name  string   `parser:"'const' @Ident"`
	Type  *typeAST `parser:"@@?"`
	Eq    *eqAST   `parser:"@@"`
	Value exprNode `parser:"@@?"`
}

type kernelAST struct {
	Pos       lexer.Position
	Name      string      `parser:"'kernel' @Ident"`
	Params    []*paramAST `parser:"'(' ( @@ ( ',' @@ )* ','? )? ')'"`
	Workgroup []exprNode  `parser:"'workgroup' '(' @@ ( ',' @@ )* ','? ')'"`
	Body      *blockAST   `parser:"@@"`
}

// paramAST is a scalar parameter "name T" or a buffer "name access []T";
// the buffer's []T is an arrayTypeAST without a length.
type paramAST struct {
	Pos    lexer.Position
	Name   string   `parser:"@Ident"`
	Access string   `parser:"@( 'read' | 'read_write' | 'shared' )?"`
	Type   *typeAST `parser:"@@"`
}

// typeAST is [N]T, []T (Len nil, in a buffer parameter), a name with
// optional <T, ...> arguments, or an integer (an argument of coopmat<f16,
// 16, 16, a>). One flat production: a type is tried at every declaration,
// and a flat one fails on its first token without building nested nodes.
type typeAST struct {
	Pos   lexer.Position
	Array bool       `parser:"( @'['"`
	Len   exprNode   `parser:"  @@? ']'"`
	Elem  *typeAST   `parser:"  @@"`
	Name  string     `parser:"| @(Ident | 'workgroup')"` // workgroup: a matrix scope
	Arg   *typeAST   `parser:"  ( '<' @@"`
	More  []*typeAST `parser:"    ( ',' @@ )* '>' )?"`
	Num   string     `parser:"| @Int )"`
}

type blockAST struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Items  []*itemAST `parser:"'{' @@* '}'"`
}

// itemAST is a statement and its optional terminator, which is not captured
// (a capture costs several allocations in participle): the converter finds
// a missing ";" between two statements in the token list (semiBefore). The alternatives all start with distinct tokens;
// the most frequent come first, so that a statement fails fewer of them.
type itemAST struct {
	Pos      lexer.Position
	EndPos   lexer.Position
	Decl     *declAST   `parser:"( DeclKw @@"`
	For      *forAST    `parser:"| 'for' @@"`
	If       *ifAST     `parser:"| 'if' @@"`
	Simple   *simpleAST `parser:"| @@"`
	Shared   *sharedAST `parser:"| 'shared' @@"`
	Switch   *switchAST `parser:"| 'switch' @@"`
	Break    bool       `parser:"| @'break'"`
	Continue bool       `parser:"| @'continue'"`
	Return   bool       `parser:"| @'return'"`
	RetVal   exprNode   `parser:"  @@?"`
	Block    *blockAST  `parser:"| @@ )"`
	Semi     struct{}   `parser:"';'?"`
}

// sharedAST is a shared declaration after its "shared".
type sharedAST struct {
	Name string   `parser:"@Ident"`
	Type *typeAST `parser:"@@"`
}

// declAST is a name, and a type, a value or both, after let or var. The two
// forms after the name start with distinct tokens ("=" or a type), so that a
// declaration without a type does not try to parse one first. The keyword,
// the name and an "=" right after it are not captured (each capture costs
// participle several allocations): the converter reads them from the tokens.
type declAST struct {
	Name  struct{}     `parser:"Ident"`
	Init  exprNode     `parser:"( '=' @@?"`
	Type  *typeAST     `parser:"| @@"`
	TEq   *lexer.Token `parser:"  ( @'='"`
	TInit exprNode     `parser:"    @@? )? )?"`
}

// ifAST is an if statement after its "if"; ElseIf is the "if" of an else if.
type ifAST struct {
	Cond     exprNode     `parser:"@@?"`
	Then     *blockAST    `parser:"@@"`
	ElseIf   *lexer.Token `parser:"( 'else' ( @'if'"`
	ElseIfSt *ifAST       `parser:"  @@"`
	Else     *blockAST    `parser:"| @@ ) )?"`
}

// forAST is a for statement after its "for".
type forAST struct {
	First  *simpleAST  `parser:"@@?"`
	Clause *forRestAST `parser:"@@?"`
	Body   *blockAST   `parser:"@@"`
}

// forRestAST is "; cond; post" after an optional init statement.
type forRestAST struct {
	Pos  lexer.Position
	Cond exprNode   `parser:"';' @@? ';'"`
	Post *simpleAST `parser:"@@?"`
}

// simpleAST is an expression statement, an assignment, x := e, x++ or x--.
type simpleAST struct {
	LHS exprNode     `parser:"@@"`
	Op  *lexer.Token `parser:"( @Assign"`
	RHS exprNode     `parser:"  @@?"`
	Inc *lexer.Token `parser:"| @Inc )?"`
}

// eqAST is the "=" of a const declaration; the value after it is optional in
// the grammar so that its absence is reported at the right place. (It is a
// production of its own for the sake of the syntax error after "const X".)
type eqAST struct {
	Pos lexer.Position
	Eq  string `parser:"@'='"`
}

// parser is one built grammar with the sink its expression hook reports to.
// participle takes an expression error inside an optional group for "no
// match" and reports a later, less helpful token; every error of the
// expression parser is a real syntax error, so the first one is kept here.
type parser struct {
	p       *participle.Parser[fileAST]
	err     error
	structs map[string]*ir.Struct // the file's struct names (struct literals)
}

func newParser() *parser {
	ps := &parser{}
	ps.p = participle.MustBuild[fileAST](
		participle.Lexer(definition{}),
		participle.Elide("Comment"),
		participle.ParseTypeWith(func(lex *lexer.PeekingLexer) (exprNode, error) {
			n, err := parseExprNode(lex, ps.structs)
			if err != nil && err != participle.NextMatch && ps.err == nil {
				ps.err = err
			}
			return n, err
		}),
		participle.UseLookahead(1),
	)
	return ps
}

// parsers keeps built grammars for reuse: building one costs more than a
// parse, and a parser with its sink serves one parse at a time. Unlike a
// sync.Pool, the channel survives garbage collections.
var parsers = make(chan *parser, 8)

func getParser() *parser {
	select {
	case ps := <-parsers:
		return ps
	default:
		return newParser()
	}
}

func putParser(ps *parser) {
	ps.err, ps.structs = nil, nil
	select {
	case parsers <- ps:
	default:
	}
}
