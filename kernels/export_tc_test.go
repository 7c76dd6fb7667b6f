package kernels

// DecodeTCApplies reports whether DecodeAttention over a cache of type d
// with these shapes takes the tensor-core kernel (decodetc.go) under c's
// decode tuning.
func DecodeTCApplies(c *Context, d DType, tq, s, heads, kvHeads, dh int) bool {
	return c.splitPart(d, tq, s, heads, kvHeads, dh).isTC
}
