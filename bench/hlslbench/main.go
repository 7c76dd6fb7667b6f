// Command hlslbench compares, kernel by kernel over testdata/kernels, the
// time of `kc compile -target spirv` (the direct SPIR-V emitter, a whole
// process: parse, check, emit, write) with the time of glslangValidator
// compiling kc's HLSL for the same kernel (a whole process, HLSL emitted
// beforehand and not timed) and of spirv-val on glslang's output, which the
// HLSL path always runs. Runs alternate between the tools; medians are
// printed with ratios. bench/hlsl.sh builds kc and runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

func main() {
	kc := flag.String("kc", "", "path of the kc binary (required)")
	glslang := flag.String("glslang", hlsl.GlslangTool, "glslangValidator")
	spirvVal := flag.String("spirv-val", hlsl.SpirvValTool, "spirv-val")
	dir := flag.String("kernels", "testdata/kernels", "directory of .kc test kernels")
	n := flag.Int("n", 11, "runs per kernel and tool")
	flag.Parse()
	if *kc == "" {
		fmt.Fprintln(os.Stderr, "hlslbench: -kc is required")
		os.Exit(2)
	}
	if err := bench(*kc, *glslang, *spirvVal, *dir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "hlslbench:", err)
		os.Exit(1)
	}
}

// job is one kernel: the commands of both paths.
type job struct {
	name             string
	direct, gl, sval []string
}

func bench(kc, glslang, spirvVal, dir string, n int) error {
	work, err := os.MkdirTemp("", "hlslbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	jobs, err := prepare(kc, glslang, spirvVal, dir, work)
	if err != nil {
		return err
	}
	fmt.Printf("%d kernels, %d runs each; medians of whole-process wall time and of CPU time (user+sys)\n\n", len(jobs), n)
	var rows []row
	var total row
	total.name = "total (sum of medians)"
	for _, j := range jobs {
		var runs [3][2][]time.Duration // tool, wall/cpu, samples
		for i := 0; i < n; i++ {
			for t, argv := range [][]string{j.direct, j.gl, j.sval} {
				wall, cpu, err := timeRun(argv)
				if err != nil {
					return err
				}
				runs[t][0] = append(runs[t][0], wall)
				runs[t][1] = append(runs[t][1], cpu)
			}
		}
		r := row{name: j.name}
		for t := range runs {
			for k := range runs[t] {
				r.m[t][k] = median(runs[t][k])
				total.m[t][k] += r.m[t][k]
			}
		}
		rows = append(rows, r)
	}
	for k, what := range []string{"wall", "CPU"} {
		fmt.Printf("%s time\n%-28s %10s %10s %10s %8s %8s\n", what, "kernel", "direct", "glslang", "spirv-val", "gl/dir", "gl+v/dir")
		for _, r := range append(rows, total) {
			d, g, v := r.m[0][k], r.m[1][k], r.m[2][k]
			fmt.Printf("%-28s %10s %10s %10s %8.2f %8.2f\n", r.name, ms(d), ms(g), ms(v), ratio(g, d), ratio(g+v, d))
		}
		fmt.Println()
	}
	return nil
}

// row is one kernel's medians: [tool: direct, glslang, spirv-val][wall, cpu].
type row struct {
	name string
	m    [3][2]time.Duration
}

// prepare emits each kernel's HLSL into work and builds the commands.
func prepare(kc, glslang, spirvVal, dir, work string) ([]job, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.kc"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var jobs []job
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		dirs, err := directive.Parse(p, src)
		if err != nil {
			return nil, err
		}
		m, err := parse.Load(p, src, dirs.Defines)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(filepath.Base(p), ".kc")
		for _, k := range m.Kernels {
			a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
			if err != nil {
				return nil, err
			}
			ent := a.Entries[0]
			if ent.Restricted != "" {
				continue // glslang cannot take it (shader model 6.4)
			}
			h := filepath.Join(work, base+"."+k.Name+".hlsl")
			if err := os.WriteFile(h, a.Code, 0o644); err != nil {
				return nil, err
			}
			spv := filepath.Join(work, base+"."+k.Name+".spv")
			direct := []string{kc, "compile", "-target", "spirv", "-kernel", k.Name, "-o", filepath.Join(work, "direct.spv")}
			for name, v := range dirs.Defines {
				direct = append(direct, "-D", name+"="+v)
			}
			direct = append(direct, p)
			gl := []string{glslang, "-D", "-V", "-S", "comp", "-e", ent.Name, "--target-env", "vulkan1.1"}
			if ent.Reflection.FeatureSet()&ir.FeatureF16 != 0 {
				gl = append(gl, "--hlsl-enable-16bit-types")
			}
			gl = append(gl, "-o", spv, h)
			name := base
			if len(m.Kernels) > 1 {
				name += "/" + k.Name
			}
			jobs = append(jobs, job{name: name, direct: direct, gl: gl, sval: []string{spirvVal, "--target-env", "vulkan1.1", spv}})
		}
	}
	return jobs, nil
}

// timeRun runs argv and returns its wall time and CPU time (user + system).
func timeRun(argv []string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
