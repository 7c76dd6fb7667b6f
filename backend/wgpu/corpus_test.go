//go:build !js

package wgpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCorpus runs every test kernel that this naga can take (no f16, no
// subgroups, no //kc:skip-naga) on wgpu through WGSL and through SPIR-V
// (naga's SPIR-V front end), as backendtest.Corpus does for every driver.
func TestCorpus(t *testing.T) {
	backendtest.Corpus(t, openDevice(t), []backendtest.Path{
		nagaPath(backend.WGSL), nagaPath(backend.SPIRV),
	})
}

// nagaSPIRVBugs are corpus kernels whose SPIR-V this naga (wgpu-native
// v0.19) accepts but translates wrongly. The same SPIR-V gives the
// interpreter's results on lavapipe through the direct Vulkan driver
// (backend/vulkan TestCorpus), so the fault is naga's, not the emitter's.
var nagaSPIRVBugs = map[string]string{
	"layernorm":   "two reductions through one shared array: wrong row sums",
	"softmax_row": "two reductions through one shared array: wrong row sums",
}

// nagaPath is backend.Emit's path for target, minus what this naga lacks.
func nagaPath(target backend.Target) backendtest.Path {
	p := backendtest.EmitPath(target)
	p.Skip = func(c kctest.Case, k *ir.Kernel) string {
		switch {
		case c.SkipNaga != "":
			return "//kc:skip-naga " + c.SkipNaga
		case k.Features&(ir.FeatureF16|ir.FeatureSubgroups|ir.FeatureCoopMat) != 0:
			return fmt.Sprintf("kernel uses %v: this naga predates them", k.Features)
		case target == backend.SPIRV && nagaSPIRVBugs[c.Name] != "":
			return "known miscompile of naga's SPIR-V front end: " + nagaSPIRVBugs[c.Name]
		}
		return ""
	}
	if target == backend.SPIRV {
		p.KnownLoadFailure = func(err error) string {
			if strings.Contains(err.Error(), "unsupported instruction") {
				return "naga's SPIR-V front end (wgpu v0.19) lacks an instruction"
			}
			return ""
		}
	}
	return p
}

// TestCorpusLoopBudget: the corpus runner names a kernel whose loops
// exceed lavapipe's budget instead of comparing its silently wrong
// result (backendtest.LoopBudget), through WGSL and SPIR-V.
func TestCorpusLoopBudget(t *testing.T) {
	d := openDevice(t)
	for _, target := range []backend.Target{backend.WGSL, backend.SPIRV} {
		t.Run(string(target), func(t *testing.T) { backendtest.LoopBudget(t, d, nagaPath(target)) })
	}
}
