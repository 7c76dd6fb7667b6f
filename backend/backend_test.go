package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// fake is a driver that records what package backend asks of it, so the
// generic parts (policy, scopes, pooling, ordering, stats) are tested
// without a GPU. The GPU-backed suite is in backend/wgpu and backend/vulkan.
type fake struct {
	log    []string
	bufs   int
	params []byte // the params block of the last dispatch
}

type fakeBuf struct {
	f    *fake
	id   int
	size int64
}

func (b *fakeBuf) Size() int64 { return b.size }
func (b *fakeBuf) Release()    { b.f.log = append(b.f.log, fmt.Sprintf("release b%d", b.id)) }

type fakePipe struct{}

func (fakePipe) Release() {}

type fakeEnc struct{ f *fake }

func (e *fakeEnc) Dispatch(p PipelineImpl, params []byte, bufs []Range, g [3]uint32) error {
	e.f.params = append(e.f.params[:0], params...)
	ids := make([]string, len(bufs))
	for i, r := range bufs {
		ids[i] = fmt.Sprintf("b%d", r.Buf.(*fakeBuf).id)
	}
	e.f.log = append(e.f.log, "dispatch "+strings.Join(ids, ","))
	return nil
}
func (e *fakeEnc) Copy(src BufferImpl, so int64, dst BufferImpl, do int64, n int64) error {
	e.f.log = append(e.f.log, fmt.Sprintf("copy b%d b%d %d", src.(*fakeBuf).id, dst.(*fakeBuf).id, n))
	return nil
}
func (e *fakeEnc) Timestamp() (int, error) { return 0, nil }
func (e *fakeEnc) Submit(ctx context.Context, reads []Range) (*Result, error) {
	e.f.log = append(e.f.log, fmt.Sprintf("submit %d reads", len(reads)))
	res := &Result{}
	for _, r := range reads {
		res.Reads = append(res.Reads, make([]byte, r.Size))
	}
	return res, nil
}
func (e *fakeEnc) Discard() { e.f.log = append(e.f.log, "discard") }

func (f *fake) Info() AdapterInfo {
	return AdapterInfo{Driver: "fake", Name: "fake", Targets: []Target{WGSL},
		Limits: Limits{MaxBufferSize: 1 << 20, MaxStorageBufferBindingSize: 1 << 20, MinStorageBufferOffsetAlignment: 256, MaxWorkgroupsPerDimension: 65535,
			MaxInvocationsPerWorkgroup: 256, MaxWorkgroupSize: [3]int{256, 256, 64}, MaxSharedMemory: 16384, MaxLoopIterations: 1000}}
}
func (f *fake) NewBuffer(size int64) (BufferImpl, error) {
	f.bufs++
	return &fakeBuf{f: f, id: f.bufs, size: size}, nil
}
func (f *fake) WriteBuffer(b BufferImpl, off int64, data []byte) error {
	f.log = append(f.log, fmt.Sprintf("write b%d", b.(*fakeBuf).id))
	return nil
}
func (f *fake) NewPipeline(ctx context.Context, a *emit.Artifact) (PipelineImpl, error) {
	return fakePipe{}, nil
}
func (f *fake) NewEncoder() (EncoderImpl, error) { return &fakeEnc{f}, nil }
func (f *fake) Wait(ctx context.Context) error   { return nil }
func (f *fake) Close() error                     { return nil }

func newFake(t *testing.T) (*Device, *fake, *Pipeline) {
	f := &fake{}
	d := newDevice(f, f.Info())
	p, err := d.Load(context.Background(), fakeArtifact(WGSL, ir.KernelReflection{Name: "k", Buffers: []ir.BufferReflection{
		{Name: "x", Binding: 1, Access: "read", Stride: 4}, {Name: "y", Binding: 2, Access: "read_write", Stride: 4}}}))
	if err != nil {
		t.Fatal(err)
	}
	return d, f, p
}

// fakeArtifact is a one-kernel artifact named k for target t with
// reflection r and a token body.
func fakeArtifact(t Target, r ir.KernelReflection) *emit.Artifact {
	a := &emit.Artifact{Target: t, Entries: []emit.Entry{{Kernel: "k", Name: "k", Reflection: r}}}
	if t == SPIRV {
		a.Words = []uint32{0x07230203, 0, 0, 0, 0}
	} else {
		a.Code = []byte("x")
	}
	return a
}

