package difftest

import "testing"

// regressions are seeds that once made a path disagree with the
// interpreter, replayed on every run. A seed names a kernel only for the
// generator version that found it: when ir/irgen changes what a seed
// generates, move the case's kernel text to a corpus test instead.
var regressions = []struct {
	seed  uint64
	path  string // a name in paths
	stmts int    // -stmts it was found with (0: default)
	depth int    // -depth it was found with (0: default)
	what  string // the bug and where it was fixed or reported
}{
	{10717868924794383753, "hlsl-glslang-vulkan", 0, 0, "generator: deterministic floats included + and -, but lavapipe " +
		"reassociates x*0.5 - t + t to x*0.5 (all paths); fixed in ir/irgen by keeping + and - out of the deterministic class"},
}

// TestRegressions replays the regression seeds.
func TestRegressions(t *testing.T) {
	for _, r := range regressions {
		for _, p := range paths {
			if p.name != r.path {
				continue
			}
			d := device(t, p.driver)
			cfg := p.config(d.Info())
			cfg.Stmts, cfg.Depth = r.stmts, r.depth
			if msg := runSeed(d, p, r.seed, cfg); msg != "" {
				t.Errorf("regression (%s): %s", r.what, msg)
			}
		}
	}
}
