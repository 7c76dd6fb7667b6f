// Command convbench settles whether widening 16-bit floats to f32 costs
// more than the bytes it saves on a device: the stream kernels of conv.kc
// each read the same buffer (256 MiB by default) and reduce it, differing
// only in how a 16-byte word becomes numbers (four f32; four u32 summed as
// integers; eight f16 by unpack2x16float, by integer ops and a multiply,
// by integer ops with a separate subnormal path, by a conversion of
// vec4<f16>; vec4<f16> and scalar f16 loads; eight bf16 by shifts). It
// first widens all 65,536 halves on the device by every method and counts
// the results that differ from IEEE binary16 (bit for bit; NaN payloads
// counted apart), then checks each kernel's sum against float64 (u32: the
// exact sum modulo 2^32) and times it: the median of GPU-timestamped
// dispatches and the wall time of -wall dispatches in one submit, in
// -passes interleaved passes. GB/s are over the buffer's bytes.
//
//	KC_DEVICE=vulkan convbench [-mib 256] [-groups 2048] [-reps 20] [-wall 30] [-passes 2]
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
)

func main() {
	mib := flag.Int("mib", 256, "MiB streamed by each kernel")
	groups := flag.Int("groups", 2048, "workgroups of 256 invocations")
	reps := flag.Int("reps", 20, "GPU-timestamped dispatches a figure (after 3 warm-ups)")
	wall := flag.Int("wall", 30, "dispatches in one submit for the wall-time figure")
	passes := flag.Int("passes", 2, "interleaved passes over the variants")
	flag.Parse()
	if err := run(*mib, *groups, *reps, *wall, *passes); err != nil {
		fmt.Fprintln(os.Stderr, "convbench:", err)
		os.Exit(1)
	}
}

func run(mib, groups, reps, wall, passes int) error {
	ctx := context.Background()
	d, err := backend.Open(ctx, "")
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Printf("device: %s\n", d.Info())
	failed := false
	for mode, name := range widenModes {
		r, err := WidenDevice(ctx, d, mode)
		if err != nil {
			return err
		}
		fmt.Printf("RESULT widen %-7s %s\n", name, r)
		failed = failed || r.Bad > 0
	}
	n := mib << 20 / 16
	t0 := time.Now()
	data := StreamData(n, time.Now().UnixNano())
	refs := References(data)
	fmt.Printf("data: %d words, references in %v\n", n, time.Since(t0).Round(time.Millisecond))
	s, err := NewStream(ctx, d, data, groups)
	if err != nil {
		return err
	}
	defer s.Release()
	for p := 1; p <= passes; p++ {
		for _, v := range Variants {
			if p == 1 {
				if err := s.Check(ctx, v, refs); err != nil {
					fmt.Printf("FAIL %s: %v\n", v.Kernel, err)
					failed = true
					continue
				}
			}
			gpu, el, err := s.Time(ctx, v, reps, wall)
			if err != nil {
				return err
			}
			gb := float64(16*n) / 1e9
			fmt.Printf("RESULT stream %-9s pass %d  gpu %7.1f GB/s  wall %7.1f GB/s  (gpu %v, wall %v / %d)\n",
				v.Kernel, p, gb/gpu.Seconds(), gb*float64(wall)/el.Seconds(), gpu, el, wall)
		}
	}
	if failed {
		return fmt.Errorf("a check failed")
	}
	return nil
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
