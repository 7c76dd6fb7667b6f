package ir

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Specialize overrides compile-time constants before Check: defs maps a
// constant's name to a literal: an integer in decimal or hex ("64", "-3",
// "0x40"), a float ("1e-5", "0.5") or a bool ("true", "false"). The new
// value is an untyped literal at position "-D"; a constant declared with a
// type keeps it, so Check verifies that the value fits. Naming a constant
// the module does not declare, or giving a malformed literal, is an error
// (an ErrorList, in name order).
func Specialize(m *Module, defs map[string]string) error {
	if m == nil {
		return ErrorList{Errorf(Pos{}, "nil module")}
	}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs ErrorList
	for _, name := range names {
		k := findConst(m, name)
		if k == nil {
			errs = append(errs, Errorf(Pos{}, "no constant %s to define (-D %s=%s)", name, name, defs[name]))
			continue
		}
		if _, isArray := k.Value.(*ArrayLit); isArray {
			errs = append(errs, Errorf(k.Pos, "-D %s=%s: %s is a constant array; -D defines scalar constants", name, defs[name], name))
			continue
		}
		v, ok := parseDefine(defs[name])
		if !ok {
			errs = append(errs, Errorf(Pos{}, "-D %s=%s: invalid value %q (want an integer, a float, true or false)", name, defs[name], defs[name]))
			continue
		}
		k.Value = &Lit{Pos: Pos{File: "-D"}, Val: v}
	}
	return errs.Err()
}

func findConst(m *Module, name string) *Const {
	for _, k := range m.Consts {
		if k != nil && k.Name == name {
			return k
		}
	}
	return nil
}

// parseDefine parses the literal of a -D definition.
func parseDefine(s string) (Value, bool) {
	s = strings.TrimSpace(s)
	switch s {
	case "true":
		return BoolVal(true), true
	case "false":
		return BoolVal(false), true
	case "":
		return Value{}, false
	}
	if v, ok := parseDefineInt(s); ok {
		return v, true
	}
	if !strings.ContainsAny(s, ".eE") || strings.ContainsAny(s, "xX_") {
		return Value{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Value{}, false
	}
	return FloatVal(f), true
}

func parseDefineInt(s string) (Value, bool) {
	digits := strings.TrimPrefix(s, "-")
	base := 10
	if h, ok := strings.CutPrefix(digits, "0x"); ok {
		digits, base = h, 16
	} else if h, ok := strings.CutPrefix(digits, "0X"); ok {
		digits, base = h, 16
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return Value{}, false
	}
	u, err := strconv.ParseUint(digits, base, 63)
	if err != nil {
		return Value{}, false
	}
	if strings.HasPrefix(s, "-") {
		return IntVal(-int64(u)), true
	}
	return IntVal(int64(u)), true
}
