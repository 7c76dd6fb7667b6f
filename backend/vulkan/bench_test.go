//go:build linux && cgo

package vulkan

import (
	"context"
	"testing"

	"github.com/kcgo/kc/backend"
	dchain "github.com/kcgo/kc/bench/chain"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// BenchmarkRecordDispatch is the host cost of recording one dispatch inside
// a scope through backend.Device.Dispatch (host checks included); scopes of
// 1,000 dispatches are submitted and waited for outside the timer.
func BenchmarkRecordDispatch(b *testing.B) {
	d := openTest(b)
	ctx := context.Background()
	c, err := dchain.New(ctx, d, 1024)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var total float64
	for done := 0; done < b.N; done += 1000 {
		el, err := c.Record(ctx, min(1000, b.N-done))
		if err != nil {
			b.Fatal(err)
		}
		total += float64(el.Nanoseconds())
	}
	b.StopTimer()
	b.ReportMetric(total/float64(b.N), "ns/dispatch")
	if err := c.Verify(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChain1000 is the wall time of 1,000 tiny dependent dispatches in
// one scope, one submit and one wait.
func BenchmarkChain1000(b *testing.B) {
	d := openTest(b)
	ctx := context.Background()
	c, err := dchain.New(ctx, d, 1024)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := c.Chain(ctx, 1000); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := c.Verify(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRecordFreshDispatch is the host cost of recording a dispatch
// that binds a long-lived buffer beside a newly allocated one (a library
// op's weights and its fresh output): every dispatch misses the descriptor
// set cache (the outputs stay alive to the scope's end), and the
// long-lived buffer collects a note of every set that binds it. Scopes of
// 1,000 dispatches; allocation inside the timer, release outside.
func BenchmarkRecordFreshDispatch(b *testing.B) {
	d := openTest(b)
	ctx := context.Background()
	m, err := parse.File("copy.kc", []byte(`kernel cp(n u32, w read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = w[i]
	}
}
`))
	if err != nil {
		b.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		b.Fatal(err)
	}
	p, err := d.LoadIR(ctx, m, "cp")
	if err != nil {
		b.Fatal(err)
	}
	const n = 256
	w, err := d.AllocZeroed(4 * n)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Release()
	b.ResetTimer()
	for done := 0; done < b.N; done += 1000 {
		s := d.Begin()
		ys := make([]*backend.Buffer, 0, 1000)
		for i := 0; i < min(1000, b.N-done); i++ {
			y, err := d.Alloc(4 * n)
			if err != nil {
				b.Fatal(err)
			}
			ys = append(ys, y) // alive to the scope's end: a set of its own
			if err := d.Dispatch(p, backend.Args{Params: []uint32{n}, Buffers: []backend.View{w.Slice(0, 4*n), y.Slice(0, 4*n)}}, backend.Groups(n/64)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := s.End(); err != nil {
			b.Fatal(err)
		}
		if err := d.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		for _, y := range ys {
			y.Release()
		}
		b.StartTimer()
	}
}
