package parse

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the .kc lexer.
const (
	tokIdent   lexer.TokenType = -(iota + 2) // names
	tokKeyword                               // reserved words
	tokInt                                   // 12, 0xff
	tokFloat                                 // 1.0, 1e-5, .5
	tokPunct                                 // operators and delimiters
	tokNewline                               // ";" inserted at the end of a line, as in Go
	tokComment                               // a // line comment (elided from the grammar)
	tokAssign                                // = := += -= ... (one token type: one grammar reference)
	tokInc                                   // ++ --
	tokDeclKw                                // the keywords let and var
)

// keyword returns the reserved word spelled by b as a shared string, so that
// a keyword token's value is not a copy of the source bytes. (A switch: the
// compiler turns it into a search without converting b.)
func keyword(b []byte) (string, bool) {
	switch string(b) {
	case "kernel":
		return "kernel", true
	case "const":
		return "const", true
	case "enable":
		return "enable", true
	case "let":
		return "let", true
	case "var":
		return "var", true
	case "shared":
		return "shared", true
	case "if":
		return "if", true
	case "else":
		return "else", true
	case "for":
		return "for", true
	case "break":
		return "break", true
	case "continue":
		return "continue", true
	case "return":
		return "return", true
	case "workgroup":
		return "workgroup", true
	case "read":
		return "read", true
	case "read_write":
		return "read_write", true
	case "true":
		return "true", true
	case "false":
		return "false", true
	case "inf":
		return "inf", true
	case "nan":
		return "nan", true
	case "struct":
		return "struct", true
	case "fn":
		return "fn", true
	case "switch":
		return "switch", true
	case "case":
		return "case", true
	case "default":
		return "default", true
	case "precise":
		return "precise", true
	}
	return "", false
}

// puncts lists the operators, longest first within each leading byte.
var puncts = []string{
	"<<=", ">>=",
	"&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", "++", "--", ":=",
	"+", "-", "*", "/", "%", "&", "|", "^", "!", "<", ">", "=", "(", ")",
	"[", "]", "{", "}", ",", ";", ".", ":",
}

// punctsByByte lists puncts by their first byte, longest first.
var punctsByByte = func() (t [256][]string) {
	for _, p := range puncts {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// definition is the participle lexer definition. Lexing happens up front in
// lex (so that its errors carry positions); Lex replays a token list.
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType {
	// Built on each call: the grammar is built during package
	// initialization, possibly before package-level maps are.
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Ident": tokIdent, "Keyword": tokKeyword, "Int": tokInt,
		"Float": tokFloat, "Punct": tokPunct, "Newline": tokNewline, "Comment": tokComment,
		"Assign": tokAssign, "Inc": tokInc, "DeclKw": tokDeclKw,
	}
}

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, lerr := lex(filename, src)
	if lerr != nil {
		return nil, lerr
	}
	last := len(toks) - 1 // the EOF
	return &replay{toks: toks[:last], eof: toks[last]}, nil
}

// replay hands out a prepared token list, then its EOF token.
type replay struct {
	toks []lexer.Token
	eof  lexer.Token
	i    int
}

func (r *replay) Next() (lexer.Token, error) {
	if r.i >= len(r.toks) {
		return r.eof, nil
	}
	t := r.toks[r.i]
	r.i++
	return t, nil
}

// scanner turns source bytes into tokens, inserting a newline token (";")
// where Go would insert a semicolon: at the end of a line whose last token is
// a name, a literal, a keyword, ) ] } > ++ or --, unless inside ( ) or [ ].
type scanner struct {
	file  string
	src   []byte
	off   int
	line  int
	col   int
	toks  []lexer.Token
	depth int // open ( and [ since the last { or }
	nest  int // open ( [ and {
}

// maxNesting bounds bracket nesting, so that the recursive descent stays
// far from Go's stack limit on hostile input.
const maxNesting = 200

// lex tokenizes src. The last token is EOF.
func lex(file string, src []byte) ([]lexer.Token, *lexError) {
	// About one token per three or four bytes of typical source.
	s := &scanner{file: file, src: src, line: 1, col: 1, toks: make([]lexer.Token, 0, len(src)/3+8)}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.toks, nil
}

// lexError is a positioned lexical error.
type lexError struct {
	pos lexer.Position
	msg string
}

func (e *lexError) Error() string { return fmt.Sprintf("%s: %s", e.pos, e.msg) }

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.file, Offset: s.off, Line: s.line, Column: s.col}
}

// advance moves over n bytes that contain no newline.
func (s *scanner) advance(n int) {
	s.off += n
	s.col += n
}

func (s *scanner) newline() {
	s.off++
	s.line++
	s.col = 1
}

func (s *scanner) emit(typ lexer.TokenType, val string, pos lexer.Position) {
	s.toks = append(s.toks, lexer.Token{Type: typ, Value: val, Pos: pos})
}

// needSemi reports whether a line break after the last real token ends a statement.
func (s *scanner) needSemi() bool {
	if s.depth > 0 {
		return false
	}
	for i := len(s.toks) - 1; i >= 0; i-- {
		t := s.toks[i]
		switch t.Type {
		case tokComment:
			continue
		case tokIdent, tokKeyword, tokDeclKw, tokInt, tokFloat:
			return true
		case tokInc:
			return true
		case tokPunct:
			switch t.Value {
			case ")", "]", "}", ">":
				return true
			}
		}
		return false
	}
	return false
}

func (s *scanner) semi(pos lexer.Position) {
	if s.needSemi() {
		s.emit(tokNewline, ";", pos)
	}
}

