//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/wgpu" // the other driver, opened beside this one
	"github.com/kcgo/kc/internal/kctest"
)

// TestEveryAdapterAtOnce opens every adapter of both drivers in one process
// (lavapipe through the Vulkan driver and through wgpu, here) and runs a
// dependent chain of kc's add1 kernel on each device from its own
// goroutine, all at once; every device's result is checked.
func TestEveryAdapterAtOnce(t *testing.T) {
	ctx := context.Background()
	devs, err := backend.OpenAll(ctx)
	if err != nil {
		t.Logf("some adapters did not open: %v", err)
	}
	defer func() {
		for _, d := range devs {
			if err := d.Close(); err != nil {
				t.Error(err)
			}
		}
	}()
	drivers := map[string]int{}
	for _, d := range devs {
		drivers[d.Info().Driver]++
	}
	t.Logf("%d devices open: %v", len(devs), drivers)
	if drivers["vulkan"] == 0 || drivers["wgpu"] == 0 {
		kctest.Missing(t, "need a device of each driver (lavapipe serves both), have %v", drivers)
	}
	const n, chain = 4096, 200
	type span struct{ start, end time.Time }
	spans := make([]span, len(devs))
	errs := make([]error, len(devs))
	var start sync.WaitGroup
	start.Add(1)
	pipes := make([]*backend.Pipeline, len(devs))
	for i, d := range devs {
		pipes[i] = loadAdd1(t, d)
	}
	var wg sync.WaitGroup
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := pipes[i]
			x := make([]float32, n)
			for j := range x {
				x[j] = float32(rand.IntN(1000))
			}
			buf, err := d.Upload(f32bytes(x))
			if err != nil {
				errs[i] = err
				return
			}
			start.Wait()
			spans[i].start = time.Now()
			for rep := 0; rep < 3; rep++ {
				err = d.Do(func() error {
					for k := 0; k < chain; k++ {
						if err := d.Dispatch(p, backend.Args{Params: []uint32{n}, Buffers: []backend.View{buf.View()}}, backend.Groups(n/64)); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs[i] = err
					return
				}
			}
			got, err := d.Read(ctx, buf.View())
			spans[i].end = time.Now()
			if err != nil {
				errs[i] = err
				return
			}
			for j, v := range bytesF32(got) {
				if v != x[j]+3*chain {
					errs[i] = fmt.Errorf("%s: x[%d] = %g, want %g", d.Info(), j, v, x[j]+3*chain)
					return
				}
			}
		}()
	}
	start.Done()
	wg.Wait()
	for i, d := range devs {
		if errs[i] != nil {
			t.Errorf("%s: %v", d.Info(), errs[i])
			continue
		}
		t.Logf("%s: %v .. %v", d.Info(), spans[i].start.Sub(spans[0].start), spans[i].end.Sub(spans[0].start))
	}
}
