package difftest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

var (
	seedFlag  = flag.String("seed", "", "run only this generator seed (as printed by a failure)")
	seedsFlag = flag.Int("seeds", 0, "number of fresh seeds per path (0: the CI default)")
	stmtsFlag = flag.Int("stmts", 0, "generator statement budget (0: irgen's default)")
	depthFlag = flag.Int("depth", 0, "generator expression depth (0: irgen's default)")
)

// ciSeeds is the number of fresh seeds each path runs by default.
const ciSeeds = 40

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("XDG_RUNTIME_DIR") == "" { // Mesa warns without a private runtime directory
		if dir, err := os.MkdirTemp("", "kc-difftest-xdg"); err == nil && os.Chmod(dir, 0o700) == nil {
			os.Setenv("XDG_RUNTIME_DIR", dir)
			defer os.RemoveAll(dir)
		}
	}
	code := m.Run()
	closeDevices()
	os.Exit(code)
}

// path is one way from IR to a device.
type path struct {
	name     string
	driver   string // "wgpu" or "vulkan"
	artifact func(ctx context.Context, m *ir.Module, kernel string) (*emit.Artifact, error)
	// subgroups: whether the path can run subgroup operations at all (the
	// device must also report them). naga in this wgpu predates them.
	subgroups bool
	// noNumWorkgroups: the path cannot express num_workgroups (none
	// today: HLSL reads it from a hidden params field).
	noNumWorkgroups bool
	// f16: whether the path can run f16 at all (the device must also
	// report it).
	f16 bool
	// lang: whether the path lowers issue 12's constructs (irgen's
	// Config.Lang: helper functions, structs, switch, constant arrays).
	lang bool
}

var paths = []path{
	{"wgsl-wgpu", "wgpu", func(ctx context.Context, m *ir.Module, kernel string) (*emit.Artifact, error) {
		return wgsl.Emit(m, wgsl.Options{Kernel: kernel})
	}, false, false, false, true},
	{"spirv-vulkan", "vulkan", func(ctx context.Context, m *ir.Module, kernel string) (*emit.Artifact, error) {
		return spirv.Emit(m, spirv.Options{Kernel: kernel})
	}, true, false, true, true},
	{"hlsl-glslang-vulkan", "vulkan", func(ctx context.Context, m *ir.Module, kernel string) (*emit.Artifact, error) {
		a, err := hlsl.Emit(m, hlsl.Options{Kernel: kernel})
		if err != nil {
			return nil, err
		}
		return hlsl.CompileSPIRV(ctx, a, kernel, hlsl.CompileOptions{Compiler: hlsl.Glslang})
	}, true, false, true, true},
}

// config is the generator configuration a path runs on device info.
func (p path) config(info backend.AdapterInfo) irgen.Config {
	return irgen.Config{
		Subgroups:       p.subgroups && info.Subgroups && info.SubgroupSize >= 1 && info.SubgroupSize <= 8,
		NoNumWorkgroups: p.noNumWorkgroups,
		F16:             p.f16 && info.F16,
		Lang:            p.lang,
		Stmts:           *stmtsFlag,
		Depth:           *depthFlag,
	}
}

var (
	devMu   sync.Mutex
	devices = map[string]*backend.Device{}
)

// device opens (once) the lavapipe-or-policy adapter of a driver.
func device(t *testing.T, driver string) *backend.Device {
	t.Helper()
	devMu.Lock()
	defer devMu.Unlock()
	if d := devices[driver]; d != nil {
		return d
	}
	d, err := backend.OpenAdapter(context.Background(), backendtest.Adapter(t, driver))
	if err != nil {
		t.Fatal(err)
	}
	devices[driver] = d
	return d
}

func closeDevices() {
	for _, d := range devices {
		d.Close()
	}
}

// seeds returns the seeds to run: -seed alone, else -seeds (or ciSeeds)
// fresh ones.
func seeds(t *testing.T) []uint64 {
	if *seedFlag != "" {
		s, err := strconv.ParseUint(*seedFlag, 10, 64)
		if err != nil {
			t.Fatalf("-seed %q: %v", *seedFlag, err)
		}
		return []uint64{s}
	}
	n := *seedsFlag
	if n <= 0 {
		n = ciSeeds
	}
	base := rand.Uint64()
	t.Logf("seeds %d .. %d (reproduce one: go test ./internal/difftest -run 'TestDiff/PATH' -seed N)", base, base+uint64(n)-1)
	out := make([]uint64, n)
	for i := range out {
		out[i] = base + uint64(i)
	}
	return out
}

// TestDiff generates kernels from fresh seeds and requires every path to
// give the interpreter's results: integers bit for bit, floats within the
// generator's bound per output slot.
func TestDiff(t *testing.T) {
	ss := seeds(t)
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			d := device(t, p.driver)
			info := d.Info()
			cfg := p.config(info)
			t.Logf("device %s, subgroup size %d; generator config %+v", info.Name, info.SubgroupSize, cfg)
			start, fails := time.Now(), 0
			for _, seed := range ss {
				if msg := runSeed(d, p, seed, cfg); msg != "" {
					t.Error(msg)
					if fails++; fails == 5 {
						t.Fatalf("stopping after 5 failing seeds")
					}
				}
			}
			t.Logf("%d seeds in %v", len(ss), time.Since(start).Round(time.Millisecond))
		})
	}
}

