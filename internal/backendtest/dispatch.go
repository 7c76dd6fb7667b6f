package backendtest

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
)

// Dispatch runs p, the pipeline of kernel k, once on d over groups and
// returns every buffer of k as the device left it, by name. params are the
// scalar parameters by name (f32 as its bits, integers as their low 32
// bits, in ir.ParamsLayout's order); bufs the starting bytes of every
// buffer by name, each bound at exactly its length (the device buffer
// under it is padded to 16 bytes with poison). A missing value or any
// error of the device fails t: this is the harness of the differential
// tests that compare the result with the interpreter's.
func Dispatch(t testing.TB, d *backend.Device, p *backend.Pipeline, k *ir.Kernel, params map[string]ir.Value, bufs map[string][]byte, groups [3]int) map[string][]byte {
	t.Helper()
	var args backend.Args
	fields, _ := ir.ParamsLayout(k)
	for _, f := range fields {
		v, ok := params[f.Param.Name]
		if !ok {
			t.Fatalf("%s: no value for param %s", k.Name, f.Param.Name)
		}
		if ir.ElemScalar(f.Param.Type) == ir.F32 {
			args.Params = append(args.Params, math.Float32bits(float32(v.Float)))
		} else {
			args.Params = append(args.Params, uint32(v.Int))
		}
	}
	for _, bp := range ir.Buffers(k) {
		data, ok := bufs[bp.Name]
		if !ok {
			t.Fatalf("%s: no contents for buffer %s", k.Name, bp.Name)
		}
		dev := bytes.Clone(data)
		for len(dev)%16 != 0 {
			dev = append(dev, 0xCD)
		}
		b, err := d.Upload(dev)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		args.Buffers = append(args.Buffers, b.Slice(0, int64(len(data))))
	}
	if err := d.Dispatch(p, args, backend.Groups(uint32(groups[0]), uint32(groups[1]), uint32(groups[2]))); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for i, bp := range ir.Buffers(k) {
		got, err := d.Read(ctx, args.Buffers[i])
		if err != nil {
			t.Fatal(err)
		}
		out[bp.Name] = got
	}
	return out
}

// TimeReplays replays g three times to warm up, then b.N times with a Wait
// after each, timing only those, and reports ms/replay (the mean) and
// med_ms/replay (the median). It returns the
// number of replays in all (b.N + 3), for the caller's check of the result.
func TimeReplays(b *testing.B, d *backend.Device, g *backend.Graph) int {
	b.Helper()
	replay := func() {
		if err := g.Replay(ctx); err != nil {
			b.Fatal(err)
		}
		if err := d.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		replay()
	}
	times := make([]float64, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		replay()
		times[i] = float64(time.Since(t0).Nanoseconds())
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/replay")
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2]/1e6, "med_ms/replay") // as PyTorch's chain is timed
	return b.N + 3
}
