//go:build !js

package wgpu

import (
	"strings"
	"testing"
)

// TestUncapturedErrorIsAValue: a validation error outside any error scope
// (wgpu-native's default handler would abort the process) is recorded by the
// driver's C callback and returned by the next call.
func TestUncapturedErrorIsAValue(t *testing.T) {
	openDevice(t)
	as, err := driver{}.Adapters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	impl, err := driver{}.Open(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	d := impl.(*device)
	if got := d.Info().Limits; got.MaxStorageBufferBindingSize != as[0].Limits.MaxStorageBufferBindingSize || got.MinStorageBufferOffsetAlignment != as[0].Limits.MinStorageBufferOffsetAlignment {
		t.Fatalf("device limits %+v, adapter's %+v (requested limits not applied)", got, as[0].Limits)
	}
	provokeUncaptured(d.dev)
	err = d.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "uncaptured error") {
		t.Fatalf("after an uncaptured error: %v", err)
	}
	t.Log(err)
	if err := d.Wait(ctx); err != nil {
		t.Fatalf("the error was reported twice: %v", err)
	}
}
