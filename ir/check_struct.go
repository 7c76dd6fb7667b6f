package ir

import "fmt"

// Structs, field access, struct and array literals, constant arrays.

// declareStructs checks the struct declarations: names, fields, and that no
// struct contains itself. Field types are checked after the constants
// are declared (array lengths may name them).
func (c *checker) declareStructs() {
	c.structOK = map[*Struct]bool{}
	seen := map[string]*Struct{}
	for _, s := range c.m.Structs {
		if s == nil {
			c.errorf(c.m.Position(), "nil struct")
			continue
		}
		if !c.checkName(s.Pos, s.Name, "struct") {
			continue
		}
		if prev := seen[s.Name]; prev != nil {
			c.errorf(s.Pos, "struct %s redeclared%s", s.Name, prevDecl(prev.Pos))
			continue
		}
		if obj := c.top.lookup(s.Name); obj != nil {
			c.errorf(s.Pos, "%s redeclared in this block%s", s.Name, prevDecl(obj.Position()))
			continue
		}
		seen[s.Name] = s
		c.structOK[s] = true
	}
	for _, s := range c.m.Structs {
		if s != nil && c.structOK[s] && c.structCycle(s, nil) {
			c.structOK[s] = false
		}
	}
}

// structCycle reports whether s contains itself (through fields and arrays),
// reporting it once at s.
func (c *checker) structCycle(s *Struct, path []*Struct) bool {
	for i, p := range path {
		if p == s {
			names := ""
			for _, q := range path[i:] {
				names += q.Name + " contains "
			}
			if i == 0 {
				c.errorf(s.Pos, "invalid recursive type %s: %s%s", s.Name, names, s.Name)
			}
			return true
		}
	}
	path = append(path, s)
	for _, f := range s.Fields {
		if f == nil {
			continue
		}
		t := f.Type
		for {
			a, ok := t.(*Array)
			if !ok || a == nil {
				break
			}
			t = a.Elem
		}
		if inner, ok := t.(*Struct); ok && inner != nil && c.structOK[inner] {
			if c.structCycle(inner, path) {
				return true
			}
		}
	}
	return false
}

// structFields checks each struct's fields once the constants are known.
func (c *checker) structFields() {
	c.scope = c.top // array lengths name module constants
	defer func() { c.scope = nil }()
	for _, s := range c.m.Structs {
		if s == nil || !c.structOK[s] {
			continue
		}
		if len(s.Fields) == 0 {
			c.errorf(s.Pos, "struct %s has no fields", s.Name)
			c.structOK[s] = false
			continue
		}
		names := map[string]*StructField{}
		for _, f := range s.Fields {
			if f == nil {
				c.errorf(s.Pos, "struct %s: nil field", s.Name)
				c.structOK[s] = false
				continue
			}
			if !c.checkName(c.orPos(f.Pos), f.Name, "field") {
				c.structOK[s] = false
				continue
			}
			if prev := names[f.Name]; prev != nil {
				c.errorf(c.orPos(f.Pos), "duplicate field %s in struct %s%s", f.Name, s.Name, prevDecl(prev.Pos))
				c.structOK[s] = false
				continue
			}
			names[f.Name] = f
			if IsCoopMat(f.Type) {
				c.errorf(c.orPos(f.Pos), "field %s of struct %s: cooperative matrices cannot be struct fields", f.Name, s.Name)
				c.structOK[s] = false
				continue
			}
			if !c.validType(f.Type, c.orPos(f.Pos)) {
				c.structOK[s] = false
				continue
			}
			if hasAtomic(f.Type) {
				c.errorf(c.orPos(f.Pos), "field %s of struct %s: atomic fields are not supported (use a buffer of atomics)", f.Name, s.Name)
				c.structOK[s] = false
			}
		}
	}
}

// notHostShareable explains why t cannot be a buffer element ("" if it can).
func notHostShareable(t Type) string {
	switch t := t.(type) {
	case *Struct:
		for _, f := range t.Fields {
			if why := notHostShareable(f.Type); why != "" {
				return fmt.Sprintf("field %s of %s: %s", f.Name, t.Name, why)
			}
		}
		return ""
	case *Array:
		return notHostShareable(t.Elem)
	case CoopMat:
		return "a cooperative matrix lives in a subgroup; store it with coopStore to a buffer of its element type"
	}
	if !HostShareable(t) {
		return "bool cannot be stored in a buffer; use u32"
	}
	return ""
}

// field checks x.name on a struct.
func (c *checker) field(e *Field) Type {
	return c.fieldOfType(e, c.value(e.X))
}