// checkLoad loads a WGSL artifact of r on d, its code its own (no
// pipeline cache hit), and checks the outcome: with want "" it loads,
// otherwise Load refuses it with an *ir.UnsupportedError reading want.
func checkLoad(t *testing.T, d *Device, r ir.KernelReflection, want string) {
	t.Helper()
	a := fakeArtifact(WGSL, r)
	a.Code = []byte(r.Name)
	a.Entries[0].Kernel = r.Name
	_, err := d.Load(context.Background(), a)
	var unsup *ir.UnsupportedError
	switch {
	case want == "" && err != nil:
		t.Errorf("%s %v: %v", r.Name, r.Features, err)
	case want != "" && (!errors.As(err, &unsup) || err.Error() != want):
		t.Errorf("%s %v: %v\nwant %s", r.Name, r.Features, err, want)
	}
}

func (f *fake) take() string {
	s := strings.Join(f.log, "; ")
	f.log = nil
	return s
}

func TestScopesSubmitOnce(t *testing.T) {
	d, f, p := newFake(t)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	args := Args{Buffers: []View{x.View(), y.View()}}
	outer := d.Begin()
	inner := d.Begin()
	d.Dispatch(p, args, Groups(1))
	inner.End()
	d.Dispatch(p, args, Groups(1))
	if got := f.take(); got != "dispatch b1,b2; dispatch b1,b2" {
		t.Fatalf("inside scopes: %q", got)
	}
	outer.End()
	if got := f.take(); got != "submit 0 reads" {
		t.Fatalf("outer End: %q", got)
	}
	d.Dispatch(p, args, Groups(1))
	if got := f.take(); got != "dispatch b1,b2; submit 0 reads" {
		t.Fatalf("outside a scope: %q", got)
	}
	d.Dispatch(p, args, Groups(0, 1, 1))
	if got := f.take(); got != "" {
		t.Fatalf("zero groups recorded %q", got)
	}
}

