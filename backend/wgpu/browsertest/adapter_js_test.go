package browsertest

import (
	"slices"
	"syscall/js"
	"testing"
)

// TestAdapterInfo checks what the driver reports against the adapter the
// page gets from navigator.gpu directly.
func TestAdapterInfo(t *testing.T) {
	d := device(t)
	info := d.Info()
	t.Logf("device: %s; %s; features %v; subgroup sizes %d..%d; limits %+v", info, info.DriverInfo, info.Extensions, info.SubgroupMin, info.SubgroupMax, info.Limits)
	a := adapter(t)
	feats := featureNames(a)
	if got, want := info.F16, slices.Contains(feats, "shader-f16"); got != want {
		t.Errorf("AdapterInfo.F16 = %v; the adapter's features %v", got, feats)
	}
	if got, want := info.Subgroups, slices.Contains(feats, "subgroups"); got != want {
		t.Errorf("AdapterInfo.Subgroups = %v; the adapter's features %v", got, feats)
	}
	if got, want := info.Timestamps, slices.Contains(feats, "timestamp-query"); got != want {
		t.Errorf("AdapterInfo.Timestamps = %v; the adapter's features %v", got, feats)
	}
	if info.Driver != "wgpu" || info.API != "WebGPU" || len(info.Targets) != 1 {
		t.Errorf("driver %q, API %q, targets %v; want wgpu, WebGPU, [wgsl]", info.Driver, info.API, info.Targets)
	}
	if ai := a.Get("info"); ai.Get("subgroupMinSize").Type() == js.TypeNumber {
		lo, hi := ai.Get("subgroupMinSize").Int(), ai.Get("subgroupMaxSize").Int()
		if info.SubgroupMin != lo || info.SubgroupMax != hi || (lo == hi) != (info.SubgroupSize == lo) {
			t.Errorf("subgroup sizes %d..%d (size %d); the adapter says %d..%d", info.SubgroupMin, info.SubgroupMax, info.SubgroupSize, lo, hi)
		}
	}
	l := a.Get("limits")
	if got, want := info.Limits.MaxSharedMemory, l.Get("maxComputeWorkgroupStorageSize").Int(); got != want {
		t.Errorf("MaxSharedMemory = %d; the adapter offers %d and the device is requested with it", got, want)
	}
	if got, want := info.Limits.MaxStorageBufferBindingSize, int64(l.Get("maxStorageBufferBindingSize").Float()); got != want {
		t.Errorf("MaxStorageBufferBindingSize = %d; the adapter offers %d", got, want)
	}
}

// adapter requests a GPUAdapter from navigator.gpu.
func adapter(t testing.TB) js.Value {
	t.Helper()
	gpu := js.Global().Get("navigator").Get("gpu")
	if !gpu.Truthy() {
		t.Fatal("navigator.gpu is undefined")
	}
	a := await(t, gpu.Call("requestAdapter"))
	if !a.Truthy() {
		t.Fatal("requestAdapter found no adapter")
	}
	return a
}

func featureNames(v js.Value) []string {
	var out []string
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		out = append(out, args[0].String())
		return nil
	})
	defer f.Release()
	v.Get("features").Call("forEach", f)
	slices.Sort(out)
	return out
}

// await waits for a promise; a rejection fails the test.
func await(t testing.TB, p js.Value) js.Value {
	t.Helper()
	ch := make(chan js.Value, 1)
	var rejected js.Value
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any { ch <- args[0]; return nil })
	fail := js.FuncOf(func(_ js.Value, args []js.Value) any { rejected = args[0]; ch <- js.Null(); return nil })
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	v := <-ch
	if !rejected.IsUndefined() {
		t.Fatalf("promise rejected: %v", rejected.Call("toString").String())
	}
	return v
}
