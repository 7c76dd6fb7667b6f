package coopmat_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// coop2Printed: coop2Device has printed the device's coopmat2 report.
var coop2Printed bool

// coop2Device opens the Vulkan device and skips unless it has
// VK_NV_cooperative_matrix2's workgroup scope, after printing (once) what
// the device reports of it.
func coop2Device(t *testing.T) *backend.Device {
	dev := backendtest.Open(t, "vulkan")
	info := dev.Info()
	c := info.CoopMat2
	if c == nil || !c.WorkgroupScope {
		t.Skipf("%s has no VK_NV_cooperative_matrix2 workgroup scope", info.Name)
	}
	printed := coop2Printed
	coop2Printed = true
	if printed {
		return dev
	}
	fmt.Printf("RESULT coopmat2 device=%q workgroupScope=%v flexible=%v maxWorkgroupSize=%d maxDimension=%d reservedShared=%d tensorAddressing=%v\n",
		info.Name, c.WorkgroupScope, c.FlexibleDimensions, c.MaxWorkgroupSize, c.MaxDimension, c.ReservedShared, c.TensorAddressing)
	for _, s := range c.Flexible {
		fmt.Printf("RESULT flex granularity=%dx%dx%d types=%s*%s+%s->%s scope=%s invocations=%d saturating=%v\n",
			s.M, s.N, s.K, s.A, s.B, s.C, s.Result, s.Scope, s.Invocations, s.Saturating)
	}
	return dev
}

// peakKernel is a register-only multiply-add loop: each group (the
// workgroup for workgroup scope, each of the workgroup's subgroups
// otherwise) loads one A and one B once, then adds their product into
// nacc independent accumulators iters times and stores them, so that the
// loop is nothing but tensor-core work.
type peakKernel struct {
	dt, scope string
	m, n, k   int
	threads   int
	nacc      int
	groupsPer int // matrix owners per workgroup (1, or the subgroups)
}

func (pk peakKernel) name() string {
	return fmt.Sprintf("%s %s %dx%dx%d x%d (%d inv)", pk.dt, pk.scope, pk.m, pk.n, pk.k, pk.nacc*pk.groupsPer, pk.threads)
}

func (pk peakKernel) source() string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format+"\n", args...) }
	if pk.dt == "bf16" {
		p("enable bf16")
	} else {
		p("enable f16")
	}
	p("enable cooperative_matrix")
	sc := ""
	if pk.scope == "workgroup" {
		p("enable cooperative_matrix2")
		sc = ", workgroup"
	}
	p("kernel peak(iters u32, A read []%s, B read []%s, C read_write []f32) workgroup(%d) {", pk.dt, pk.dt, pk.threads)
	owner := "0"
	if pk.groupsPer > 1 {
		owner = fmt.Sprintf("local_index / %d", pk.threads/pk.groupsPer)
	}
	p("\tlet g = workgroup_id.x * %d + %s", pk.groupsPer, owner)
	p("\tlet ta = coopLoad<coopmat<%s, %d, %d, a%s>>(A, 0, %d, row_major)", pk.dt, pk.m, pk.k, sc, pk.k)
	p("\tlet tb = coopLoad<coopmat<%s, %d, %d, b%s>>(B, 0, %d, row_major)", pk.dt, pk.k, pk.n, sc, pk.n)
	for i := 0; i < pk.nacc; i++ {
		p("\tvar c%d coopmat<f32, %d, %d, acc%s>", i, pk.m, pk.n, sc)
	}
	p("\tfor i := u32(0); i < iters; i++ {")
	for i := 0; i < pk.nacc; i++ {
		p("\t\tc%d = coopMulAdd(ta, tb, c%d)", i, i)
	}
	p("\t}")
	for i := 0; i < pk.nacc; i++ {
		p("\tcoopStore(c%d, C, (g * %d + %d) * %d, %d, row_major)", i, pk.nacc, i, pk.m*pk.n, pk.n)
	}
	p("}")
	return w.String()
}

