//go:build !js

package wgpu

import (
	"errors"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// FromDevice returns a backend.Device running on a wgpu device that a host
// program created (the seeds' from_device), with the device's own queue.
// kc inherits the device exactly and never widens it: its limits are the
// ones the device was created with (dev.GetLimits, not the adapter's), and
// timestamps are used only when the device has the feature. adapter, when
// not nil, names the device in Info. Close releases what kc created and
// its queue reference; the device stays the host's. Validation errors
// outside kc's calls go to the host's uncaptured-error handler, not kc's
// (kc checks what it records before submitting it).
func FromDevice(dev *wgpu.Device, adapter *wgpu.Adapter) (*backend.Device, error) {
	if dev == nil {
		return nil, errors.New("wgpu: FromDevice of a nil device")
	}
	info := backend.AdapterInfo{Name: "wgpu device of the host program", Targets: []backend.Target{backend.WGSL, backend.SPIRV}, TimestampNs: 1}
	if adapter != nil {
		info = describe(adapter, -1)
	}
	info.Driver, info.DriverIndex = "wgpu", -1
	info.Limits = deviceLimits(info.Limits, dev.GetLimits().Limits)
	info.Timestamps = dev.HasFeature(wgpu.FeatureNameTimestampQuery)
	d := &device{
		info:     info,
		dev:      dev,
		queue:    dev.GetQueue(),
		slot:     max(info.Limits.MinUniformBufferOffsetAlignment, 16),
		bgs:      map[bgKey]*wgpu.BindGroup{},
		bgByBuf:  map[*wgpu.Buffer][]bgKey{},
		borrowed: true,
	}
	return backend.Wrap(d), nil
}
