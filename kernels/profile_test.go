package kernels_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// TestByKernel: timings add up per kernel, the longest total first, ties
// by name, and timings not yet filled are left out.
func TestByKernel(t *testing.T) {
	ts := []*backend.Timing{
		{Name: "b", Duration: 3 * time.Microsecond, Done: true},
		{Name: "a", Duration: 2 * time.Microsecond, Done: true},
		{Name: "c", Duration: 9 * time.Microsecond, Done: true},
		{Name: "a", Duration: 1 * time.Microsecond, Done: true},
		{Name: "c", Duration: 7 * time.Microsecond},
	}
	want := []kernels.KernelTime{
		{Kernel: "c", Dispatches: 1, Total: 9 * time.Microsecond},
		{Kernel: "a", Dispatches: 2, Total: 3 * time.Microsecond},
		{Kernel: "b", Dispatches: 1, Total: 3 * time.Microsecond},
	}
	if diff := cmp.Diff(want, kernels.ByKernel(ts)); diff != "" {
		t.Errorf("ByKernel (-want +got):\n%s", diff)
	}
}

// TestSetTimedProfiles: a timed op leaves one filled Timing per dispatch
// once read back; after SetTimed(false) nothing more is kept.
func TestSetTimedProfiles(t *testing.T) {
	c := open(t, "vulkan")
	if !c.Device().Info().Timestamps {
		if err := c.SetTimed(true); err == nil {
			t.Fatal("SetTimed(true) on a device without timestamps: no error")
		}
		kctest.Missing(t, "%s has no GPU timestamps", c.Device().Info().Name)
	}
	x := upload(t, c, kctest.Randn(kctest.NewRand(t), 1000, -4, 4), 10, 100)
	if err := c.SetTimed(true); err != nil {
		t.Fatal(err)
	}
	s0 := c.Device().Stats()
	y, err := c.Softmax(x)
	if err != nil {
		t.Fatal(err)
	}
	host(t, y)
	ks := kernels.ByKernel(c.TakeTimings())
	n := c.Device().Stats().Since(s0).Dispatches
	got := 0
	for _, k := range ks {
		got += k.Dispatches
		if k.Total <= 0 {
			t.Errorf("%s: GPU time %v", k.Kernel, k.Total)
		}
	}
	if uint64(got) != n || n == 0 {
		t.Errorf("%d timings, %d dispatches recorded", got, n)
	}
	if err := c.SetTimed(false); err != nil {
		t.Fatal(err)
	}
	y2, err := c.Softmax(x)
	if err != nil {
		t.Fatal(err)
	}
	host(t, y2)
	if ts := c.TakeTimings(); len(ts) != 0 {
		t.Errorf("%d timings kept after SetTimed(false)", len(ts))
	}
}