func (s *scanner) errorf(pos lexer.Position, format string, args ...any) *lexError {
	return &lexError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) run() *lexError {
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '\n':
			s.semi(s.pos())
			s.newline()
		case c == ' ' || c == '\t' || c == '\r':
			s.advance(1)
		case c == '/' && s.peek(1) == '/':
			s.lineComment()
		case c == '/' && s.peek(1) == '*':
			if err := s.blockComment(); err != nil {
				return err
			}
		case isLetter(c):
			s.ident()
		case isDigit(c) || c == '.' && isDigit(s.peek(1)):
			if err := s.number(); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.src[s.off:])
			if r == utf8.RuneError && size <= 1 {
				return s.errorf(s.pos(), "invalid UTF-8 encoding")
			}
			return s.errorf(s.pos(), "invalid character %U %q in source (names are ASCII)", r, r)
		default:
			if err := s.punct(); err != nil {
				return err
			}
		}
	}
	s.semi(s.pos())
	s.emit(lexer.EOF, "", s.pos())
	return nil
}

func (s *scanner) peek(n int) byte {
	if s.off+n < len(s.src) {
		return s.src[s.off+n]
	}
	return 0
}

func (s *scanner) lineComment() {
	pos := s.pos()
	end := s.off
	for end < len(s.src) && s.src[end] != '\n' {
		end++
	}
	// The value keeps its "//": participle lets a grammar literal match an
	// elided token, so a comment reading "}" must not look like one.
	text := string(s.src[s.off:end])
	// A line comment ends the line: the inserted ";" goes before it.
	s.semi(pos)
	s.emit(tokComment, text, pos)
	s.advance(end - s.off)
}

func (s *scanner) blockComment() *lexError {
	pos := s.pos()
	start := s.off
	s.advance(2)
	multiline := false
	for {
		if s.off >= len(s.src) {
			return s.errorf(pos, "unterminated comment")
		}
		c := s.src[s.off]
		switch {
		case c == '*' && s.peek(1) == '/':
			if multiline {
				// A comment spanning lines acts like a newline.
				s.semi(pos)
			}
			s.emit(tokComment, string(s.src[start:s.off+2]), pos)
			s.advance(2)
			return nil
		case c == '\n':
			multiline = true
			s.newline()
		default:
			s.advance(1)
		}
	}
}

func (s *scanner) ident() {
	pos := s.pos()
	end := s.off
	for end < len(s.src) && (isLetter(s.src[end]) || isDigit(s.src[end])) {
		end++
	}
	typ := tokIdent
	word, ok := keyword(s.src[s.off:end])
	switch {
	case !ok:
		word = string(s.src[s.off:end])
	case word == "let" || word == "var":
		typ = tokDeclKw
	default:
		typ = tokKeyword
	}
	s.emit(typ, word, pos)
	s.advance(end - s.off)
}

// number scans 12, 0xff, 1.5, .5, 1e-5, 2.5E+06. A '.' must be followed by a
// digit, so that 1.x is the swizzle of 1.
func (s *scanner) number() *lexError {
	pos := s.pos()
	i := s.off
	src := s.src
	if src[i] == '0' && (s.peek(1) == 'x' || s.peek(1) == 'X') {
		i += 2
		start := i
		for i < len(src) && isHex(src[i]) {
			i++
		}
		if i == start {
			return s.errorf(pos, "hexadecimal literal %s has no digits", string(src[s.off:i]))
		}
		if i < len(src) && (isLetter(src[i]) || src[i] == '.') {
			return s.errorf(pos, "invalid hexadecimal literal %s", string(src[s.off:i+1]))
		}
		s.emit(tokInt, string(src[s.off:i]), pos)
		s.advance(i - s.off)
		return nil
	}
	typ := tokInt
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
		typ = tokFloat
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j >= len(src) || !isDigit(src[j]) {
			return s.errorf(pos, "exponent of %s has no digits", string(src[s.off:j]))
		}
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		typ = tokFloat
		i = j
	}
	if i < len(src) && (isLetter(src[i]) || isDigit(src[i])) {
		return s.errorf(pos, "invalid number literal %s", string(src[s.off:i+1]))
	}
	text := string(src[s.off:i])
	if typ == tokInt && len(text) > 1 && text[0] == '0' {
		return s.errorf(pos, "invalid integer literal %s: leading zeros are not allowed", text)
	}
	s.emit(typ, text, pos)
	s.advance(i - s.off)
	return nil
}

func (s *scanner) punct() *lexError {
	pos := s.pos()
	for _, p := range punctsByByte[s.src[s.off]] {
		if s.off+len(p) <= len(s.src) && string(s.src[s.off:s.off+len(p)]) == p {
			switch p {
			case "(", "[", "{":
				s.nest++
				if s.nest > maxNesting {
					return s.errorf(pos, "brackets nested too deeply (more than %d levels)", maxNesting)
				}
			case ")", "]", "}":
				if s.nest > 0 {
					s.nest--
				}
			}
			switch p {
			case "(", "[":
				s.depth++
			case ")", "]":
				if s.depth > 0 {
					s.depth--
				}
			case "{", "}":
				s.depth = 0
			}
			s.emit(punctType(p), p, pos)
			s.advance(len(p))
			return nil
		}
	}
	c := s.src[s.off]
	switch {
	case c == 0:
		return s.errorf(pos, "invalid character NUL in source")
	case c < ' ' || c == 0x7f:
		return s.errorf(pos, "invalid control character %U in source", rune(c))
	case c == '"' || c == '\'' || c == '`':
		return s.errorf(pos, "unexpected %c: .kc has no strings or characters", c)
	}
	return s.errorf(pos, "invalid character %q in source", rune(c))
}

func isLetter(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// punctType is the token type of the operator or delimiter p.
func punctType(p string) lexer.TokenType {
	switch p {
	case "=", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=":
		return tokAssign
	case "++", "--":
		return tokInc
	}
	return tokPunct
}
