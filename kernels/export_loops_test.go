package kernels

// FlashLoops is flashLoops: the loop iterations attention.kc's
// invocation runs for s keys of head dimension dh.
var FlashLoops = flashLoops

// LoopBudget is the device's loop budget as the attention ops use it.
func (c *Context) LoopBudget() int { return c.loopBudget() }