// TestScopeFlushChunks: with SetScopeFlush(2) a scope submits its first 2
// dispatches, then 4, then 8 (nested scopes count as one), the rest at
// the outermost End, and the next scope starts at 2 again; with 0, once.
func TestScopeFlushChunks(t *testing.T) {
	d, f, p := newFake(t)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	args := Args{Buffers: []View{x.View(), y.View()}}
	run := func(n int) string {
		outer := d.Begin()
		for i := 0; i < n; i++ {
			in := d.Begin()
			d.Dispatch(p, args, Groups(1))
			in.End()
		}
		outer.End()
		var out []string
		for _, e := range f.log {
			if e == "submit 0 reads" {
				out = append(out, "S")
			} else {
				out = append(out, "d")
			}
		}
		f.log = nil
		return strings.Join(out, "")
	}
	d.SetScopeFlush(2)
	if d.ScopeFlush() != 2 {
		t.Fatalf("ScopeFlush = %d, want 2", d.ScopeFlush())
	}
	for _, c := range []struct {
		n    int
		want string
	}{{1, "dS"}, {2, "ddS"}, {9, "ddSddddSdddS"}, {6, "ddSddddS"}, {17, "ddSddddSddddddddSdddS"}} {
		if got := run(c.n); got != c.want {
			t.Errorf("%d dispatches, first chunk 2: %s, want %s", c.n, got, c.want)
		}
		if got, want := ScopeSubmits(c.n, 2), strings.Count(c.want, "S"); got != want {
			t.Errorf("ScopeSubmits(%d, 2) = %d, want %d", c.n, got, want)
		}
	}
	d.SetScopeFlush(0)
	if got := run(9); got != "dddddddddS" {
		t.Errorf("9 dispatches, no early submits: %s", got)
	}
	for _, c := range [][3]int{{0, 0, 0}, {0, 4, 0}, {5, 0, 1}, {3, 4, 1}, {4, 4, 1}, {5, 4, 2}, {12, 4, 2}, {13, 4, 3}, {4000, 1024, 4}} {
		if got := ScopeSubmits(c[0], c[1]); got != c[2] {
			t.Errorf("ScopeSubmits(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

// TestRecycledWriteFlushes: a host write into a pooled buffer that recorded
// work still uses (under its previous owner) submits that work first.
func TestRecycledWriteFlushes(t *testing.T) {
	d, f, p := newFake(t)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	s := d.Begin()
	d.Dispatch(p, Args{Buffers: []View{x.View(), y.View()}}, Groups(1))
	x.Release()
	x2, _ := d.Alloc(64)
	f.take()
	x2.Write(0, make([]byte, 64))
	if got := f.take(); got != "submit 0 reads; write b1" {
		t.Fatalf("write into a recycled buffer: %q", got)
	}
	// A fresh upload needs no flush.
	d.Dispatch(p, Args{Buffers: []View{x2.View(), y.View()}}, Groups(1))
	d.Upload(make([]byte, 64))
	if got := f.take(); got != "dispatch b1,b2; write b3" {
		t.Fatalf("upload inside a scope: %q", got)
	}
	// A non-pooled buffer released while recorded work uses it is freed
	// only after the submit.
	z, _ := d.AllocZeroed(64)
	d.Dispatch(p, Args{Buffers: []View{x2.View(), z.View()}}, Groups(1))
	z.Release()
	if got := f.take(); got != "dispatch b1,b4" {
		t.Fatalf("release of a recorded buffer: %q", got)
	}
	s.End()
	if got := f.take(); got != "submit 0 reads; release b4" {
		t.Fatalf("End: %q", got)
	}
}

func TestReadFlushesAndBatches(t *testing.T) {
	d, f, p := newFake(t)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	s := d.Begin()
	defer s.End()
	d.Dispatch(p, Args{Buffers: []View{x.View(), y.View()}}, Groups(1))
	out, err := d.ReadMany(context.Background(), y.View(), y.Slice(4, 6), x.View())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.take(); got != "dispatch b1,b2; submit 3 reads" {
		t.Fatalf("ReadMany in a scope: %q", got)
	}
	if len(out) != 3 || len(out[1]) != 6 {
		t.Fatalf("read sizes %d", len(out))
	}
	if _, err := d.Read(context.Background(), x.Slice(2, 4)); err == nil || err.Error() != "backend: read 0: offset 2 is not a multiple of 4" {
		t.Fatalf("misaligned read: %v", err)
	}
}

func TestGraphAndCopy(t *testing.T) {
	d, f, p := newFake(t)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	z, _ := d.Alloc(64)
	err := d.Run(
		&DispatchOp{p, Args{Buffers: []View{x.View(), y.View()}}, Groups(1)},
		&CopyOp{Dst: z.View(), Src: y.View()},
		&DispatchOp{p, Args{Buffers: []View{z.View(), x.View()}}, Groups(1)},
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.take(); got != "dispatch b1,b2; copy b2 b3 64; dispatch b3,b1; submit 0 reads" {
		t.Fatalf("graph: %q", got)
	}
	err = d.Copy(y.Slice(0, 32), y.Slice(16, 32))
	var be *BindError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlapping copy: %v", err)
	}
}

func TestPersist(t *testing.T) {
	d, _, _ := newFake(t)
	a, err := d.Persist(make([]byte, 100))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.Persist(make([]byte, 8))
	if a.Buf != b.Buf || b.Off != 256 || d.PersistentBytes() != 108 {
		t.Fatalf("persistent views %v %v, %d bytes", a, b, d.PersistentBytes())
	}
	d.ClearPersistent()
	if d.PersistentBytes() != 0 {
		t.Fatal("ClearPersistent left bytes")
	}
}

func TestPolicy(t *testing.T) {
	as := []AdapterInfo{
		{Index: 0, Driver: "vulkan", DriverIndex: 0, Name: "llvmpipe", Type: TypeCPU},
		{Index: 1, Driver: "vulkan", DriverIndex: 1, Name: "NVIDIA H200", Type: TypeDiscrete},
		{Index: 2, Driver: "wgpu", DriverIndex: 0, Name: "NVIDIA H200", API: "Vulkan", Type: TypeDiscrete},
		{Index: 3, Driver: "wgpu", DriverIndex: 1, Name: "llvmpipe", API: "OpenGL", Type: TypeCPU},
		{Index: 4, Driver: "wgpu", DriverIndex: 2, Name: "llvmpipe", API: "Vulkan", Type: TypeCPU},
	}
	if got := Choose(as); got != 1 {
		t.Errorf("Choose without coopmat = %d, want the discrete Vulkan adapter 1", got)
	}
	as[1].CoopMat = []CoopMatShape{{M: 16, N: 16, K: 16}}
	as[0].CoopMat = []CoopMatShape{{M: 16, N: 16, K: 16}}
	if got := Choose(as); got != 1 {
		t.Errorf("Choose with coopmat = %d, want 1 (discrete before cpu)", got)
	}
	if got := Choose(as[3:]); got != 1 {
		t.Errorf("Choose among wgpu cpu adapters = %d, want the Vulkan one", got)
	}
	for sel, want := range map[string]int{"": 1, "2": 2, "wgpu": 2, "wgpu:1": 3, "vulkan:0": 0, "H200": 1, "LLVMPIPE": 0} {
		if got, err := Select(as, sel); got != want || err != nil {
			t.Errorf("Select(%q) = %d, %v; want %d", sel, got, err, want)
		}
	}
	for sel, msg := range map[string]string{
		"9":       "backend: device 9 out of range (have 5 adapters)",
		"wgpu:x":  `backend: bad device selector "wgpu:x" (want DRIVER:N)`,
		"metal:0": `backend: no adapter 0 for driver "metal"`,
		"radeon":  `backend: no adapter matches device selector "radeon"`,
	} {
		if _, err := Select(as, sel); err == nil || err.Error() != msg {
			t.Errorf("Select(%q): %v, want %s", sel, err, msg)
		}
	}
}

func TestStatsSince(t *testing.T) {
	a := Stats{Dispatches: 10, Submits: 3, BytesUp: 100, PoolHits: 2}
	b := Stats{Dispatches: 25, Submits: 4, BytesUp: 164, PoolHits: 2, Compiles: 1}
	want := Stats{Dispatches: 15, Submits: 1, BytesUp: 64, Compiles: 1}
	if got := b.Since(a); got != want {
		t.Fatalf("Since = %v, want %v", got, want)
	}
}

func TestLoadRefusals(t *testing.T) {
	d, _, _ := newFake(t)
	ctx := context.Background()
	_, err := d.Load(ctx, fakeArtifact(SPIRV, ir.KernelReflection{Name: "k"}))
	if err == nil || !strings.Contains(err.Error(), "does not accept spirv artifacts") {
		t.Errorf("wrong target: %v", err)
	}
	_, err = d.Load(ctx, fakeArtifact(WGSL, ir.KernelReflection{Name: "k", Features: []string{"f16"}}))
	if err == nil || err.Error() != "f16 is not supported by target fake wgsl on fake" {
		t.Errorf("missing feature: %v", err)
	}
	two := fakeArtifact(WGSL, ir.KernelReflection{Name: "k"})
	two.Entries = append(two.Entries, emit.Entry{Kernel: "j", Name: "j"})
	_, err = d.Load(ctx, two)
	if err == nil || err.Error() != "backend: load: the artifact holds 2 kernels; load one (emit.Artifact.Only)" {
		t.Errorf("two kernels: %v", err)
	}
	one, err := two.Only("j")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := d.Load(ctx, one); err != nil || p.Name() != "j" {
		t.Errorf("Only(j): %v, %v", p, err)
	}
	// The fake device allows 256 invocations and 256x256x64.
	wg := func(name string, size [3]int, code string) *emit.Artifact {
		a := fakeArtifact(WGSL, ir.KernelReflection{Name: name, Workgroup: size})
		a.Entries[0].Kernel, a.Code = name, []byte(code)
		return a
	}
	_, err = d.Load(ctx, wg("big", [3]int{32, 32, 1}, "x"))
	var unsup *ir.UnsupportedError
	if want := `kernel big's workgroup size 32x32x1 = 1024 invocations (the device's MaxInvocationsPerWorkgroup is 256) is not supported by target fake wgsl on fake`; !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("workgroup over the device limit: %v\nwant %s", err, want)
	}
	_, err = d.Load(ctx, wg("deep", [3]int{1, 1, 128}, "x"))
	if want := `kernel deep's workgroup size z = 128 (the device's MaxWorkgroupSize[2] is 64) is not supported by target fake wgsl on fake`; !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("workgroup z over the device limit: %v\nwant %s", err, want)
	}
	if _, err = d.Load(ctx, wg("ok", [3]int{16, 16, 1}, "y")); err != nil {
		t.Errorf("workgroup at the device limit: %v", err)
	}
	// The fake device allows 16384 bytes of shared memory; each variable
	// counts rounded up to 16 bytes, as ir's checker counts it.
	sh := func(name string, sizes ...int) *emit.Artifact {
		a := wg(name, [3]int{64, 1, 1}, name)
		for i, n := range sizes {
			a.Entries[0].Reflection.Shared = append(a.Entries[0].Reflection.Shared, ir.SharedReflection{Name: fmt.Sprint("s", i), Size: n})
		}
		return a
	}
	_, err = d.Load(ctx, sh("wide", 16000, 385))
	if want := `kernel wide's 16400 bytes of shared memory (the device's MaxSharedMemory is 16384) is not supported by target fake wgsl on fake`; !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("shared memory over the device limit: %v\nwant %s", err, want)
	}
	_, err = d.Load(ctx, sh("rounded", 16376, 4))
	if want := `kernel rounded's 16400 bytes of shared memory (the device's MaxSharedMemory is 16384) is not supported by target fake wgsl on fake`; !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("shared memory over the limit after rounding: %v\nwant %s", err, want)
	}
	if _, err = d.Load(ctx, sh("full", 16000, 384)); err != nil {
		t.Errorf("shared memory at the device limit: %v", err)
	}
}

