package hlsl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestPostWithEffectsRefused: a call with effects in a for statement's
// post statement would have to run before the condition on every
// iteration, continue included; HLSL's for cannot hold the statements it
// needs, so Emit refuses it at the post statement.
func TestPostWithEffectsRefused(t *testing.T) {
	m := loadSrc(t, "post.kc", `fn next(y read_write []u32, i u32) u32 {
	y[i] = i
	return i + 1
}

kernel k(y read_write []u32) workgroup(1) {
	for i := u32(0); i < 4; i = next(y, i) {
		y[8] = i
	}
}
`)
	_, err := Emit(m, Options{})
	want := "post.kc:7:26: an atomic operation or a call with effects in a for statement's post statement is not supported by target hlsl"
	var ue *ir.UnsupportedError
	if !errors.As(err, &ue) || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestNumWorkgroupsInFunction: a helper function reading num_workgroups
// reads the kernel's hidden params field, which the kernel declares even
// when only its functions read it (both found by internal/difftest with
// irgen's Lang kernels: the function spelled it as an empty name), and
// glslang compiles it.
func TestNumWorkgroupsInFunction(t *testing.T) {
	m := loadSrc(t, "nwg.kc", `fn groups(k u32) u32 {
	return num_workgroups.x * k + num_workgroups.y
}

kernel k(n u32, y read_write []u32) workgroup(64) {
	if global_id.x < n {
		y[global_id.x] = groups(global_id.x)
	}
}
`)
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(a.Code)
	if !strings.Contains(code, "return kc_num_workgroups.x * k_1 + kc_num_workgroups.y;") {
		t.Errorf("the function does not read the hidden field:\n%s", code)
	}
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	if _, err := CompileSPIRV(context.Background(), a, "k", CompileOptions{Compiler: Glslang}); err != nil {
		t.Fatal(err)
	}
}
