package hlsl

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestOpTable emits every row of ir's op tables at every type it applies
// to (kctest.OpTable) and compiles each module with glslang (checked by
// spirv-val): an operator, builtin, conversion or intrinsic the emitter
// does not handle, or spells wrongly, fails here rather than in a user's
// kernel. The one thing glslang cannot take, num_workgroups (an entry's
// Restricted), must come back as an *ir.UnsupportedError naming it.
func TestOpTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs glslang about 400 times (-short)")
	}
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	cases := kctest.OpTable(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	errs := make([]string, len(cases))
	for i, c := range cases {
		a, err := Emit(c.Module, Options{})
		if err != nil {
			t.Errorf("%s: %v\n%s", c, err, c.Src)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ent := &a.Entries[0]
			_, err := CompileSPIRV(context.Background(), a, "", CompileOptions{Compiler: Glslang})
			var ue *ir.UnsupportedError
			switch {
			case ent.Restricted != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), ent.Restricted)):
				errs[i] = "want an UnsupportedError naming " + ent.Restricted + ", got " + errString(err)
			case ent.Restricted == "" && err != nil:
				errs[i] = err.Error() + "\n" + string(a.Code)
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Errorf("%s: %s\n%s", cases[i], e, cases[i].Src)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
