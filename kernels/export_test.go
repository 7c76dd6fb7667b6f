package kernels

// SetPoison makes every output start as NaN bits before its op writes it.
func (c *Context) SetPoison(on bool) { c.poison = on }