// runSeed runs one generated kernel on the interpreter and the device and
// returns a description of any difference ("" when they agree).
func runSeed(d *backend.Device, p path, seed uint64, cfg irgen.Config) string {
	return runSeedWant(d, p, seed, cfg, nil)
}

func runSeedWant(d *backend.Device, p path, seed uint64, cfg irgen.Config, override map[string][]byte) string {
	ctx := context.Background()
	k, err := irgen.Generate(seed, cfg)
	report := func(format string, args ...any) string {
		text := ""
		if k != nil {
			text = string(ir.Print(k.Module))
		}
		return fmt.Sprintf("seed %d, path %s, config %+v: %s\nreproduce: go test ./internal/difftest -run 'TestDiff/%s' -seed %d%s\n%s",
			seed, p.name, cfg, fmt.Sprintf(format, args...), p.name, seed, sizeFlags(), text)
	}
	if err != nil {
		return report("generated kernel does not check: %v", err)
	}
	art, err := p.artifact(ctx, k.Module, k.Name)
	if err != nil {
		return report("emit: %v", err)
	}
	pl, err := d.Load(ctx, art)
	if err != nil {
		return report("load: %v", err)
	}
	params, bufs := k.Inputs()
	want := map[string][]byte{}
	for n, b := range bufs {
		want[n] = append([]byte(nil), b...)
	}
	sg := d.Info().SubgroupSize
	if sg <= 0 {
		sg = 8
	}
	if err := interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: want}, interp.Options{SubgroupSize: sg, Races: true}); err != nil {
		return report("interpreter: %v", err)
	}
	if override != nil {
		want = override
	}
	got, err := dispatch(ctx, d, pl, k, params, bufs)
	if err != nil {
		return report("device: %v", err)
	}
	var diffs []string
	for _, name := range []string{"out_i", "out_f", "out_h", "acc", "acci", "out_s"} {
		if _, ok := want[name]; !ok {
			continue
		}
		tol := k.FloatTol
		if name == "out_h" {
			tol = k.HalfTol
		}
		if msg := compare(name, got[name], want[name], tol); msg != "" {
			diffs = append(diffs, msg)
		}
	}
	if len(diffs) > 0 {
		return report("results differ from the interpreter's (grid %d x workgroup %d):\n\t%s", k.Groups, k.Workgroup, strings.Join(diffs, "\n\t"))
	}
	return ""
}

// dispatch runs the pipeline on copies of bufs and reads back the
// read_write buffers.
func dispatch(ctx context.Context, d *backend.Device, pl *backend.Pipeline, k *irgen.Kernel, params map[string]ir.Value, bufs map[string][]byte) (map[string][]byte, error) {
	kern := k.Module.Kernel(k.Name)
	fields, _ := ir.ParamsLayout(kern)
	var args backend.Args
	for _, f := range fields {
		v := params[f.Param.Name]
		if f.Param.Type == ir.F32 {
			args.Params = append(args.Params, math.Float32bits(float32(v.Float)))
		} else {
			args.Params = append(args.Params, uint32(v.Int))
		}
	}
	var outs []string
	var views []backend.View
	for _, b := range ir.Buffers(kern) {
		buf, err := d.Upload(bufs[b.Name])
		if err != nil {
			return nil, err
		}
		defer buf.Release()
		args.Buffers = append(args.Buffers, buf.View())
		if b.Access == ir.ReadWrite {
			outs = append(outs, b.Name)
			views = append(views, buf.View())
		}
	}
	if err := d.Dispatch(pl, args, backend.Groups(uint32(k.Groups), 1, 1)); err != nil {
		return nil, err
	}
	data, err := d.ReadMany(ctx, views...)
	if err != nil {
		return nil, err
	}
	got := map[string][]byte{}
	for i, n := range outs {
		got[n] = data[i]
	}
	return got, nil
}

// compare checks one buffer with runspec.Compare: integer buffers bit for
// bit, out_f and out_h element i within the absolute bound
// tol[i % irgen.Slots] (as values: -0 == +0; a result below the smallest
// normal also matches zero, for devices that flush denormals).
func compare(name string, got, want []byte, tol []float64) string {
	s := ir.U32
	switch name {
	case "out_f":
		s = ir.F32
	case "out_h":
		s = ir.F16
	}
	bound := func(i int) runspec.Tol {
		b := tol[i%irgen.Slots]
		return runspec.Tol{Abs: b, AbsF16: b}
	}
	label := func(i int) string { return fmt.Sprintf("invocation %d, slot %d", i/irgen.Slots, i%irgen.Slots) }
	if name != "out_i" && s == ir.U32 {
		label = nil
	}
	if msg := runspec.Compare(s, got, want, bound, nil, label); msg != "" {
		return name + ": " + msg
	}
	return ""
}

// sizeFlags repeats -stmts and -depth for the reproducing command.
func sizeFlags() string {
	s := ""
	if *stmtsFlag != 0 {
		s += fmt.Sprintf(" -stmts %d", *stmtsFlag)
	}
	if *depthFlag != 0 {
		s += fmt.Sprintf(" -depth %d", *depthFlag)
	}
	return s
}
