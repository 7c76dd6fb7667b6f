//go:build linux && cgo

package hlsl_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// TestExecOnVulkan runs testdata/exec.kc through HLSL -> glslang -> SPIR-V
// on a Vulkan device (lavapipe here, subgroup size 8) with fresh random
// inputs and poisoned outputs, and compares every buffer with the reference
// interpreter (runspec.Compare): integers and f16 bit for bit, f32 within
// 838 ulp or 1e-4 (no looser than 1e-4 + 1e-4|want|). It covers what the
// corpus does not: the scan helpers (KC_PREFIX_SUM_INCLUSIVE) in uniform
// and divergent control flow, shuffles, f16 bitcasts, padded vec3 buffers
// and hoisted atomics.
func TestExecOnVulkan(t *testing.T) {
	kctest.Tool(t, hlsl.GlslangTool)
	kctest.Tool(t, hlsl.SpirvValTool)
	path := filepath.Join("testdata", "exec.kc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.File(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	d := backendtest.Open(t, "vulkan")
	sg := d.Info().SubgroupSize
	seed := rand.Uint64()
	t.Logf("seed %d, device %s, subgroup size %d", seed, d.Info().Name, sg)
	r := rand.New(rand.NewPCG(seed, 4))
	for _, k := range m.Kernels {
		t.Run(k.Name, func(t *testing.T) {
			if k.Features&ir.FeatureSubgroups != 0 && (sg < 1 || sg > 128) {
				kctest.Missing(t, "subgroup size %d", sg)
			}
			runExec(t, d, m, k, r, sg)
		})
	}
}

// input makes the starting bytes of buffer p: random values for the inputs,
// 0xdeadbeef poison for outputs, zeros for the atomics the kernel tests.
func input(r *rand.Rand, p *ir.Param, count int) []byte {
	b := make([]byte, count*ir.ElemStride(p.Type))
	for i := 0; i+4 <= len(b); i += 4 {
		var w uint32
		switch p.Name {
		case "x", "v3":
			w = math.Float32bits(r.Float32()*8 - 4)
		case "k":
			w = uint32(r.IntN(2000) - 1000)
		case "h":
			w = uint32(interp.F32ToF16Bits(r.Float32()*4-2)) | uint32(interp.F32ToF16Bits(r.Float32()*4-2))<<16
		case "c":
			if i/4 >= 3 {
				w = uint32(r.IntN(50))
			}
		default:
			w = 0xdeadbeef
		}
		binary.LittleEndian.PutUint32(b[i:], w)
	}
	return b
}

func runExec(t *testing.T, d *backend.Device, m *ir.Module, k *ir.Kernel, r *rand.Rand, sg int) {
	const n = 128
	bufs := map[string][]byte{}
	want := map[string][]byte{}
	for _, p := range ir.Buffers(k) {
		count := n
		switch p.Name {
		case "c":
			count = 3 + n
		case "fo", "io", "o":
			count = 4 * n
		}
		bufs[p.Name] = input(r, p, count)
		want[p.Name] = append([]byte(nil), bufs[p.Name]...)
	}
	groups := n / k.Size[0]
	if err := interp.Run(m, k.Name, [3]int{groups, 1, 1}, &interp.Args{Buffers: want}, interp.Options{SubgroupSize: sg}); err != nil {
		t.Fatal(err)
	}
	gpu := dispatch(t, d, m, k, nil, bufs, [3]int{groups, 1, 1})
	for _, bp := range ir.Buffers(k) {
		got := gpu[bp.Name]
		// f32 buffers within runspec's comparison (subgroup sums are
		// reassociated); every other buffer word for word.
		s, tol := ir.U32, runspec.Tol{}
		if ir.ElemScalar(bp.Type) == ir.F32 {
			s, tol = ir.F32, runspec.Tol{ULP: 838, Abs: 1e-4}
		}
		if msg := runspec.Compare(s, got, want[bp.Name], func(int) runspec.Tol { return tol }, nil, nil); msg != "" {
			t.Errorf("%s: %s", bp.Name, msg)
		}
	}
}
