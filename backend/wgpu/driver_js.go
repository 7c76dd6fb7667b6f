package wgpu

// The browser side of the wgpu driver (GOOS=js GOARCH=wasm): the same
// driver name and the same WGSL, over the JavaScript half of
// github.com/cogentcore/webgpu, which calls navigator.gpu. That half is
// thin and in places incomplete, so this side reaches the JavaScript
// objects directly (jsOf) where it must:
//   - adapter and device requests: the binding passes required features as
//     numbers (WebGPU wants names), ignores required limits and reports no
//     adapter info or features;
//   - errors: it has no error scopes and no compilation messages, so
//     pipelines are built inside a validation error scope, Tint's messages
//     come from getCompilationInfo, and uncaptured errors and device loss
//     are recorded from the device's events and checked at every submit;
//   - readback: its MapAsync reports success when the map fails, and its
//     WriteBuffer needs a global `wasm` variable the page must set; both
//     are done on the objects here;
//   - no query sets: timestamps (timestamp-query) are written by empty
//     compute passes with timestampWrites, created on the objects here;
//   - its pass methods build Go slices and JavaScript arrays per call, so
//     dispatches are recorded on the pass object directly (6.6-6.9 -> 2.7-3.1
//     us per dispatch recorded, A/B on 2026-12-01, browsertest
//     TestDispatchChain).
// Blocking calls park the goroutine on a promise (promise_js.go).

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"syscall/js"

	"github.com/kcgo/kc/backend"
)

func init() {
	backend.Register(driver{})
}

// driver is the backend.Driver for wgpu.
type driver struct{}

func (driver) Name() string { return "wgpu" }

var (
	instOnce sync.Once
	instErr  error
	infos    []backend.AdapterInfo
)

// gpu returns navigator.gpu, or an error saying the browser lacks WebGPU.
func gpu() (js.Value, error) {
	nav := js.Global().Get("navigator")
	if !nav.Truthy() || !nav.Get("gpu").Truthy() {
		return js.Undefined(), errors.New("wgpu: navigator.gpu is undefined: this browser offers no WebGPU (docs/browser.md lists browsers and flags)")
	}
	return nav.Get("gpu"), nil
}

// requestAdapter asks the browser for its adapter. WebGPU adapters are
// single-use (one device each), so every Open requests a fresh one.
func requestAdapter(ctx context.Context) (js.Value, error) {
	g, err := gpu()
	if err != nil {
		return js.Undefined(), err
	}
	a, err := await(ctx, g.Call("requestAdapter"))
	if err != nil {
		return js.Undefined(), fmt.Errorf("wgpu: requestAdapter: %w", err)
	}
	if !a.Truthy() {
		return js.Undefined(), errors.New("wgpu: navigator.gpu.requestAdapter found no adapter")
	}
	return a, nil
}

func (driver) Adapters(ctx context.Context) ([]backend.AdapterInfo, error) {
	instOnce.Do(func() {
		a, err := requestAdapter(ctx)
		if err != nil {
			instErr = err
			return
		}
		infos = []backend.AdapterInfo{describe(a)}
	})
	if instErr != nil {
		return nil, instErr
	}
	return append([]backend.AdapterInfo(nil), infos...), nil
}

func (d driver) Open(ctx context.Context, index int) (backend.DeviceImpl, error) {
	if _, err := d.Adapters(ctx); err != nil {
		return nil, err
	}
	if index != 0 {
		return nil, fmt.Errorf("wgpu: no adapter %d (have 1)", index)
	}
	a, err := requestAdapter(ctx)
	if err != nil {
		return nil, err
	}
	return open(ctx, a, describe(a))
}

// describe fills an AdapterInfo from a GPUAdapter: its info, features and
// limits.
func describe(a js.Value) backend.AdapterInfo {
	info := a.Get("info")
	str := func(k string) string {
		if !info.Truthy() || info.Get(k).Type() != js.TypeString {
			return ""
		}
		return info.Get(k).String()
	}
	num := func(k string) int {
		if !info.Truthy() || info.Get(k).Type() != js.TypeNumber {
			return 0
		}
		return info.Get(k).Int()
	}
	name := str("description")
	if name == "" {
		name = str("vendor") + " " + str("architecture")
	}
	typ := backend.TypeUnknown
	if str("architecture") == "swiftshader" || info.Truthy() && info.Get("isFallbackAdapter").Truthy() {
		typ = backend.TypeCPU
	}
	feats := featureNames(a)
	has := func(f string) bool { i := sort.SearchStrings(feats, f); return i < len(feats) && feats[i] == f }
	ua := js.Global().Get("navigator").Get("userAgent").String()
	out := backend.AdapterInfo{
		Name:        name,
		API:         "WebGPU",
		Type:        typ,
		DriverInfo:  fmt.Sprintf("browser WebGPU (vendor %q, architecture %q) in %s", str("vendor"), str("architecture"), ua),
		Targets:     []backend.Target{backend.WGSL},
		Limits:      limitsOf(a.Get("limits")),
		F16:         has("shader-f16"),
		Subgroups:   has("subgroups"),
		SubgroupMin: num("subgroupMinSize"),
		SubgroupMax: num("subgroupMaxSize"),
		Extensions:  feats,
		Timestamps:  has("timestamp-query"),
		TimestampNs: 1, // WebGPU timestamps are nanoseconds
	}
	if out.SubgroupMin > 0 && out.SubgroupMin == out.SubgroupMax {
		out.SubgroupSize = out.SubgroupMin // the only size there is
	}
	return out
}

// featureNames returns the names of a GPUAdapter's or GPUDevice's features,
// sorted.
func featureNames(v js.Value) []string {
	var out []string
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		out = append(out, args[0].String())
		return nil
	})
	defer f.Release()
	v.Get("features").Call("forEach", f)
	sort.Strings(out)
	return out
}

func limitsOf(l js.Value) backend.Limits {
	n := func(k string) int64 {
		if v := l.Get(k); v.Type() == js.TypeNumber {
			return int64(v.Float())
		}
		return 0 // not reported by this browser
	}
	return backend.Limits{
		MaxBufferSize:                   n("maxBufferSize"),
		MaxStorageBufferBindingSize:     n("maxStorageBufferBindingSize"),
		MaxUniformBufferBindingSize:     n("maxUniformBufferBindingSize"),
		MaxStorageBuffersPerStage:       int(n("maxStorageBuffersPerShaderStage")),
		MinStorageBufferOffsetAlignment: n("minStorageBufferOffsetAlignment"),
		MinUniformBufferOffsetAlignment: n("minUniformBufferOffsetAlignment"),
		MaxWorkgroupSize:                [3]int{int(n("maxComputeWorkgroupSizeX")), int(n("maxComputeWorkgroupSizeY")), int(n("maxComputeWorkgroupSizeZ"))},
		MaxInvocationsPerWorkgroup:      int(n("maxComputeInvocationsPerWorkgroup")),
		MaxWorkgroupsPerDimension:       uint32(n("maxComputeWorkgroupsPerDimension")),
		MaxSharedMemory:                 int(n("maxComputeWorkgroupStorageSize")),
	}
}

// computeLimits are the limits a device is requested with at the
// adapter's values (WebGPU's defaults are lower: 128 MiB storage bindings,
// 16 KiB of workgroup memory).
var computeLimits = []string{
	"maxBufferSize", "maxStorageBufferBindingSize", "maxUniformBufferBindingSize",
	"maxStorageBuffersPerShaderStage", "maxComputeWorkgroupStorageSize",
	"maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
	"maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ", "maxComputeWorkgroupsPerDimension",
}
