//go:build linux && cgo

package vulkan

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// TestPipelinedReads reads ranges larger than a read group, and several
// ranges straddling group boundaries, in one ReadMany after a dispatch,
// then again with ReadInto into reused memory; every byte is checked.
func TestPipelinedReads(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 17))
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{readGroup/4 + 4*r.IntN(1000), 2*readGroup + 4*r.IntN(100000), readGroup - 12, 1024}
	var bufs []*backend.Buffer
	var want [][]uint32
	for _, n := range sizes {
		w := make([]uint32, n/4)
		for i := range w {
			w[i] = r.Uint32()
		}
		b, err := d.Upload(u32bytes(w))
		if err != nil {
			t.Fatal(err)
		}
		bufs, want = append(bufs, b), append(want, w)
	}
	// A dispatch on the first part of the big one, recorded before the
	// reads, must show in them.
	k, covered := r.Uint32(), min(len(want[1]), 65535*64)
	s := d.Begin()
	if err := d.Dispatch(p, backend.Args{Params: []uint32{k, uint32(covered)}, Buffers: []backend.View{bufs[1].View()}}, backend.Groups(uint32((covered+63)/64))); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadMany(ctx, bufs[0].View(), bufs[1].View(), bufs[2].View(), bufs[3].Slice(8, 512))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	addkRef(want[1][:covered], k)
	checkU32(t, "read 0", got[0], want[0])
	checkU32(t, "read 1 (three groups)", got[1], want[1])
	checkU32(t, "read 2", got[2], want[2])
	checkU32(t, "read 3", got[3], want[3][2:130])
	dst := make([]byte, 4*len(want[1]))
	for rep := 0; rep < 2; rep++ {
		for i := range dst {
			dst[i] = 0x5a // poison
		}
		if err := d.ReadInto(ctx, dst, bufs[1].View()); err != nil {
			t.Fatal(err)
		}
		checkU32(t, "ReadInto", dst, want[1])
	}
	if err := d.ReadInto(ctx, dst[:8], bufs[1].View()); err == nil {
		t.Error("ReadInto a short slice succeeded")
	}
}
