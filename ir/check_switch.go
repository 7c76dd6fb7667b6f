package ir

// switchStmt checks a switch: an i32 or u32 tag, constant distinct case
// values of the tag's type, at most one default.
func (c *checker) switchStmt(s *Switch) {
	tag := Type(Invalid)
	if s.Tag == nil {
		c.errorf(c.at, "switch has no tag (kc has no tagless switch: use if/else)")
	} else {
		tag = c.value(s.Tag)
		if isUntyped(tag) {
			tag = c.toDefault(s.Tag, tag)
		}
		if !bad(tag) && tag != Type(I32) && tag != Type(U32) {
			c.errorf(posOf(s.Tag, c.at), "switch on %s: the tag must be i32 or u32", c.describe(s.Tag, tag))
			tag = Invalid
		}
	}
	var firstDefault *Case
	seen := map[int64]Pos{}
	for _, k := range s.Cases {
		if k == nil {
			c.errorf(c.at, "nil case in switch")
			continue
		}
		saved := c.at
		c.at = c.orPos(k.Pos)
		k.Vals = nil
		switch {
		case k.Default && len(k.Values) > 0:
			c.errorf(c.at, "a default case has no values")
		case k.Default && firstDefault != nil:
			c.errorf(c.at, "multiple defaults in switch (first at %s)", firstDefault.Pos)
		case k.Default:
			firstDefault = k
		case len(k.Values) == 0:
			c.errorf(c.at, "case has no values")
		}
		for _, v := range k.Values {
			c.caseValue(v, tag, seen, k)
		}
		c.switchDepth++
		c.block(k.Body, k.Pos, "case")
		c.switchDepth--
		c.at = saved
	}
}

// caseValue checks one case value and records it in k.Vals.
func (c *checker) caseValue(v Expr, tag Type, seen map[int64]Pos, k *Case) {
	t := c.value(v)
	if bad(t) {
		return
	}
	if bad(tag) {
		if isUntyped(t) {
			c.toDefault(v, t)
		}
		return
	}
	if isUntyped(t) {
		if t = c.convertUntyped(v, t, tag); bad(t) {
			return
		}
	}
	p := posOf(v, c.at)
	if !c.konst[v] {
		c.errorf(p, "case %s is not constant", c.describe(v, t))
		return
	}
	if !Identical(t, tag) {
		c.errorf(p, "invalid case %s in switch on %s (mismatched types %s and %s)", c.text(v), typeText(tag), typeText(t), typeText(tag))
		return
	}
	val := c.vals[v]
	if prev, dup := seen[val.Int]; dup {
		c.errorf(p, "duplicate case %s in switch (previous case at %s)", c.text(v), prev)
		return
	}
	seen[val.Int] = p
	k.Vals = append(k.Vals, val)
}
