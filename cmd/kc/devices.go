package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
)

func init() {
	register("devices", "list GPU adapters, drivers, features and cooperative-matrix shapes", runDevices)
}

// devicesJSON is `kc devices -json` output.
type devicesJSON struct {
	Selected int                   `json:"selected"` // index the policy (or KC_DEVICE) picks; -1 when none
	Adapters []backend.AdapterInfo `json:"adapters"`
	Errors   []string              `json:"errors,omitempty"` // drivers that could not enumerate
}

func runDevices(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "devices", "[-json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitUsage
	}
	as, enumErr := backend.Adapters(context.Background())
	sel := env.getenv(backend.EnvDevice)
	pick, selErr := backend.Select(as, sel)
	if selErr != nil {
		pick = -1
	}
	if *asJSON {
		out := devicesJSON{Selected: pick, Adapters: as}
		if out.Adapters == nil {
			out.Adapters = []backend.AdapterInfo{}
		}
		if enumErr != nil {
			out.Errors = strings.Split(enumErr.Error(), "\n")
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			printErr(env, err)
			return exitInput
		}
		env.stdout.Write(append(b, '\n'))
	} else {
		for _, a := range as {
			printAdapter(env.stdout, a, a.Index == pick)
		}
		if enumErr != nil {
			fmt.Fprintf(env.stderr, "kc devices: %v\n", enumErr)
		}
	}
	if len(as) == 0 {
		fmt.Fprintln(env.stderr, "kc devices: no GPU adapters found")
		return exitInput
	}
	if selErr != nil {
		fmt.Fprintf(env.stderr, "kc devices: %s=%q: %v\n", backend.EnvDevice, sel, selErr)
		return exitInput
	}
	return exitOK
}

func printAdapter(w io.Writer, a backend.AdapterInfo, picked bool) {
	mark := " "
	if picked {
		mark = "*"
	}
	fmt.Fprintf(w, "%s %d  %-6s %-10s %-10s %s\n", mark, a.Index, a.Driver, a.API, a.Type, a.Name)
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	targets := make([]string, len(a.Targets))
	for i, t := range a.Targets {
		targets[i] = string(t)
	}
	fmt.Fprintf(w, "      driver %s:%d  %s\n", a.Driver, a.DriverIndex, a.DriverInfo)
	fmt.Fprintf(w, "      targets %s  f16 %s  bf16 %s  int8 %s  subgroups %s", strings.Join(targets, ","), yn(a.F16), yn(a.BF16), yn(a.Int8), yn(a.Subgroups))
	if a.SubgroupSize > 0 {
		fmt.Fprintf(w, " (size %d", a.SubgroupSize)
		if a.SubgroupMin > 0 && a.SubgroupMax > 0 && a.SubgroupMin != a.SubgroupMax {
			fmt.Fprintf(w, ", %d..%d", a.SubgroupMin, a.SubgroupMax)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, "  timestamps %s", yn(a.Timestamps))
	if a.Timestamps {
		fmt.Fprintf(w, " (%g ns)", a.TimestampNs)
	}
	fmt.Fprintln(w)
	l := a.Limits
	fmt.Fprintf(w, "      limits: buffer %s, storage binding %s, shared %s, workgroup %d (%dx%dx%d), groups/dim %d\n",
		bytesStr(l.MaxBufferSize), bytesStr(l.MaxStorageBufferBindingSize), bytesStr(int64(l.MaxSharedMemory)),
		l.MaxInvocationsPerWorkgroup, l.MaxWorkgroupSize[0], l.MaxWorkgroupSize[1], l.MaxWorkgroupSize[2], l.MaxWorkgroupsPerDimension)
	if l.MaxLoopIterations > 0 {
		fmt.Fprintf(w, "      loops: end silently after %d iterations per invocation (a driver quirk: docs/lavapipe.md)\n", l.MaxLoopIterations)
	}
	if len(a.Extensions) > 0 {
		fmt.Fprintf(w, "      extensions: %s\n", strings.Join(a.Extensions, " "))
	}
	if len(a.CoopMat) > 0 {
		fmt.Fprintf(w, "      cooperative matrix:\n")
		for _, s := range a.CoopMat {
			fmt.Fprintf(w, "        %s\n", s)
		}
	}
	if c := a.CoopMat2; c != nil {
		fmt.Fprintf(w, "      cooperative matrix 2: workgroup scope %v (max %d invocations, %s shared reserved), flexible dimensions %v (max %d)\n",
			c.WorkgroupScope, c.MaxWorkgroupSize, bytesStr(int64(c.ReservedShared)), c.FlexibleDimensions, c.MaxDimension)
		for _, s := range c.Flexible {
			inv := ""
			if s.Invocations > 0 {
				inv = fmt.Sprintf(", %d invocations", s.Invocations)
			}
			fmt.Fprintf(w, "        granularity %s, %s scope%s\n", s, s.Scope, inv)
		}
	}
}

func bytesStr(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
