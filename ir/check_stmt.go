package ir

// Statements: blocks and scopes, declarations, if, for, jumps, barriers and
// calls evaluated for their effect. Assignments are in check_assign.go.

// stmts checks a statement list in the current scope.
func (c *checker) stmts(list []Stmt, pos Pos) {
	for _, s := range list {
		if isNil(s) {
			c.errorf(c.orPos(pos), "nil statement")
			continue
		}
		c.stmt(s)
	}
}

// orPos returns p, or the current position when p is unknown.
func (c *checker) orPos(p Pos) Pos {
	if p == (Pos{}) {
		return c.at
	}
	return p
}

// block checks b in a new scope.
func (c *checker) block(b *Block, owner Pos, what string) {
	if b == nil {
		c.errorf(c.orPos(owner), "%s has no body", what)
		return
	}
	c.openScope()
	c.stmts(b.Stmts, b.Pos)
	c.closeScope()
}

func (c *checker) stmt(s Stmt) {
	defer func(saved Pos) { c.at = saved }(c.at)
	c.at = c.orPos(s.Position())
	switch s := s.(type) {
	case *Comment:
	case *Return:
		c.returnStmt(s)
	case *Switch:
		c.switchStmt(s)
	case *CallStmt:
		if s.Call == nil {
			c.errorf(c.at, "missing call in call statement")
			return
		}
		c.expr(s.Call)
	case *Block:
		c.block(s, s.Pos, "block")
	case *Decl:
		c.decl(s)
	case *Assign:
		c.assign(s)
	case *If:
		c.ifStmt(s)
	case *For:
		c.forStmt(s)
	case *Break:
		c.jump("break")
	case *Continue:
		c.jump("continue")
	case *Barrier:
		if s.Kind != WorkgroupBarrier && s.Kind != StorageBarrier {
			c.errorf(c.at, "invalid barrier kind %d", s.Kind)
		}
	case *ExprStmt:
		c.exprStmt(s)
	case *CoopStore:
		c.coopStore(s)
	default:
		c.errorf(c.at, "unknown statement %T", s)
	}
}

func (c *checker) jump(what string) {
	if c.loopDepth == 0 && (what != "break" || c.switchDepth == 0) {
		c.errorf(c.at, "%s is not in a loop", what)
	}
}

// decl checks a local declaration and declares it after its initializer
// (so `let x = x + 1` refers to an outer x, as in Go).
func (c *checker) decl(d *Decl) {
	d.Ty = nil
	var t Type
	if d.Type != nil {
		t = Invalid
		if c.localType(d.Type, c.at, d.Name) {
			t = d.Type
		}
	}
	switch {
	case d.Init != nil:
		it := c.value(d.Init)
		switch {
		case t != nil:
			c.assignTo(d.Init, it, t, "variable declaration")
		case isUntyped(it):
			t = c.toDefault(d.Init, it)
		default:
			t = it
			if _, isResult := t.(CompareExchangeResult); isResult && d.Mut {
				c.errorf(c.at, "var %s cannot hold the result of atomicCompareExchangeWeak: bind it with let", d.Name)
				t = Invalid
			}
		}
	case !d.Mut:
		c.errorf(c.at, "let %s has no value", d.Name)
	case d.Type == nil:
		c.errorf(c.at, "var %s has no type and no value", d.Name)
	}
	if t == nil {
		t = Invalid
	}
	d.Ty = t
	c.declare(d, c.at, d.Name, "variable")
	if bad(t) {
		d.Ty = nil
	}
}

func (c *checker) exprStmt(s *ExprStmt) {
	if s.Call == nil {
		c.errorf(c.at, "missing call in expression statement")
		return
	}
	t := c.expr(s.Call)
	if bad(t) || t == noValue {
		return
	}
	if s.Call.Func.IsAtomic() && s.Call.Func != AtomicLoad {
		return
	}
	c.errorf(c.at, "%s (value of type %s) is not used", c.text(s.Call), typeText(t))
}

// condition checks an if or for condition: a bool.
func (c *checker) condition(e Expr, what string) {
	t := c.value(e)
	if bad(t) {
		return
	}
	if t != Type(Bool) {
		if isUntyped(t) {
			c.toDefault(e, t)
		}
		c.errorf(posOf(e, c.at), "non-boolean condition in %s statement", what)
	}
}

func (c *checker) ifStmt(s *If) {
	c.condition(s.Cond, "if")
	c.block(s.Then, s.Pos, "if")
	switch e := s.Else.(type) {
	case nil:
	case *Block:
		c.block(e, s.Pos, "else")
	case *If:
		if e == nil {
			c.errorf(c.at, "else has no body")
			return
		}
		c.stmt(e)
	default:
		c.errorf(c.orPos(e.Position()), "else must be followed by a block or an if")
	}
}

// forStmt checks a for statement: its loop variable lives in a scope of
// its own around the body.
func (c *checker) forStmt(s *For) {
	c.openScope()
	defer c.closeScope()
	if s.Init != nil {
		c.forInit(s.Init)
	}
	if s.Cond != nil {
		c.condition(s.Cond, "for")
	}
	if s.Post != nil {
		c.forPost(s)
	}
	c.loopDepth++
	c.block(s.Body, s.Pos, "for")
	c.loopDepth--
}

func (c *checker) forInit(d *Decl) {
	saved := c.at
	c.at = c.orPos(d.Pos)
	if !d.Mut || d.Init == nil || d.Type != nil {
		c.errorf(c.at, "for loop variable %s must be declared as %s := value", d.Name, d.Name)
	}
	c.decl(d)
	c.at = saved
}

func (c *checker) forPost(s *For) {
	saved := c.at
	defer func() { c.at = saved }()
	c.at = c.orPos(s.Post.Pos)
	// Without an init statement (for ; cond; post) the post statement may
	// assign any assignable place; with one, it must update that variable.
	if s.Init != nil {
		if id, ok := s.Post.LHS.(*Ident); !ok || id == nil || id.Name != s.Init.Name {
			c.errorf(c.at, "for post statement must assign the loop variable %s", s.Init.Name)
		}
	}
	c.assign(s.Post)
}
