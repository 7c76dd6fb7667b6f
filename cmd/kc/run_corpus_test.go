package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
)

// haveDevice reports kctest.Missing when kc sees no GPU adapter.
func haveDevice(t *testing.T) {
	t.Helper()
	mesaEnv(t)
	if out, _, _ := kc(t, "", "devices", "-json"); !strings.Contains(out, `"Driver"`) {
		kctest.Missing(t, "no GPU adapters (install mesa-vulkan-drivers for lavapipe)")
	}
}

// TestRunCorpusNoFlags: `kc run testdata/kernels/X.kc` and `kc run
// -interp X.kc` with no flags at all run every kernel of every corpus file;
// then, per kernel, with -seed and -o (and -kernel where a file has
// several), the device's outputs and the interpreter's (race detector on)
// agree within the kernel's //kc:run tolerance.
func TestRunCorpusNoFlags(t *testing.T) {
	haveDevice(t)
	seed := strconv.FormatUint(uint64(os.Getpid())<<20^uint64(len(t.Name())), 10)
	coop := anyCoopMat(t)
	for _, c := range kctest.Cases(t) {
		m := c.Module(t)
		sides := [][]string{{"run"}, {"run", "-interp"}}
		if needsCoopMat(m) && !coop {
			// No device to run it on (lavapipe has no cooperative matrix):
			// the interpreter side only.
			t.Logf("NOT RUN on a device: %s needs cooperative matrices, which no adapter offers", c.Name)
			sides = sides[1:]
		}
		for _, side := range sides {
			out, errs, code := kc(t, "", append(side, c.Path)...)
			if code != exitOK || errs != "" {
				t.Errorf("kc %s %s: exit %d: %s", strings.Join(side, " "), c.Name, code, errs)
			}
			for _, k := range m.Kernels {
				if !strings.Contains(out, "# "+k.Name+" on ") {
					t.Errorf("kc %s %s ran no kernel %s:\n%s", strings.Join(side, " "), c.Name, k.Name, out)
				}
			}
		}
		if len(sides) == 1 {
			continue
		}
		for _, k := range m.Kernels {
			t.Run(c.Name+"/"+k.Name, func(t *testing.T) {
				var sel []string
				if len(m.Kernels) > 1 {
					sel = []string{"-kernel", k.Name}
				}
				dir := t.TempDir()
				outFlags := func(side string) []string {
					var fl []string
					for _, b := range ir.Buffers(k) {
						if b.Access == ir.ReadWrite {
							fl = append(fl, "-o", b.Name+"="+filepath.Join(dir, side+"."+b.Name))
						}
					}
					return fl
				}
				args := append(append([]string{"run", "-json", "-seed", seed}, sel...), outFlags("dev")...)
				out, errs, code := kc(t, "", append(args, c.Path)...)
				if code != exitOK {
					t.Fatalf("kc run %s: exit %d: %s", c.Name, code, errs)
				}
				var res runResult
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("-json: %v\n%s", err, out)
				}
				t.Logf("%s: %s (%s), path %s, groups %v", k.Name, res.Device.Name, res.Device.Driver, res.Path, res.Groups)
				sg := res.Device.SubgroupSize
				if sg <= 0 {
					sg = 8
				}
				args = append(append([]string{"run", "-interp", "-races", "-subgroup-size", strconv.Itoa(sg), "-seed", seed}, sel...), outFlags("cpu")...)
				if _, errs, code := kc(t, "", append(args, c.Path)...); code != exitOK {
					t.Fatalf("kc run -interp -races %s: exit %d: %s", c.Name, code, errs)
				}
				run := c.Run(t, m, k)
				for _, b := range ir.Buffers(k) {
					if b.Access != ir.ReadWrite {
						continue
					}
					got, err1 := os.ReadFile(filepath.Join(dir, "dev."+b.Name))
					want, err2 := os.ReadFile(filepath.Join(dir, "cpu."+b.Name))
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if msg := runspec.Check(run, b, got, want); msg != "" {
						t.Errorf("%s on %s (%s): %s differs from -interp: %s", k.Name, res.Device.Name, res.Path, b.Name, msg)
					}
				}
			})
		}
	}
}
