//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestPipelineStatistics checks VK_KHR_pipeline_executable_properties:
// without KC_VULKAN_STATS a pipeline has no statistics; with
// KC_VULKAN_STATS=ir a device that offers the extension reports named
// statistics (and internal representations where it has them). lavapipe
// does not offer the extension (Debian 12's Mesa 22.3.6, and 25.0.7 from
// bookworm-backports, tried 2026-12-01: the library carries Mesa's common
// entry points, the device's extension list does not name it): there the
// test checks that the request is ignored and skips the rest. The H200's
// driver reports Register Count, Binary Size, Stack Size, Local Memory
// Size and Shared Memory Size (docs/PERF.md).
func TestPipelineStatistics(t *testing.T) {
	ctx := context.Background()
	code := glsl(t, addkGLSL)
	t.Run("off", func(t *testing.T) {
		t.Setenv(envStats, "")
		d := openTest(t)
		p, err := d.Load(ctx, artifact(code, "addk", 64, []string{"k", "n"}, "y:rw"))
		if err != nil {
			t.Fatal(err)
		}
		if s, err := p.Statistics(); !errors.Is(err, backend.ErrNoStatistics) {
			t.Errorf("Statistics without %s = %v, %v; want ErrNoStatistics", envStats, s, err)
		}
	})
	t.Setenv(envStats, "ir")
	d := openTest(t)
	p, err := d.Load(ctx, artifact(code, "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	stats, err := p.Statistics()
	if !offers(t, d.Info().Name, extPipelineExec) {
		if !errors.Is(err, backend.ErrNoStatistics) {
			t.Errorf("Statistics on a device without %s = %v, %v; want ErrNoStatistics", extPipelineExec, stats, err)
		}
		t.Skipf("%s does not offer %s", d.Info().Name, extPipelineExec)
	}
	if err != nil {
		t.Fatalf("Statistics: %v", err)
	}
	if len(stats) == 0 {
		t.Fatal("Statistics returned none")
	}
	for _, s := range stats {
		if s.Name == "" || s.Executable == "" {
			t.Errorf("statistic without a name or executable: %+v", s)
		}
	}
	t.Logf("%s: %v", d.Info().Name, stats)
	reps, err := p.Representations()
	if err != nil {
		t.Fatalf("Representations: %v", err)
	}
	for _, r := range reps {
		if r.Name == "" || r.Executable == "" {
			t.Errorf("representation without a name or executable: %+v", r)
		}
		t.Logf("representation %s/%s: %d bytes, text %v", r.Executable, r.Name, len(r.Data), r.Text)
	}
}

// offers reports whether the physical device named name lists ext and
// its pipelineExecutableInfo feature.
func offers(t *testing.T, name, ext string) bool {
	in, err := newInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	for _, p := range in.phys {
		if strings.Contains(name, cString(p.props.deviceName[:])) {
			return p.exts[ext] && p.pexec.f[0] != 0
		}
	}
	t.Fatalf("no physical device named %q", name)
	return false
}

// TestStatValue reads each VkPipelineExecutableStatisticFormatKHR.
func TestStatValue(t *testing.T) {
	for _, c := range []struct {
		format uint32
		bits   uint64
		want   float64
	}{
		{0, 1, 1}, {0, 0, 0}, {0, 0xffffffff00000000, 0}, // BOOL32 reads the low word
		{1, 0xffffffffffffffff, -1}, {1, 168, 168}, // INT64
		{2, 1 << 40, 1 << 40},        // UINT64
		{3, 0x3ff8000000000000, 1.5}, // FLOAT64
	} {
		if got := statValue(c.format, c.bits); got != c.want {
			t.Errorf("statValue(%d, %#x) = %g, want %g", c.format, c.bits, got, c.want)
		}
	}
}
