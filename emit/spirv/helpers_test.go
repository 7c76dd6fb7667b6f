package spirv

import "github.com/kcgo/kc/ir"

func toModule(m interface{}) *ir.Module { return m.(*ir.Module) }
