//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// The runtime benchmarks (scripts/h200.sh runs them on the H200 beside
// PyTorch's CUDA graph and pinned copies; docs/PERF.md has the figures).

const add1Source = `kernel add1(n u32, x read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		x[i] = x[i] + 1.0
	}
}
`

// loadAdd1 compiles add1 (x[i] += 1) through kc's front end and SPIR-V
// emitter and loads it.
func loadAdd1(tb testing.TB, d *backend.Device) *backend.Pipeline {
	tb.Helper()
	m, err := parse.File("add1.kc", []byte(add1Source))
	if err != nil {
		tb.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		tb.Fatal(err)
	}
	p, err := d.LoadIR(context.Background(), m, "add1")
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// add1Ops returns count add1 dispatches over n floats each: all on one
// buffer (a dependent chain) or each on its own slice (independent).
func add1Ops(tb testing.TB, d *backend.Device, p *backend.Pipeline, count, n int, independent bool) ([]backend.Op, *backend.Buffer) {
	tb.Helper()
	slices := 1
	if independent {
		slices = count
	}
	buf, err := d.AllocZeroed(int64(4 * n * slices))
	if err != nil {
		tb.Fatal(err)
	}
	ops := make([]backend.Op, count)
	for i := range ops {
		off := int64(0)
		if independent {
			off = int64(4 * n * i)
		}
		ops[i] = &backend.DispatchOp{Pipeline: p, Args: backend.Args{Params: []uint32{uint32(n)}, Buffers: []backend.View{buf.Slice(off, int64(4*n))}},
			Groups: backend.Groups(uint32((n + 63) / 64))}
	}
	return ops, buf
}

// checkAdd1 reads buf back: every float must equal want.
func checkAdd1(tb testing.TB, d *backend.Device, buf *backend.Buffer, want float32) {
	tb.Helper()
	got, err := d.Read(context.Background(), buf.View())
	if err != nil {
		tb.Fatal(err)
	}
	for i, v := range bytesF32(got) {
		if v != want {
			tb.Fatalf("x[%d] = %g, want %g", i, v, want)
		}
	}
}

// BenchmarkGraph replays a recorded graph of tiny add1 dispatches (1,024
// floats each) and waits: a dependent chain of 1,000 (one barrier per
// dispatch), 1,000 independent ones (no barriers), and one dispatch (the
// fixed cost of a submit and a fence wait). Compare the chain with
// PyTorch's CUDA graph of 1,000 x.add_(1).
func BenchmarkGraph(b *testing.B) {
	for _, c := range []struct {
		name        string
		count       int
		independent bool
	}{{"dependent-1000", 1000, false}, {"independent-1000", 1000, true}, {"single", 1, false}} {
		b.Run(c.name, func(b *testing.B) {
			d := openTest(b)
			p := loadAdd1(b, d)
			ops, buf := add1Ops(b, d, p, c.count, 1024, c.independent)
			g, err := d.Record(ops...)
			if err != nil {
				b.Fatal(err)
			}
			defer g.Release()
			replays := backendtest.TimeReplays(b, d, g)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.count)/1e3, "us/dispatch")
			per := float32(replays)
			if !c.independent {
				per *= float32(c.count)
			}
			checkAdd1(b, d, buf, per)
		})
	}
}

// BenchmarkEagerIndependent is 1,000 independent dispatches recorded in one
// scope, submitted and waited for (no barriers between them; compare
// BenchmarkChain1000, the dependent chain).
func BenchmarkEagerIndependent(b *testing.B) {
	d := openTest(b)
	ctx := context.Background()
	p := loadAdd1(b, d)
	ops, buf := add1Ops(b, d, p, 1000, 1024, true)
	for i := 0; i < b.N; i++ {
		if err := d.Run(ops...); err != nil {
			b.Fatal(err)
		}
		if err := d.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/scope")
	checkAdd1(b, d, buf, float32(b.N))
}

// BenchmarkRecordGraph is the host cost of Device.Record per dispatch (a
// 1,000-dispatch chain: host checks, params, descriptor sets, command
// recording), dependent (a barrier each) and independent (none), and the
// cgo calls Record makes per dispatch (runtime.NumCgoCall).
func BenchmarkRecordGraph(b *testing.B) {
	for _, independent := range []bool{false, true} {
		name := "dependent"
		if independent {
			name = "independent"
		}
		b.Run(name, func(b *testing.B) {
			d := openTest(b)
			p := loadAdd1(b, d)
			ops, _ := add1Ops(b, d, p, 1000, 1024, independent)
			var cgo int64
			for i := 0; i < b.N; i++ {
				c0 := runtime.NumCgoCall()
				g, err := d.Record(ops...)
				if err != nil {
					b.Fatal(err)
				}
				cgo += runtime.NumCgoCall() - c0
				b.StopTimer()
				g.Release()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops))/1e3, "us/dispatch")
			b.ReportMetric(float64(cgo)/float64(b.N*len(ops)), "cgo/dispatch")
		})
	}
}

