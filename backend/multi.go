package backend

import (
	"context"
	"errors"
)

// OpenAll opens every adapter of every registered driver (the seeds'
// "enumerate, so the scheduler can use all of them"). Devices are
// independent: work on different devices, each driven from its own
// goroutines, runs concurrently. An adapter that fails to open is left out
// and its error joined into the returned error; the devices that opened
// are returned either way, in adapter order.
func OpenAll(ctx context.Context) ([]*Device, error) {
	as, err := Adapters(ctx)
	errs := []error{err}
	var out []*Device
	for _, a := range as {
		d, err := OpenAdapter(ctx, a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

// Wrap makes a Device of a DeviceImpl that a driver built outside
// Adapters and Open: on a device a host program created and shares with
// kc (vulkan.FromHost). The device's Info is impl.Info(), with Index -1
// (it is not among Adapters). Close releases what kc created; the driver
// decides what of the host's it leaves alone.
func Wrap(impl DeviceImpl) *Device {
	info := impl.Info()
	info.Index = -1
	return newDevice(impl, info)
}
