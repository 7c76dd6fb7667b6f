//go:build !js

package wgpu

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestHostTiming runs the timing oracle on an adapter without timestamps
// (wgpu's OpenGL adapter on llvmpipe), which times on the host.
func TestHostTiming(t *testing.T) {
	openDevice(t)
	as, _ := backend.Adapters(ctx)
	var gl *backend.AdapterInfo
	for i := range as {
		if as[i].Driver == "wgpu" && !as[i].Timestamps {
			gl = &as[i]
		}
	}
	if gl == nil {
		t.Skip("no wgpu adapter without timestamps here")
	}
	d, err := backend.OpenAdapter(ctx, *gl)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := loadSaxpy(t, d)
	x, _ := d.AllocZeroed(4096)
	y, _ := d.AllocZeroed(4096)
	ds, err := d.Time(ctx, p, saxpyArgs(1, 1024, x.View(), y.View()), groupsFor(1024), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ds {
		if s <= 0 {
			t.Fatalf("host samples %v", ds)
		}
	}
}

func TestMissingEntryPoint(t *testing.T) {
	d := openDevice(t)
	_, err := d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "nosuch", Layout: saxpyLayout})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("missing entry point: %v", err)
	}
	// Layout disagreeing with the shader (binding 2 declared read-only).
	l := saxpyLayout
	l.Buffers = []backend.BufferSlot{l.Buffers[0], {Name: "y", Binding: 2, ReadOnly: true, Stride: 4}}
	_, err = d.Load(ctx, &backend.Artifact{Target: backend.WGSL, Code: []byte(saxpyWGSL), Entry: "saxpy", Layout: l})
	if err == nil {
		t.Fatal("a layout that contradicts the shader loaded")
	}
	t.Log(err)
}
