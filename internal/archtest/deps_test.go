package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/kcgo/kc"

// allowed lists, for each kc package (or package tree ending in /...), the kc
// packages its non-test code may import. Packages not listed here may
// import nothing of kc, so a new package must be given its place.
var allowed = map[string][]string{
	"ir":                   {},
	"ir/parse":             {"ir"},
	"ir/interp":            {"ir"},
	"emit":                 {"ir"}, // the one record every emitter returns
	"emit/wgsl":            {"ir", "emit"},
	"emit/spirv":           {"ir", "emit"},
	"emit/hlsl":            {"ir", "emit"},
	"golden":               {},
	"golden/goldenkc":      {"golden", "ir", "ir/parse", "emit/..."},
	"internal/kctest":      {"ir", "ir/parse", "internal/directive"},
	"internal/directive":   {"ir"},
	"internal/runspec":     {"ir", "ir/interp", "internal/directive"},
	"internal/backendtest": {"backend", "ir", "ir/...", "emit/...", "emit", "internal/kctest", "internal/directive", "internal/runspec"},
	"internal/browser":     {"internal/kctest"}, // host side of the browser tests
	"backend":              {"ir", "emit/..."},
	"backend/vulkan/...":   {"backend", "backend/vulkan/...", "emit", "ir"},
	"backend/wgpu/...":     {"backend", "backend/wgpu/...", "emit", "ir"},
	"coopmat/...":          {"ir", "ir/...", "emit/...", "backend", "backend/..."},
	"kernels/...":          {"ir", "ir/...", "emit/...", "backend", "backend/...", "coopmat/..."},
	"precompiled":          {"backend", "emit", "ir"},
	"gen":                  {"ir", "ir/parse", "emit/...", "backend"},
	"cmd/...":              {"..."},
	"bench/...":            {"..."},
	"internal/...":         {"ir", "ir/...", "emit/..."},
	"examples/...":         {"..."},

	// kernels/multi schedules the Tensor API over several devices: it sits
	// on top of kernels and uses only backend's Device API below it (no
	// driver, no coopmat), so that it works over whatever drivers the
	// program registered.
	"kernels/multi": {"backend", "kernels"},
}

// bindingOwners are the only packages that may import a GPU binding.
var bindingOwners = map[string]string{
	"github.com/cogentcore/webgpu": "backend/wgpu",
}

func match(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	return pattern == pkg
}

func rulesFor(pkg string) ([]string, bool) {
	if r, ok := allowed[pkg]; ok {
		return r, true
	}
	best := ""
	for pat := range allowed {
		if match(pat, pkg) && len(pat) > len(best) {
			best = pat
		}
	}
	if best == "" {
		return nil, false
	}
	return allowed[best], true
}

func TestImportPolicy(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 {
		t.Fatalf("go list found only %d packages", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], mod), "/")
		rules, ok := rulesFor(pkg)
		if !ok {
			t.Errorf("package %s has no entry in the import policy (internal/archtest)", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			checkImport(t, pkg, imp, rules)
		}
	}
}

func checkImport(t *testing.T, pkg, imp string, rules []string) {
	t.Helper()
	for binding, owner := range bindingOwners {
		if (imp == binding || strings.HasPrefix(imp, binding+"/")) && pkg != owner {
			t.Errorf("%s imports %s; only %s may import that GPU binding", pkg, imp, owner)
		}
	}
	rel, ok := strings.CutPrefix(imp, mod+"/")
	if !ok {
		return
	}
	for _, r := range rules {
		if match(r, rel) {
			return
		}
	}
	t.Errorf("%s imports %s, against DESIGN.md's one-way arrows (allowed: %v)", pkg, rel, rules)
}
