package emit

import (
	"strconv"
	"strings"
)

// Words are what a target's identifiers must avoid: its keywords, reserved
// and predeclared words, and the prefixes it or kc's emitter keeps for
// itself (helpers are named kc_...). Each emitter fills one in; Namer
// applies the same rules for all of them.
type Words struct {
	// Reserved reports whether a name is a word of the target.
	Reserved func(string) bool
	// Prefixes are reserved name prefixes, compared ignoring case (kc_,
	// and for HLSL gl_ and sv_; __ everywhere).
	Prefixes []string
	// Invalid are names the target rejects outright ("_" in WGSL).
	Invalid []string
	// Escape is put before a name that starts with a reserved prefix or is
	// invalid ("x" in WGSL, "u_" in HLSL).
	Escape string
	// ASCII makes the namer spell every other character as _uHEX_ and put
	// "_" before a leading digit, for targets whose identifiers are ASCII.
	ASCII bool
}

// Legal turns a .kc identifier into one the target accepts that cannot
// clash with a word of the target or an emitter's helper: non-ASCII
// characters spelled out (ASCII targets), the escape put before a name with
// a reserved prefix or an invalid one, and a trailing underscore after a
// reserved word. Equal inputs give equal outputs.
func (w *Words) Legal(s string) string {
	if w.ASCII {
		s = asciiName(s)
	}
	if s == "" {
		return w.Escape
	}
	low := strings.ToLower(s)
	for _, p := range w.Prefixes {
		if strings.HasPrefix(low, p) {
			return w.Escape + s
		}
	}
	for _, bad := range w.Invalid {
		if s == bad {
			return w.Escape + s
		}
	}
	if w.Reserved != nil && w.Reserved(s) {
		return s + "_"
	}
	return s
}

func asciiName(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteString("_u" + strconv.FormatInt(int64(r), 16) + "_")
		}
	}
	return b.String()
}

// Namer hands out distinct identifiers within one scope by a target's
// Words; a namer made by Scope also avoids every name its outer namers gave
// out (before or after it was made).
type Namer struct {
	words *Words
	outer *Namer
	used  map[string]bool
}

// NewNamer returns an empty top-level scope.
func NewNamer(w *Words) *Namer { return &Namer{words: w, used: map[string]bool{}} }

// Scope returns an inner scope of n.
func (n *Namer) Scope() *Namer { return &Namer{words: n.words, outer: n, used: map[string]bool{}} }

func (n *Namer) taken(s string) bool {
	for ; n != nil; n = n.outer {
		if n.used[s] {
			return true
		}
	}
	return false
}

// Reserve marks name as used without legalizing it (an emitter's own
// names).
func (n *Namer) Reserve(name string) { n.used[name] = true }

// Name returns Legal(base), or Legal(base) with the smallest suffix _1,
// _2, ... that makes it unused in this scope and the outer ones, and marks
// it used.
func (n *Namer) Name(base string) string { return n.Fresh(n.words.Legal(base)) }

// Fresh is Name without legalizing base: for an emitter's own names
// (kc_t0), which no legalized user name can take.
func (n *Namer) Fresh(base string) string {
	s := base
	for i := 1; n.taken(s); i++ {
		s = base + "_" + strconv.Itoa(i)
	}
	n.used[s] = true
	return s
}
