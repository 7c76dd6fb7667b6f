package spirv

import (
	"context"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

func TestHandBuiltValid(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for name, m := range map[string]func() *Module{
		"guards":    func() *Module { return mustEmit(t, guardKernel(), Options{}) },
		"control":   func() *Module { return mustEmit(t, controlKernel(), Options{}) },
		"control16": func() *Module { return mustEmit(t, controlKernel(), Options{Version: V1_6}) },
	} {
		mod := m()
		if err := mod.Validate(context.Background()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if testing.Verbose() {
			text, _ := mod.Disassemble()
			t.Logf("%s:\n%s", name, text)
		}
	}
}

func mustEmit(t *testing.T, m interface{}, opts Options) *Module {
	t.Helper()
	mod, err := Emit(toModule(m), opts)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

var _ = strings.Contains
