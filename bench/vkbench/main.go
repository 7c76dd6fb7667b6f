//go:build cgo

// Command vkbench measures dispatch overhead on every driver side by side:
// the host cost of recording one dispatch inside a scope, and the wall time
// of a chain of tiny dependent dispatches (x[i] += 1 over a small buffer)
// recorded in one scope, submitted once and waited for. scripts/h200.sh
// runs it on the H200 next to PyTorch's x.add_(1) loop.
//
//	vkbench [-chain 1000] [-n 1024] [-reps 20] [-drivers vulkan,wgpu]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/bench/chain"
)

func main() {
	length := flag.Int("chain", 1000, "dispatches per chain")
	n := flag.Int("n", 1024, "f32 elements the tiny kernel updates")
	reps := flag.Int("reps", 20, "timed repetitions (after 3 warm-ups)")
	drivers := flag.String("drivers", "vulkan,wgpu", "drivers to measure, in order")
	devices := flag.Bool("devices", false, "list the adapters of every driver in detail and exit")
	flag.Parse()
	ctx := context.Background()
	as, err := backend.Adapters(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vkbench: (some drivers failed):", err)
	}
	if *devices {
		listDevices(as)
		return
	}
	fmt.Printf("%-7s  %-40s  %12s  %14s  %12s\n", "driver", "device", "record/disp", "chain total", "per disp")
	failed := false
	for _, drv := range strings.Split(*drivers, ",") {
		var sub []backend.AdapterInfo
		for _, a := range as {
			if a.Driver == drv {
				sub = append(sub, a)
			}
		}
		if len(sub) == 0 {
			fmt.Printf("%-7s  no adapter\n", drv)
			continue
		}
		if err := measure(ctx, sub[backend.Choose(sub)], *length, *n, *reps); err != nil {
			fmt.Fprintf(os.Stderr, "vkbench: %s: %v\n", drv, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// listDevices prints every adapter with what the policy needs to know.
func listDevices(as []backend.AdapterInfo) {
	pick := backend.Choose(as)
	for _, a := range as {
		mark := " "
		if a.Index == pick {
			mark = "*"
		}
		fmt.Printf("%s %d: %s [%s %s, %s] %s\n", mark, a.Index, a.Name, a.Driver, a.API, a.Type, a.DriverInfo)
		fmt.Printf("    targets %v; subgroup %d (%d..%d), subgroup ops %v; f16 %v; timestamps %v (%g ns/tick)\n",
			a.Targets, a.SubgroupSize, a.SubgroupMin, a.SubgroupMax, a.Subgroups, a.F16, a.Timestamps, a.TimestampNs)
		l := a.Limits
		fmt.Printf("    limits: buffer %d, storage binding %d, shared %d B, invocations %d, workgroup %v, groups/dim %d\n",
			l.MaxBufferSize, l.MaxStorageBufferBindingSize, l.MaxSharedMemory, l.MaxInvocationsPerWorkgroup, l.MaxWorkgroupSize, l.MaxWorkgroupsPerDimension)
		if a.Driver == "vulkan" {
			has := map[string]bool{}
			for _, e := range a.Extensions {
				has[e] = true
			}
			fmt.Printf("    VK_KHR_cooperative_matrix %v, VK_NV_cooperative_matrix %v, VK_NV_cooperative_matrix2 %v, VK_KHR_shader_bfloat16 %v\n",
				has["VK_KHR_cooperative_matrix"], has["VK_NV_cooperative_matrix"], has["VK_NV_cooperative_matrix2"], has["VK_KHR_shader_bfloat16"])
			fmt.Printf("    extensions: %s\n", strings.Join(a.Extensions, " "))
		}
		for _, s := range a.CoopMat {
			fmt.Printf("    coopmat %s scope %s\n", s, s.Scope)
		}
	}
	if pick >= 0 {
		fmt.Printf("policy choice: %d (%s, %s)\n", pick, as[pick].Name, as[pick].Driver)
	}
}

func measure(ctx context.Context, a backend.AdapterInfo, length, n, reps int) error {
	d, err := backend.OpenAdapter(ctx, a)
	if err != nil {
		return err
	}
	defer d.Close()
	b, err := chain.New(ctx, d, n)
	if err != nil {
		return err
	}
	var rec, ch []time.Duration
	for i := 0; i < reps+3; i++ {
		r, err := b.Record(ctx, length)
		if err != nil {
			return err
		}
		c, err := b.Chain(ctx, length)
		if err != nil {
			return err
		}
		if i >= 3 {
			rec, ch = append(rec, r), append(ch, c)
		}
	}
	if err := b.Verify(ctx); err != nil {
		return err
	}
	r, c := chain.Median(rec), chain.Median(ch)
	name := a.Name
	if len(name) > 40 {
		name = name[:40]
	}
	fmt.Printf("%-7s  %-40s  %10.2fµs  %12.3fms  %10.2fµs\n", a.Driver, name,
		float64(r.Nanoseconds())/float64(length)/1e3, float64(c.Nanoseconds())/1e6, float64(c.Nanoseconds())/float64(length)/1e3)
	fmt.Printf("RESULT driver=%s device=%q chain=%d n=%d reps=%d record_us_per_dispatch=%.3f chain_ms=%.4f\n",
		a.Driver, a.Name, length, n, reps, float64(r.Nanoseconds())/float64(length)/1e3, float64(c.Nanoseconds())/1e6)
	return nil
}