// TestCoop2Peak measures the tensor-core ceiling at each scope: the
// register-only loop at subgroup scope (16x16x16, the fixed KHR shape) and
// at workgroup scope for tiles the flexible dimensions allow, f16 (and
// bf16) inputs, f32 accumulators; each the median of 5 dispatches of about
// 3·10¹² operations over 16 workgroups per multiprocessor.
func TestCoop2Peak(t *testing.T) {
	dev := coop2Device(t)
	info := dev.Info()
	ctx := context.Background()
	c := info.CoopMat2
	var ks []peakKernel
	ks = append(ks, peakKernel{dt: "f16", scope: "subgroup", m: 16, n: 16, k: 16, threads: 128, nacc: 8, groupsPer: 4})
	// Workgroup scope: the most telling first (2026-12-01 measured 64x64 at
	// 32 invocations; wgmma, if the driver uses it, needs 128), each tile
	// at the workgroup sizes whose granularity it meets, with at most 128
	// accumulator elements per invocation (more spilled at 32).
	for _, dt := range []string{"f16", "bf16"} {
		for _, s := range [][4]int{{128, 128, 32, 256}, {128, 256, 32, 256}, {128, 128, 32, 128}, {256, 128, 32, 256}, {128, 128, 16, 256}, {64, 64, 32, 128}, {64, 64, 32, 32}} {
			if dt == "bf16" && s != [4]int{128, 128, 32, 256} {
				continue
			}
			for _, g := range c.WorkgroupShapes(dt, "f32") {
				if g.Invocations == s[3] && s[0]%g.M == 0 && s[1]%g.N == 0 && s[2]%g.K == 0 && (c.MaxDimension == 0 || max(s[0], s[1], s[2]) <= c.MaxDimension) {
					ks = append(ks, peakKernel{dt: dt, scope: "workgroup", m: s[0], n: s[1], k: s[2], threads: g.Invocations, nacc: 1, groupsPer: 1})
				}
			}
		}
	}
	for _, s := range c.Flexible { // subgroup scope with flexible dimensions
		if s.Scope == "subgroup" && s.A == "f16" && s.C == "f32" && s.Result == "f32" && !s.Saturating && 32%s.M == 0 && 32%s.N == 0 && 16%s.K == 0 {
			ks = append(ks, peakKernel{dt: "f16", scope: "subgroup", m: 32, n: 32, k: 16, threads: 128, nacc: 2, groupsPer: 4})
			break
		}
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	small := func(n int) *backend.Buffer {
		b := make([]byte, 2*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(b[2*i:], interp.F32ToF16Bits((rng.Float32()*2-1)/64))
		}
		buf, err := dev.Upload(b)
		if err != nil {
			t.Fatal(err)
		}
		return buf
	}
	a, b := small(256*64), small(64*256)
	defer a.Release()
	defer b.Release()
	const workgroups = 132 * 16
	for i, pk := range ks {
		m, err := parse.Load("peak.kc", []byte(pk.source()), nil)
		if err != nil {
			t.Errorf("%s: %v", pk.name(), err)
			continue
		}
		start := time.Now()
		pipe, err := dev.LoadIR(ctx, m, "peak")
		if err != nil {
			t.Errorf("%s: %v", pk.name(), err)
			continue
		}
		compile := time.Since(start)
		perIter := 2 * float64(pk.m*pk.n*pk.k) * float64(pk.nacc*pk.groupsPer) * workgroups
		iters := int(3e12 / perIter)
		cbuf, err := dev.Alloc(int64(4 * pk.m * pk.n * pk.nacc * pk.groupsPer * workgroups))
		if err != nil {
			t.Fatal(err)
		}
		args := backend.Args{Params: []uint32{uint32(iters)}, Buffers: []backend.View{a.View(), b.View(), cbuf.View()}}
		warm := 2
		if i == 0 {
			warm = 150 // about a second of load first, so that the clocks have risen
		}
		ds, err := dev.Time(ctx, pipe, args, backend.Groups(workgroups), warm, 5)
		cbuf.Release()
		if err != nil {
			t.Errorf("%s: %v", pk.name(), err)
			continue
		}
		slices.Sort(ds)
		d := ds[len(ds)/2]
		fmt.Printf("RESULT peak kernel=%q iters=%d ms=%.3f tflops=%.1f compile_ms=%.0f\n", pk.name(), iters, d.Seconds()*1e3, perIter*float64(iters)/d.Seconds()/1e12, compile.Seconds()*1e3)
	}
}

// TestCoop2Device times the workgroup-scope matmul plans beside the
// subgroup kernel's default plan at 8192³ f16 and bf16 and on the skinny
// shapes 1, 16 and 128 x 4096 x 4096 (at most three tiles per workgroup
// size); TestCoop2DeviceCheck checks them.
func TestCoop2Device(t *testing.T) {
	dev := coop2Device(t)
	info := dev.Info()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for _, o := range []coopmat.Options{
		{M: 8192, N: 8192, K: 8192, DType: "f16"}, {M: 8192, N: 8192, K: 8192, DType: "bf16"},
		{M: 1, N: 4096, K: 4096, DType: "f16"}, {M: 16, N: 4096, K: 4096, DType: "f16"}, {M: 128, N: 4096, K: 4096, DType: "f16"},
	} {
		bufs := deviceBufs(t, dev, rng, o)
		def, err := coopmat.Choose(info, o) // the subgroup kernel's default, for comparison
		if err != nil {
			t.Fatal(err)
		}
		timeOne(t, ctx, dev, def, bufs, "warmup", 60, 1)
		timeOne(t, ctx, dev, def, bufs, "subgroup", 3, 10)
		per := map[int]int{}
		for _, p := range coopmat.Coop2Candidates(info, o) {
			if per[p.Threads]++; per[p.Threads] <= 3 {
				timeOne(t, ctx, dev, p, bufs, "workgroup", 3, 10)
			}
		}
		for _, b := range bufs {
			b.Release()
		}
	}
}

// TestCoop2DeviceCheck checks the default workgroup-scope plan against
// float64 on the device (every entry of small products, 1024 sampled
// entries of large ones, relative error < 1e-2) at 17x33x65 (strides not
// 16-byte aligned: the "_ua" staging), 1000³, 4096x4096x1024 and 8192³,
// f16 and bf16, with every output type and both transpositions.
func TestCoop2DeviceCheck(t *testing.T) {
	dev := coop2Device(t)
	info := dev.Info()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	i := 0
	for _, sz := range [][3]int{{17, 33, 65}, {1000, 1000, 1000}, {4096, 4096, 1024}, {8192, 8192, 8192}} {
		for _, dt := range []string{"f16", "bf16"} {
			o := coopmat.Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: []string{"f32", "f16", "bf16"}[i%3], TransB: i%2 == 1}
			if o.TransB {
				o.Scale = 0.5 + rng.Float32()
			}
			i++
			cs := coopmat.Coop2Candidates(info, o)
			if len(cs) == 0 {
				t.Fatalf("%s: no workgroup-scope plan", o)
			}
			p := cs[0]
			e := deviceCheck(t, ctx, dev, rng, p)
			fmt.Printf("RESULT check2 problem=%q plan=%q splits=%d relerr=%.3g\n", o.String(), p.String(), p.Splits, e)
			if !(e < 1e-2) {
				t.Errorf("%s %s: relative error %.3g, want < 1e-2", o, p, e)
			}
		}
	}
}