func TestTypedHelpers(t *testing.T) {
	xs := []float32{1, -2.5, float32(math.Inf(1)), 3e-9}
	if got := BytesF32(F32Bytes(xs)); fmt.Sprint(got) != fmt.Sprint(xs) {
		t.Fatalf("round trip %v", got)
	}
	if F32(1) != 0x3f800000 || I32(-1) != 0xffffffff {
		t.Fatal("param words")
	}
}

func TestSupports(t *testing.T) {
	a := AdapterInfo{F16: true}
	if !Supports(a, ir.FeatureF16) || Supports(a, ir.FeatureF16|ir.FeatureSubgroups) || !Supports(a, 0) {
		t.Fatal("Supports")
	}
	if Supports(a, ir.FeatureCoopMat) || !Supports(AdapterInfo{CoopMat: []CoopMatShape{{}}}, ir.FeatureCoopMat) {
		t.Fatal("Supports coopmat")
	}
}

// TestHiddenNumWorkgroups: a kernel that reads num_workgroups has a hidden
// uint3 at the end of its params block (ir.NumWorkgroupsOffset) that
// Dispatch fills with the group counts.
func TestHiddenNumWorkgroups(t *testing.T) {
	f := &fake{}
	d := newDevice(f, f.Info())
	r := ir.KernelReflection{Name: "k", Workgroup: [3]int{64, 1, 1}, Params: &ir.ParamsReflection{Size: 32,
		Fields: []ir.FieldReflection{{Name: "a", Offset: 0, Size: 4}, {Name: "n", Offset: 4, Size: 4}}, NumWorkgroups: new(16)}}
	a := fakeArtifact(WGSL, r)
	a.Code = []byte("g")
	p, err := d.Load(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, Args{Params: []uint32{7, 9}}, Groups(3, 4, 5)); err != nil {
		t.Fatal(err)
	}
	want := []byte{7, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}
	if string(f.params) != string(want) {
		t.Errorf("params block % x\nwant % x", f.params, want)
	}
	// A replayed graph writes the field too, after SetParams as well.
	g, err := d.Record(&DispatchOp{p, Args{Params: []uint32{1, 2}}, Groups(6, 1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetParams(0, 5, 6); err != nil {
		t.Fatal(err)
	}
	if err := g.Replay(context.Background()); err != nil {
		t.Fatal(err)
	}
	want = []byte{5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	if string(f.params) != string(want) {
		t.Errorf("replayed params block % x\nwant % x", f.params, want)
	}
}

// TestLoopBudgetReported: a driver's MaxLoopIterations reaches the
// Device's Info and survives the JSON form kc devices -json writes.
func TestLoopBudgetReported(t *testing.T) {
	d, _, _ := newFake(t)
	if got := d.Info().Limits.MaxLoopIterations; got != 1000 {
		t.Fatalf("MaxLoopIterations %d, want the fake's 1000", got)
	}
	b, err := json.Marshal(d.Info())
	if err != nil {
		t.Fatal(err)
	}
	var back AdapterInfo
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Limits.MaxLoopIterations != 1000 {
		t.Fatalf("after JSON: MaxLoopIterations %d, want 1000 (%s)", back.Limits.MaxLoopIterations, b)
	}
}
