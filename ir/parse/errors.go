package parse

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// unexpected reports token t where what was expected.
func unexpected(t *lexer.Token, what string) error {
	return participle.Errorf(t.Pos, "unexpected %s (expected %s)", describe(t), what)
}

// describe names a token the way a Go programmer reads it.
func describe(t *lexer.Token) string {
	switch t.Type {
	case lexer.EOF:
		if t.Value != "" {
			// The end of a top-level segment (see splitTopLevel).
			return "keyword " + t.Value
		}
		return "end of file"
	case tokNewline:
		// Inserted at a line end; an explicit ";" is punctuation.
		return "newline"
	case tokIdent:
		return "name " + t.Value
	case tokKeyword, tokDeclKw:
		return "keyword " + t.Value
	case tokInt, tokFloat:
		return "number " + t.Value
	}
	return fmt.Sprintf("%q", t.Value)
}

// participle's expectations are EBNF fragments; these are the plain words.
var expectWords = []struct {
	re   *regexp.Regexp
	text string
}{
	{regexp.MustCompile(`(?i)^<ident>`), "a name"},
	{regexp.MustCompile(`(?i)^"enable"|^topAST`), `"kernel", "const" or "enable"`},
	{regexp.MustCompile(`(?i)^itemAST|^stmtAST|^"}"`), `a statement or "}"`},
	{regexp.MustCompile(`(?i)^typeAST|^namedTypeAST|^arrayTypeAST|^"\["`), "a type"},
	{regexp.MustCompile(`(?i)^exprNode`), "an expression"},
	{regexp.MustCompile(`(?i)^paramAST`), `a parameter or ")"`},
	{regexp.MustCompile(`(?i)^blockAST|^"{"|^ifAST`), `"{"`},
	{regexp.MustCompile(`(?i)^";"`), "newline or \";\""},
	{regexp.MustCompile(`(?i)^("[^"]+")`), "$1"},
}

func expectText(e string) string {
	for _, w := range expectWords {
		if w.re.MatchString(e) {
			loc := w.re.FindStringSubmatchIndex(e)
			return string(w.re.ExpandString(nil, w.text, e, loc))
		}
	}
	return e
}

// toErrorList converts a lexer or participle error into an ir.ErrorList.
func toErrorList(err error) ir.ErrorList {
	var le *lexError
	if errors.As(err, &le) {
		return ir.ErrorList{{Pos: irPos(le.pos), Msg: le.msg}}
	}
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		msg := "unexpected " + describe(&ute.Unexpected)
		exp := ute.Expect
		if exp == "" {
			// The message carries the expectation computed from the grammar.
			if _, rest, ok := strings.Cut(ute.Message(), " (expected "); ok {
				exp = strings.TrimSuffix(rest, ")")
			}
		}
		switch {
		case ute.Unexpected.Type == tokKeyword && ute.Unexpected.Value == "else":
			msg += " (else goes on the same line as the closing \"}\" of the if)"
		case exp != "":
			msg += " (expected " + expectText(exp) + ")"
		case ute.Unexpected.Type == lexer.EOF && ute.Unexpected.Value == "":
			msg += " (expected \"}\")"
		default:
			// Only the top level stops without an expectation.
			msg += ` (expected "kernel", "const" or "enable")`
		}
		return ir.ErrorList{{Pos: irPos(ute.Unexpected.Pos), Msg: msg}}
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		return ir.ErrorList{{Pos: irPos(pe.Position()), Msg: pe.Message()}}
	}
	return ir.ErrorList{{Msg: err.Error()}}
}
