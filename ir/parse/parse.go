// Package parse reads the .kc text form (docs/language.md) into an
// ir.Module.
//
// The lexer is hand-written and inserts Go's automatic semicolons at line
// ends; the statement grammar is a set of participle structs (grammar.go);
// expressions are parsed by precedence climbing (expr.go) plugged into
// participle. Every node gets the position of its first token, except a
// binary expression (its operator), an index (its "[") and a swizzle (its
// "."). Comments are kept where ir.Print can put them back (see
// docs/language.md §1): above a const or kernel they become its Doc, inside
// a block ir.Comment statements (Trailing when they followed code on their
// line, Block for /* */), in a parameter list the parameter's Doc or
// Comment, after a const on its line the const's Comment; those inside an
// expression are dropped. Syntax errors come back as an ir.ErrorList;
// semantic checks are ir.Check's.
package parse

import (
	"bytes"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// File parses one .kc source. filename is used in positions and messages.
// Errors are an ir.ErrorList of file:line:col: message entries.
func File(filename string, src []byte) (*ir.Module, error) {
	// A UTF-8 byte-order mark at the start is ignored, as Go does; columns
	// on the first line count from after it, as an editor shows them.
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if err := checkEncoding(filename, src); err != nil {
		return nil, ir.ErrorList{err}
	}
	toks, lerr := lex(filename, src)
	if lerr != nil {
		return nil, toErrorList(lerr)
	}
	var comments []lexer.Token
	empty := true
	for _, t := range toks {
		switch t.Type {
		case tokComment:
			comments = append(comments, t)
		case tokNewline, lexer.EOF:
		default:
			empty = false
		}
	}
	if empty {
		return nil, ir.ErrorList{ir.Errorf(ir.Pos{File: filename, Line: 1, Col: 1}, "empty file (expected a kernel)")}
	}
	// Each top-level declaration is parsed on its own, so that a syntax
	// error in one kernel does not hide those in the next.
	var errs ir.ErrorList
	ast := &fileAST{}
	structs := structNames(toks)
	ps := getParser()
	ps.structs = structs
	for _, seg := range splitTopLevel(toks) {
		f, err := parseSegment(ps, seg)
		if err != nil {
			errs = append(errs, toErrorList(err)...)
			continue
		}
		ast.Decls = append(ast.Decls, f.Decls...)
	}
	putParser(ps)
	m := &ir.Module{File: filename}
	c := &converter{comments: comments, errs: errs, toks: toks, structs: structs}
	c.file(ast, m)
	if len(c.errs) == 0 && len(m.Kernels) == 0 {
		c.errs = append(c.errs, ir.Errorf(irPos(toks[len(toks)-1].Pos), "no kernel in file"))
	}
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	return m, nil
}

// checkEncoding rejects invalid UTF-8 and NUL bytes anywhere in src.
func checkEncoding(filename string, src []byte) *ir.Error {
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		pos := ir.Pos{File: filename, Line: line, Col: col}
		switch {
		case r == utf8.RuneError && size <= 1:
			return ir.Errorf(pos, "invalid UTF-8 encoding")
		case r == 0:
			return ir.Errorf(pos, "invalid character NUL in source")
		case r == '\n':
			line, col = line+1, 1
		default:
			col += size
		}
		i += size
	}
	return nil
}

// parseSegment runs the grammar over one token segment.
func parseSegment(ps *parser, seg segment) (*fileAST, error) {
	peek, err := lexer.Upgrade(&replay{toks: seg.toks, eof: seg.eof}, tokComment)
	if err != nil {
		return nil, err
	}
	ps.err = nil
	f, err := ps.p.ParseFromLexer(peek)
	if ps.err != nil {
		err = ps.err
	}
	ps.err = nil
	return f, err
}

// topKeyword reports whether a keyword starts a top-level declaration.
func topKeyword(kw string) bool {
	switch kw {
	case "kernel", "const", "enable", "struct", "fn", "precise":
		return true
	}
	return false
}

// structNames finds every `struct Name` in the token list, so that the
// expression parser knows `Name{` as a struct literal wherever the struct is
// declared, and makes the one *ir.Struct each name stands for.
func structNames(toks []lexer.Token) map[string]*ir.Struct {
	var out map[string]*ir.Struct
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].Type != tokKeyword || toks[i].Value != "struct" || toks[i+1].Type != tokIdent {
			continue
		}
		if out == nil {
			out = map[string]*ir.Struct{}
		}
		if out[toks[i+1].Value] == nil {
			out[toks[i+1].Value] = &ir.Struct{Name: toks[i+1].Value}
		}
	}
	return out
}

// segment is a run of tokens and the EOF token that ends it.
type segment struct {
	toks []lexer.Token
	eof  lexer.Token
}

// splitTopLevel cuts the token list before every kernel, const or enable
// keyword that starts a line. Each segment ends with an EOF token; one that
// stops before a declaration carries that keyword, so that an error there
// reads "unexpected keyword kernel" rather than "end of file". The segments
// share toks.
func splitTopLevel(toks []lexer.Token) []segment {
	var segs []segment
	start := 0
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if t.Type != tokKeyword || t.Pos.Column != 1 || !topKeyword(t.Value) {
			continue
		}
		segs = append(segs, segment{toks[start:i:i], lexer.Token{Type: lexer.EOF, Value: t.Value, Pos: t.Pos}})
		start = i
	}
	last := len(toks) - 1 // the EOF
	return append(segs, segment{toks[start:last:last], toks[last]})
}
