//go:build linux && cgo

package vulkan

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestKeptCopies checks standalone copies through kept command buffers
// (copycache.go): a repeated copy resubmits one command buffer and moves
// the bytes the host wrote since; copies interleave with dispatches in
// program order; a copy repeated while the kept one runs, more distinct
// copies than are kept, and copies after a buffer they used was released
// all move the right bytes. Every result is compared with the host's data.
func TestKeptCopies(t *testing.T) {
	for _, off := range []bool{false, true} {
		name := "kept"
		if off {
			name = envCopyCache + "=off"
		}
		t.Run(name, func(t *testing.T) {
			if off {
				t.Setenv(envCopyCache, "off")
			}
			impl := openImpl(t)
			keptCopies(t, impl, off)
		})
	}
}

func keptCopies(t *testing.T, impl *device, off bool) {
	d := backend.Wrap(impl)
	ctx := context.Background()
	const n = 4096
	dev, err := d.AllocZeroed(4 * n) // not pooled: Release frees it
	if err != nil {
		t.Fatal(err)
	}
	host, err := d.AllocMapped(4*n, backend.MapHost)
	if err != nil {
		t.Fatal(err)
	}
	back, err := d.AllocMapped(4*n, backend.MapHost)
	if err != nil {
		t.Fatal(err)
	}
	fill := func() []uint32 {
		v := make([]uint32, n)
		for i := range v {
			v[i] = rand.Uint32()
		}
		copy(host.Mapped(), u32bytes(v))
		return v
	}
	wantKept := func(what string, k int) {
		t.Helper()
		if off {
			k = 0
		}
		if len(impl.copies) != k {
			t.Errorf("%s: %d kept copies, want %d", what, len(impl.copies), k)
		}
	}
	// The same upload and readback, three times, new data each time.
	for rep := 0; rep < 3; rep++ {
		v := fill()
		if err := d.Copy(dev.View(), host.View()); err != nil {
			t.Fatal(err)
		}
		if err := d.Copy(back.View(), dev.View()); err != nil {
			t.Fatal(err)
		}
		if err := d.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		checkU32(t, "round trip", back.Mapped(), v)
	}
	wantKept("after round trips", 2)
	// Back to back without a wait: the second runs while the kept one may.
	v := fill()
	for i := 0; i < 3; i++ {
		if err := d.Copy(dev.View(), host.View()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.Read(ctx, dev.View())
	if err != nil {
		t.Fatal(err)
	}
	checkU32(t, "repeated upload", got, v)
	// Between dispatches: upload, y = 3y + k, readback.
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	v = fill()
	k := rand.Uint32()
	if err := d.Copy(dev.View(), host.View()); err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, backend.Args{Params: []uint32{k, n}, Buffers: []backend.View{dev.View()}}, backend.Groups(n/64)); err != nil {
		t.Fatal(err)
	}
	if err := d.Copy(back.View(), dev.View()); err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	addkRef(v, k)
	checkU32(t, "upload, dispatch, readback", back.Mapped(), v)
	// More distinct copies than are kept: 4-element pieces, each its own.
	v = fill()
	for i := 0; i < maxCopyFrames+8; i++ {
		at := int64(16 * i)
		if err := d.Copy(dev.Slice(at, 16), host.Slice(at, 16)); err != nil {
			t.Fatal(err)
		}
	}
	got, err = d.Read(ctx, dev.Slice(0, 16*(maxCopyFrames+8)))
	if err != nil {
		t.Fatal(err)
	}
	checkU32(t, "pieces", got, v[:4*(maxCopyFrames+8)])
	wantKept("after many copies", maxCopyFrames)
	// Releasing a buffer forgets the copies that use it; a new buffer
	// (whose handle may be the old one's) copies correctly.
	dev.Release()
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	wantKept("after releasing the buffer every kept copy used", 0)
	dev2, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	v = fill()
	if err := d.Copy(dev2.View(), host.View()); err != nil {
		t.Fatal(err)
	}
	got, err = d.Read(ctx, dev2.View())
	if err != nil {
		t.Fatal(err)
	}
	checkU32(t, "after release", got, v)
}