// fieldOfType finishes checking e, whose operand has type t.
func (c *checker) fieldOfType(e *Field, t Type) Type {
	e.Ty, e.Index = nil, 0
	if bad(t) {
		return Invalid
	}
	if r, isResult := t.(CompareExchangeResult); isResult {
		return c.resultField(e, r)
	}
	s, ok := t.(*Struct)
	if !ok {
		c.errorf(c.at, "%s.%s undefined (type %s has no field %s)", c.text(e.X), e.Name, typeText(t), e.Name)
		return Invalid
	}
	i := s.FieldIndex(e.Name)
	if i < 0 {
		c.errorf(c.at, "%s.%s undefined (type %s has no field %s)", c.text(e.X), e.Name, s.Name, e.Name)
		return Invalid
	}
	e.Index, e.Ty = i, s.Fields[i].Type
	return e.Ty
}

// structLit checks Name{key: value, ...}.
func (c *checker) structLit(e *StructLit) Type {
	if e.Struct == nil || !c.validType(e.Struct, c.at) {
		c.checkArgs(e.Vals)
		return Invalid
	}
	s := e.Struct
	if len(e.Keys) != len(e.Vals) {
		c.errorf(c.at, "malformed %s literal: %d keys for %d values", s.Name, len(e.Keys), len(e.Vals))
		return Invalid
	}
	ok := true
	seen := map[string]bool{}
	for i, k := range e.Keys {
		v := e.Vals[i]
		j := s.FieldIndex(k)
		switch {
		case j < 0:
			c.expr(v)
			c.errorf(posOf(v, c.at), "unknown field %s in struct literal of type %s", k, s.Name)
			ok = false
		case seen[k]:
			c.expr(v)
			c.errorf(posOf(v, c.at), "duplicate field name %s in struct literal", k)
			ok = false
		default:
			seen[k] = true
			if !c.assignTo(v, c.value(v), s.Fields[j].Type, "struct literal") {
				ok = false
			}
		}
	}
	if !ok {
		return Invalid
	}
	return s
}

// arrayLit checks [N]T{e, ...}: exactly N elements of type T.
func (c *checker) arrayLit(e *ArrayLit) Type {
	if e.Array == nil || !c.validType(e.Array, c.at) {
		c.checkArgs(e.Elems)
		return Invalid
	}
	a := e.Array
	if hasAtomic(a) {
		c.checkArgs(e.Elems)
		c.errorf(c.at, "array literal of atomic type %s", a)
		return Invalid
	}
	ok := true
	for _, el := range e.Elems {
		if !c.assignTo(el, c.value(el), a.Elem, "array literal") {
			ok = false
		}
	}
	if len(e.Elems) != a.Len {
		c.errorf(c.at, "array literal %s has %d elements, want %d", a, len(e.Elems), a.Len)
		return Invalid
	}
	if !ok {
		return Invalid
	}
	return a
}

// constArray checks a constant array: `const W = [3]f32{1, 2, 3}`, every
// element a constant of the element type (arrays of scalars, or of such
// arrays).
func (c *checker) constArray(k *Const, lit *ArrayLit) {
	if k.Type != nil && !c.validType(k.Type, k.Pos) {
		c.expr(lit)
		return
	}
	t := c.expr(lit)
	if bad(t) {
		return
	}
	if k.Type != nil && !Identical(k.Type, t) {
		c.errorf(posOf(lit, k.Pos), "cannot use %s as %s value in constant declaration", c.describe(lit, t), typeText(k.Type))
		return
	}
	var vals []Value
	if !c.constElems(lit, &vals) {
		return
	}
	k.Ty, k.Elems = t, vals
}

// constElems flattens the constant elements of lit into vals.
func (c *checker) constElems(lit *ArrayLit, vals *[]Value) bool {
	if _, ok := lit.Array.Elem.(Scalar); !ok {
		if _, ok := lit.Array.Elem.(*Array); !ok {
			c.errorf(posOf(lit, c.at), "constant arrays hold scalars or arrays of them, not %s", typeText(lit.Array.Elem))
			return false
		}
	}
	for _, el := range lit.Elems {
		if inner, ok := el.(*ArrayLit); ok {
			if !c.constElems(inner, vals) {
				return false
			}
			continue
		}
		v, ok := c.vals[el]
		if !ok || !c.konst[el] {
			c.errorf(posOf(el, c.at), "%s is not constant", c.describe(el, el.Type()))
			return false
		}
		*vals = append(*vals, v)
	}
	return true
}

// rewriteFields replaces, under b, each Swizzle that Check found applied to
// a struct with the Field it stands for.
func (c *checker) rewriteFields(n Node) {
	if len(c.fieldOf) == 0 {
		return
	}
	replaceExprs(n, func(e Expr) Expr {
		if s, ok := e.(*Swizzle); ok {
			if f := c.fieldOf[s]; f != nil {
				return f
			}
		}
		return e
	})
}
