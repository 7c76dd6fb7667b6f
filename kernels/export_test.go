package kernels

// SetPoison makes every output start as NaN bits before its op writes it.
func (c *Context) SetPoison(on bool) { c.poison = on }

// SetMaxGroups replaces the device's limit of workgroups per grid
// dimension (0: the device's own).
func (c *Context) SetMaxGroups(n int) { c.maxGroups = n }

// SetRowsLooped makes the row ops use the looping kernels (rows.kc) at
// every row length.
func (c *Context) SetRowsLooped(on bool) { c.rowsLooped = on }

// SetDecodeChunk fixes decode4.kc's chunk length (0: the default choice).
func (c *Context) SetDecodeChunk(n int) { c.decodeChunk = n }

// SetGEMV fixes gemv.kc's team size and rows per team (0: the default).
func (c *Context) SetGEMV(team, r int) { c.gemvTeam, c.gemvR = team, r }

// SetNoGEMV sends every 16-bit product past gemv.kc and gemvt.kc.
func (c *Context) SetNoGEMV(on bool) { c.noGEMV = on }

// SetGEMVTSlices fixes gemvt.kc's slices of k (0: the default).
func (c *Context) SetGEMVTSlices(n int) { c.gemvtSlices = n }