// BenchmarkDispatchGPU reports the GPU time of one dependent add1 dispatch
// with its barrier, from timestamps around each (Device.Time): what the
// device spends per link of a chain, apart from the host.
func BenchmarkDispatchGPU(b *testing.B) {
	d := openTest(b)
	if !d.Info().Timestamps {
		b.Skip("no timestamps")
	}
	p := loadAdd1(b, d)
	ops, _ := add1Ops(b, d, p, 1, 1024, false)
	op := ops[0].(*backend.DispatchOp)
	var all []time.Duration
	for i := 0; i < b.N; i++ {
		ts, err := d.Time(context.Background(), p, op.Args, op.Groups, 10, 200)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, ts...)
	}
	b.ReportMetric(float64(medianDur(all).Nanoseconds())/1e3, "gpu_us/dispatch")
}

func medianDur(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// benchSizes are the transfer sizes: KC_BENCH_SIZES (comma-separated, with
// K, M or G suffixes), default 1M and 16M.
func benchSizes() []int64 {
	spec := os.Getenv("KC_BENCH_SIZES")
	if spec == "" {
		spec = "1M,16M"
	}
	var out []int64
	for _, f := range strings.Split(spec, ",") {
		mul := int64(1)
		switch {
		case strings.HasSuffix(f, "K"):
			mul, f = 1<<10, strings.TrimSuffix(f, "K")
		case strings.HasSuffix(f, "M"):
			mul, f = 1<<20, strings.TrimSuffix(f, "M")
		case strings.HasSuffix(f, "G"):
			mul, f = 1<<30, strings.TrimSuffix(f, "G")
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err == nil && n > 0 {
			out = append(out, n*mul)
		}
	}
	return out
}

func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	}
	return fmt.Sprintf("%dK", n>>10)
}

// BenchmarkTransfer measures host-device throughput at each size:
//   - upload: Buffer.Write of Go memory + Wait (staged through host memory
//     in 16 MiB pieces, copied by several goroutines, submitted as staged);
//   - readback: Device.Read into fresh Go memory;
//   - readinto: Device.ReadInto reused Go memory;
//   - from-host: a copy from a MapHost buffer the host already filled +
//     Wait (PyTorch: pinned tensor .copy_ to the device);
//   - to-host: a copy into a MapHost buffer + Wait (PyTorch: device tensor
//     .copy_ into a pinned one);
//   - from-host-graph, to-host-graph: the same copies recorded once as a
//     graph (Device.Record of one CopyOp), replayed + Wait;
//   - write-mapped: the host's copy into a MapDevice buffer (device-local
//     where the device maps its memory): a zero-copy upload.
//
// Besides the mean (ns/op, MB/s) it reports the median of the iterations
// (med_GB/s), which is how rt-torch_wall.py times PyTorch's copies. Every
// variant checks a sample of the bytes after its timed loop.
func BenchmarkTransfer(b *testing.B) {
	for _, size := range benchSizes() {
		for _, kind := range []string{"upload", "readback", "readinto", "from-host", "to-host", "from-host-graph", "to-host-graph", "write-mapped"} {
			b.Run(kind+"-"+sizeName(size), func(b *testing.B) { benchTransfer(b, kind, size) })
		}
	}
}

