//go:build linux && cgo

package vulkan

import (
	"context"
	"testing"

	dchain "github.com/kcgo/kc/bench/chain"
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
