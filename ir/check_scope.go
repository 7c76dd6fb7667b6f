package ir

// Name resolution: module scope (constants), kernel scope (parameters,
// shared variables and the body's top-level locals, as in Go), nested block
// scopes, and a for statement's own scope for its loop variable.

type scope struct {
	parent *scope
	names  map[string]Object // made on the first declaration: most blocks declare nothing
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent}
}

// lookup finds name in s or an enclosing scope.
func (s *scope) lookup(name string) Object {
	for ; s != nil; s = s.parent {
		if o, ok := s.names[name]; ok {
			return o
		}
	}
	return nil
}

// declare adds obj to the innermost scope, reporting a redeclaration in
// the same scope. Shadowing an outer scope's name is allowed.
func (c *checker) declare(obj Object, pos Pos, name, what string) {
	if !c.checkName(pos, name, what) {
		return
	}
	if prev, ok := c.scope.names[name]; ok {
		c.errorf(pos, "%s redeclared in this block%s", name, prevDecl(prev.Position()))
		return
	}
	if c.scope.names == nil {
		c.scope.names = map[string]Object{}
	}
	c.scope.names[name] = obj
}

// openScope and closeScope bracket a nested block.
func (c *checker) openScope()  { c.scope = newScope(c.scope) }
func (c *checker) closeScope() { c.scope = c.scope.parent }

// reserved are the .kc spellings that cannot name a constant, parameter,
// shared variable or local: keywords, type names and builtin values.
var reserved = map[string]bool{
	"const": true, "kernel": true, "enable": true, "let": true, "var": true,
	"shared": true, "if": true, "else": true, "for": true, "break": true,
	"continue": true, "return": true, "true": true, "false": true,
	"len": true, "bitcast": true, "atomic": true,
	"vec2": true, "vec3": true, "vec4": true,
	"bool": true, "i32": true, "u32": true, "f32": true, "f16": true,
	"workgroupBarrier": true, "storageBarrier": true,
	"struct": true, "fn": true, "switch": true, "case": true, "default": true, "precise": true,
}

func init() {
	for b := GlobalID; b < numBuiltins; b++ {
		reserved[b.String()] = true
	}
}

// checkName reports an empty, malformed or reserved name.
func (c *checker) checkName(pos Pos, name, what string) bool {
	switch {
	case name == "":
		c.errorf(pos, "%s has no name", what)
		return false
	case !isIdent(name):
		c.errorf(pos, "invalid %s name %q", what, name)
		return false
	case reserved[name]:
		c.errorf(pos, "cannot use %s as a %s name: it is reserved", name, what)
		return false
	}
	return true
}

// isIdent reports whether s is an ASCII identifier: a letter or _ followed
// by letters, digits and _.
func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		letter := ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
		if !letter && (i == 0 || ch < '0' || ch > '9') {
			return false
		}
	}
	return s != ""
}

// declareConsts builds the module scope from the constants.
func (c *checker) declareConsts() {
	c.top = newScope(nil)
	c.scope = c.top
	for _, k := range c.m.Consts {
		if k == nil {
			c.errorf(c.m.Position(), "nil constant")
			continue
		}
		k.Val, k.Ty = Value{}, nil
		c.declare(k, k.Pos, k.Name, "constant")
	}
	c.scope = nil
}
