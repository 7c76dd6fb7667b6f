package kernels_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/kernels"
)

// BenchmarkGap takes apart BenchmarkOps' wall time for the ops whose wall
// figure trailed their GPU-timestamp figure (decode attention over 32k
// keys, layernorm over rows of 32k; the copy beside them): per op, the
// host's recording until the last submit (recus: µs from the first op
// recorded to the scope's End, over the ops), the last submit-to-wait
// time as GB/s (subGB/s: with one submit, the device's time for the
// chain, barriers included, plus one submit and fence), the wall figure
// as BenchmarkOps reports it (GB/s), and with -gpu each kernel's
// GPU-timestamp µs (us-<kernel>). Forms: rel (BenchmarkOps' own: each
// result released into the pool, so the next op rewrites it; the
// device's early submits, SetScopeFlush), once (rel with one submit at
// the End: SetScopeFlush(0), the behaviour before early submits), keep
// (once, with the results kept to the end of the chain: no rewrite, so
// no barrier between independent ops), flush1 and flush16 (rel with
// those first chunks).
//
//	go test ./kernels -run '^$' -bench Gap -benchtime 30x -gpu
func BenchmarkGap(b *testing.B) {
	dev, c := openBench(b)
	const mib = 1 << 20
	n := 64 * mib
	if dev.Info().Type == backend.TypeCPU {
		n = 4 * mib
	}
	x, y := fill(b, c, n), fill(b, c, n)
	const hq, hkv, dh = 32, 8, 128
	s := n / (2 * hkv * dh)
	kc, _ := x.Reshape(-1, hkv*dh)
	k, _ := kc.Rows(0, s)
	vv, _ := y.Reshape(-1, hkv*dh)
	v, _ := vv.Rows(0, s)
	q1, _ := fill(b, c, hq*dh).Reshape(1, hq*dh)
	var h [3]*kernels.Tensor
	for i, t := range []*kernels.Tensor{q1, k, v} {
		var err error
		if h[i], err = c.Cast(t, kernels.F16); err != nil {
			b.Fatal(err)
		}
	}
	xr, _ := x.Reshape(-1, 32768)
	w, bias := fill(b, c, 32768), fill(b, c, 32768)
	ops := []struct {
		name  string
		bytes int
		op    func() (*kernels.Tensor, error)
	}{
		{"copy", 8 * n, func() (*kernels.Tensor, error) { return c.Dup(x) }},
		{"layernorm32k", 8 * n, func() (*kernels.Tensor, error) { return c.LayerNorm(xr, w, bias, 1e-5) }},
		{fmt.Sprintf("decode32/s%d", s), 2 * s * hkv * dh * 4, func() (*kernels.Tensor, error) { return c.DecodeAttention(q1, k, v, hq, hkv) }},
		{fmt.Sprintf("decode16/s%d", s), 2 * s * hkv * dh * 2, func() (*kernels.Tensor, error) { return c.DecodeAttention(h[0], h[1], h[2], hq, hkv) }},
	}
	for _, o := range ops {
		for _, form := range []string{"rel", "once", "keep", "flush1", "flush16"} {
			b.Run(o.name+"/"+form, func(b *testing.B) {
				flush := dev.ScopeFlush()
				defer dev.SetScopeFlush(flush)
				if form == "once" || form == "keep" {
					flush = 0
				}
				fmt.Sscanf(form, "flush%d", &flush)
				dev.SetScopeFlush(flush)
				warmUp(b, dev, o.op)
				var kept []*kernels.Tensor
				start := time.Now()
				sub := scopeOps(b, dev, b.N, func(int) (*kernels.Tensor, error) {
					out, err := o.op()
					if form == "keep" && out != nil {
						kept = append(kept, out)
						return nil, err
					}
					return out, err
				})
				el := time.Since(start)
				for _, t := range kept {
					t.Release()
				}
				per := float64(b.N)
				b.ReportMetric(float64(o.bytes)*per/el.Seconds()/1e9, "GB/s")
				b.ReportMetric(float64(o.bytes)*per/sub.Seconds()/1e9, "subGB/s")
				b.ReportMetric((el-sub).Seconds()*1e6/per, "recus")
				if gpuFigures(dev) && form == "rel" {
					for name, d := range kernelTimes(b, c, dev, o.op) {
						b.ReportMetric(d.Seconds()*1e6, "us-"+name)
					}
				}
			})
		}
	}
}

// BenchmarkRecordDecode times the host's recording of decode attention
// (one query, 32/8 heads of 128, 256 keys: the kernels' choice is the same
// at 32k keys) and of layernorm (rows of 32k) per op, 64 ops a scope, the
// submit and the wait outside the timing (ns/op is the recording). Early
// submits are off (SetScopeFlush(0)), so that none lands in the timing.
func BenchmarkRecordDecode(b *testing.B) {
	dev, c := openBench(b)
	defer dev.SetScopeFlush(dev.ScopeFlush())
	dev.SetScopeFlush(0)
	const hq, hkv, dh, s = 32, 8, 128, 256
	q, _ := fill(b, c, hq*dh).Reshape(1, hq*dh)
	k, _ := fill(b, c, s*hkv*dh).Reshape(s, hkv*dh)
	v, _ := fill(b, c, s*hkv*dh).Reshape(s, hkv*dh)
	xr, _ := fill(b, c, 4*32768).Reshape(4, 32768)
	w, bias := fill(b, c, 32768), fill(b, c, 32768)
	for _, o := range []struct {
		name string
		op   func() (*kernels.Tensor, error)
	}{
		{"decode32", func() (*kernels.Tensor, error) { return c.DecodeAttention(q, k, v, hq, hkv) }},
		{"layernorm32k", func() (*kernels.Tensor, error) { return c.LayerNorm(xr, w, bias, 1e-5) }},
	} {
		b.Run(o.name, func(b *testing.B) {
			warmUp(b, dev, o.op)
			const per = 64
			for done := 0; done < b.N; done += per {
				sc := dev.Begin()
				for i := 0; i < per; i++ {
					out, err := o.op()
					if err != nil {
						b.Fatal(err)
					}
					out.Release()
				}
				b.StopTimer()
				if err := sc.End(); err != nil {
					b.Fatal(err)
				}
				if err := dev.Wait(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
