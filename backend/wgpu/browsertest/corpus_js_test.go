package browsertest

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
)

// TestCorpus runs the shared corpus runner (internal/backendtest Corpus:
// each kernel's //kc:run directives, internal/runspec's fill and
// comparison against the reference interpreter) on the browser's device
// through WGSL, on the test kernels fetched over HTTP. Kernels needing a
// feature the adapter lacks must be refused by Load and are skipped;
// SwiftShader's u32 -> f32 rounding is a documented deviation
// (backendtest.Deviations).
func TestCorpus(t *testing.T) {
	backendtest.CorpusOf(t, device(t), cases(t), []backendtest.Path{backendtest.EmitPath(backend.WGSL)})
}
