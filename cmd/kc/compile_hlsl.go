package main

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/ir"
)

// spirvViaHLSL is filled in when the HLSL compiler drivers land.
func spirvViaHLSL(ctx context.Context, m *ir.Module, o compileOptions) ([]uint32, error) {
	return nil, fmt.Errorf("-via hlsl is not available yet")
}