func benchTransfer(b *testing.B, kind string, size int64) {
	d := openTest(b)
	ctx := context.Background()
	dev, err := d.Alloc(size)
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	var mapped *backend.Buffer
	switch kind {
	case "from-host", "to-host", "from-host-graph", "to-host-graph":
		if mapped, err = d.AllocMapped(size, backend.MapHost); err != nil {
			b.Fatal(err)
		}
		copy(mapped.Mapped(), data)
	case "write-mapped":
		if mapped, err = d.AllocMapped(size, backend.MapDevice); err != nil {
			b.Fatal(err)
		}
	}
	if kind != "upload" {
		if err := dev.Write(0, data); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	var g *backend.Graph
	switch kind {
	case "from-host-graph":
		g, err = d.Record(&backend.CopyOp{Dst: dev.View(), Src: mapped.View()})
	case "to-host-graph":
		g, err = d.Record(&backend.CopyOp{Dst: mapped.View(), Src: dev.View()})
	}
	if err != nil {
		b.Fatal(err)
	}
	if g != nil {
		defer g.Release()
	}
	got := make([]byte, size)
	step := func() {
		switch kind {
		case "upload":
			err = dev.Write(0, data)
		case "readback":
			got, err = d.Read(ctx, dev.View())
		case "readinto":
			err = d.ReadInto(ctx, got, dev.View())
		case "from-host":
			err = d.Copy(dev.View(), mapped.View())
		case "to-host":
			err = d.Copy(mapped.View(), dev.View())
		case "from-host-graph", "to-host-graph":
			err = g.Replay(ctx)
		case "write-mapped":
			copy(mapped.Mapped(), data)
		}
		if err == nil && kind != "readback" && kind != "readinto" {
			err = d.Wait(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	step() // warm-up: staging and readback memory
	b.SetBytes(size)
	times := make([]float64, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		step()
		times[i] = float64(time.Since(t0).Nanoseconds())
	}
	b.StopTimer()
	b.ReportMetric(float64(size)/medianF(times), "med_GB/s")
	switch kind {
	case "readback", "readinto":
	case "to-host", "to-host-graph":
		got = mapped.Mapped()
	case "write-mapped":
		if got, err = d.Read(ctx, mapped.View()); err != nil {
			b.Fatal(err)
		}
	default:
		if got, err = d.Read(ctx, dev.View()); err != nil {
			b.Fatal(err)
		}
	}
	for i := int64(0); i < size; i += 4093 {
		if got[i] != data[i] {
			b.Fatalf("byte %d: got %#x, want %#x", i, got[i], data[i])
		}
	}
}

// BenchmarkZeroCopyRead times a kernel reading its input straight from
// mapped memory (zero-copy) against the same kernel reading a device-local
// buffer: host-mapped reads cross the bus on a discrete GPU (plain memory
// on a unified one); device-mapped memory is device-local where the
// device maps its memory. All write a device-local output.
func BenchmarkZeroCopyRead(b *testing.B) {
	const copyGLSL = `#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform Params { uint n; } p;
layout(set = 0, binding = 1) readonly buffer X { uvec4 x[]; };
layout(set = 0, binding = 2) buffer Y { uvec4 y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 65535u * 256u;
	if (i < p.n) y[i] = x[i] + uvec4(1u);
}
`
	for _, size := range benchSizes() {
		for _, src := range []string{"device", "mapped-device", "mapped-host"} {
			b.Run(src+"-"+sizeName(size), func(b *testing.B) {
				d := openTest(b)
				ctx := context.Background()
				a := artifact(glsl(b, copyGLSL), "copy4", 256, []string{"n"}, "x:ro", "y:rw")
				r := &a.Entries[0].Reflection
				r.Buffers[0].Stride, r.Buffers[1].Stride = 16, 16
				p, err := d.Load(ctx, a)
				if err != nil {
					b.Fatal(err)
				}
				var in *backend.Buffer
				switch src {
				case "mapped-device":
					in, err = d.AllocMapped(size, backend.MapDevice)
				case "mapped-host":
					in, err = d.AllocMapped(size, backend.MapHost)
				default:
					in, err = d.Alloc(size)
				}
				if err != nil {
					b.Fatal(err)
				}
				w := make([]uint32, size/4)
				for i := range w {
					w[i] = uint32(i) * 2654435761
				}
				if src != "device" {
					copy(in.Mapped(), u32bytes(w))
				} else if err := in.Write(0, u32bytes(w)); err != nil {
					b.Fatal(err)
				}
				out, err := d.Alloc(size)
				if err != nil {
					b.Fatal(err)
				}
				n := uint32(size / 16)
				groups := (n + 255) / 256
				grid := backend.Groups(min(groups, 65535), (groups+65534)/65535)
				args := backend.Args{Params: []uint32{n}, Buffers: []backend.View{in.View(), out.View()}}
				run := func() {
					if err := d.Dispatch(p, args, grid); err != nil {
						b.Fatal(err)
					}
					if err := d.Wait(ctx); err != nil {
						b.Fatal(err)
					}
				}
				run()
				b.SetBytes(size)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					run()
				}
				b.StopTimer()
				got, err := d.Read(ctx, out.View())
				if err != nil {
					b.Fatal(err)
				}
				g := bytesU32(got)
				for i := 0; i < len(w); i += 1021 {
					if g[i] != w[i]+1 {
						b.Fatalf("y[%d] = %d, want %d", i, g[i], w[i]+1)
					}
				}
			})
		}
	}
}
