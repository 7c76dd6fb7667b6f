package hlsl

import (
	"errors"
	"testing"

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
