package kernels

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/golden"
)

// TestDecodePlanGolden keeps, in testdata/golden/decode_plan.txt, the
// split-key partial kernel (splitPart: file, kernel, keys a workgroup,
// specialisation or the tensor-core kernel's configuration) that the
// default tunings choose over f32, f16 and bf16 caches for decode shapes
// on two device descriptions: an H200-like one (subgroups of 32, KHR
// cooperative matrices of f16 16x16x16 and 16x8x16 and bf16 16x16x16, 48
// KiB of shared memory) and a lavapipe-like one (subgroups of 8, no
// cooperative matrices, 32 KiB). A change to the defaults or to the
// choice shows as a diff of what runs where (go test ./kernels -update to
// accept it).
func TestDecodePlanGolden(t *testing.T) {
	lim := backend.Limits{MaxBufferSize: 1 << 40, MaxStorageBufferBindingSize: 1 << 40, MaxInvocationsPerWorkgroup: 1024,
		MaxWorkgroupSize: [3]int{1024, 1024, 64}, MaxWorkgroupsPerDimension: 65535, MaxSharedMemory: 48 << 10}
	cm := func(a string, n int) backend.CoopMatShape {
		return backend.CoopMatShape{M: 16, N: n, K: 16, A: a, B: a, C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}
	}
	h200 := backend.AdapterInfo{Name: "H200-like", Type: backend.TypeDiscrete, Targets: []backend.Target{backend.SPIRV}, Limits: lim,
		F16: true, BF16: true, Subgroups: true, SubgroupSize: 32, CoopMat: []backend.CoopMatShape{cm("f16", 16), cm("f16", 8), cm("bf16", 16)}}
	lav := h200
	lav.Name, lav.Type, lav.CoopMat, lav.SubgroupSize = "lavapipe-like", backend.TypeCPU, nil, 8
	lav.Limits.MaxSharedMemory, lav.Limits.MaxLoopIterations = 32<<10, backend.LLVMPipeLoopIterations
	shapes := []struct{ tq, s, hq, hkv, dh int }{
		{1, 32768, 32, 8, 128}, {4, 32768, 32, 8, 128}, {1, 32768, 8, 8, 128}, {1, 32768, 32, 8, 64}, {1, 32768, 32, 8, 256},
		{1, 32768, 32, 2, 128}, {1, 1000, 64, 2, 128}, {3, 777, 3, 1, 96}, {1, 4097, 16, 2, 32},
	}
	var b strings.Builder
	for _, info := range []backend.AdapterInfo{h200, lav} {
		c := New(planDevice(t, info))
		for _, d := range []DType{F32, F16, BF16} {
			for _, sh := range shapes {
				fmt.Fprintf(&b, "%s %s tq %d s %d heads %d/%d of %d: %s\n", info.Name, d, sh.tq, sh.s, sh.hq, sh.hkv, sh.dh,
					planString(c.splitPart(d, sh.tq, sh.s, sh.hq, sh.hkv, sh.dh)))
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "golden", "decode_plan.txt"), []byte(b.String()))
}

// planString is a choice as TestDecodePlanGolden writes it.
func planString(p splitChoice) string {
	switch {
	case p.isTC:
		return fmt.Sprintf("decodetc.go span %d %+v", p.span, p.tc)
	case p.defs == nil:
		return "none"
	}
	var kv []string
	for k, v := range p.defs {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return fmt.Sprintf("%s %s span %d %s", p.file, p.kernel, p.span, strings.Join(kv, " "))
}

// planDriver is a driver whose one adapter, listed only while planInfo is
// set (other tests enumerate no such adapter), is described by planInfo
// and does nothing but describe itself: planning reads the device's
// description only.
type planDriver struct{}

var (
	planOnce sync.Once
	planInfo atomic.Pointer[backend.AdapterInfo]
)

// planDevice opens a device described by info on planDriver.
func planDevice(t *testing.T, info backend.AdapterInfo) *backend.Device {
	planOnce.Do(func() { backend.Register(planDriver{}) })
	info.Driver = planDriver{}.Name()
	planInfo.Store(&info)
	defer planInfo.Store(nil)
	d, err := backend.OpenAdapter(context.Background(), info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

var errPlanOnly = errors.New("kernels: plan-only test device")

func (planDriver) Name() string { return "kernels-plan-test" }
func (planDriver) Adapters(context.Context) ([]backend.AdapterInfo, error) {
	if p := planInfo.Load(); p != nil {
		return []backend.AdapterInfo{*p}, nil
	}
	return nil, nil
}
func (planDriver) Open(context.Context, int) (backend.DeviceImpl, error) {
	if p := planInfo.Load(); p != nil {
		return planDev{*p}, nil
	}
	return nil, errPlanOnly
}

type planDev struct{ info backend.AdapterInfo }

func (d planDev) Info() backend.AdapterInfo                         { return d.info }
func (planDev) NewBuffer(int64) (backend.BufferImpl, error)         { return nil, errPlanOnly }
func (planDev) WriteBuffer(backend.BufferImpl, int64, []byte) error { return errPlanOnly }
func (planDev) NewEncoder() (backend.EncoderImpl, error)            { return nil, errPlanOnly }
func (planDev) Wait(context.Context) error                          { return nil }
func (planDev) Close() error                                        { return nil }
func (planDev) NewPipeline(context.Context, *emit.Artifact) (backend.PipelineImpl, error) {
	return nil, errPlanOnly
}
