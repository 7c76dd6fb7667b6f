package browsertest

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestGoldenTint has the browser's WGSL compiler (Tint, in Chromium)
// validate every golden WGSL file twice: on a device with every optional
// feature kc uses that the adapter offers (shader-f16, subgroups), where it
// must compile unless it needs a feature the adapter lacks, and on a device
// with no optional feature, where it must be rejected exactly when kc's
// checker marks its kernels as needing f16 or subgroups. The second half
// is the agreement of kc's feature checks with the browser's.
func TestGoldenTint(t *testing.T) {
	a := adapter(t)
	offered := featureNames(a)
	var feats []any
	for _, f := range []string{"shader-f16", "subgroups"} {
		if slices.Contains(offered, f) {
			feats = append(feats, f)
		}
	}
	t.Logf("adapter features %v; requesting %v", offered, feats)
	full := await(t, a.Call("requestDevice", map[string]any{"requiredFeatures": feats}))
	bare := await(t, adapter(t).Call("requestDevice"))
	defer full.Call("destroy")
	defer bare.Call("destroy")
	for _, g := range files(t, "testdata/golden", ".wgsl") {
		name := strings.TrimSuffix(path.Base(g), ".wgsl")
		t.Run(name, func(t *testing.T) {
			code := string(fetch(t, g))
			// NAME.chromium.wgsl: Chromium's cooperative-matrix dialect (emit/wgsl)
			kc := "testdata/kernels/" + strings.TrimSuffix(name, ".chromium") + ".kc"
			m := kctest.NewCase(t, kc, fetch(t, kc)).Module(t)
			var need ir.Features
			for _, k := range m.Kernels {
				need |= k.Features
			}
			if need&ir.FeatureCoopMat != 0 {
				t.Skip("cooperative matrices: no WebGPU feature for them in Chromium 156 without experimental flags")
			}
			needF16, needSub := need&ir.FeatureF16 != 0, need&ir.FeatureSubgroups != 0
			lacking := needF16 && !slices.Contains(offered, "shader-f16") || needSub && !slices.Contains(offered, "subgroups")
			errs := compile(t, full, code)
			switch {
			case lacking && len(errs) == 0:
				t.Errorf("%s compiles on a device without a feature kc marks it as needing (%s)", g, featNames(need))
			case !lacking && len(errs) > 0:
				t.Errorf("Tint rejects %s:\n%s", g, strings.Join(errs, "\n"))
			}
			errs = compile(t, bare, code)
			if marked := needF16 || needSub; marked != (len(errs) > 0) {
				t.Errorf("kc marks %s as needing %q (f16 or subgroups: %v), but Tint on a device without optional features says: %q", name, featNames(need), marked, errs)
			} else if marked {
				t.Logf("without features, as kc expects: %s", errs[0])
			}
		})
	}
}

// compile creates a shader module on dev and returns Tint's error
// messages as "LINE:COL: MESSAGE".
func compile(t *testing.T, dev js.Value, code string) []string {
	t.Helper()
	mod := dev.Call("createShaderModule", map[string]any{"code": code})
	info := await(t, mod.Call("getCompilationInfo"))
	var errs []string
	msgs := info.Get("messages")
	for i := 0; i < msgs.Length(); i++ {
		m := msgs.Index(i)
		if m.Get("type").String() == "error" {
			errs = append(errs, fmt.Sprintf("%d:%d: %s", m.Get("lineNum").Int(), m.Get("linePos").Int(), m.Get("message").String()))
		}
	}
	return errs
}

// featNames spells a feature set.
func featNames(f ir.Features) string {
	var names []string
	for _, x := range []ir.Feature{ir.FeatureF16, ir.FeatureSubgroups, ir.FeatureCoopMat} {
		if f&x != 0 {
			names = append(names, x.Name())
		}
	}
	return strings.Join(names, " and ")
}
