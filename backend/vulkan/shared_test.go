//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestSharedLimit: a kernel with 16 bytes more shared memory than the
// device's maxComputeSharedMemorySize is valid .kc (the language allows
// 256 KiB) but Load refuses it with an *ir.UnsupportedError naming the
// limit; one at the limit loads.
func TestSharedLimit(t *testing.T) {
	d := openTest(t)
	max := d.Info().Limits.MaxSharedMemory
	if max <= 0 || max%16 != 0 {
		t.Fatalf("device reports maxComputeSharedMemorySize %d", max)
	}
	load := func(vecs int) error {
		src := fmt.Sprintf("kernel wide(y read_write []vec4<f32>) workgroup(64) {\n\tshared s [%d]vec4<f32>\n\ts[local_index] = vec4<f32>(1.0)\n\tworkgroupBarrier()\n\ty[local_index] = s[%d - local_index]\n}\n", vecs, vecs-1)
		m, err := parse.File("wide.kc", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(m); err != nil {
			t.Fatalf("%d bytes of shared memory: %v", 16*vecs, err)
		}
		a, err := spirv.Emit(m, spirv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Load(context.Background(), a)
		return err
	}
	err := load(max/16 + 1)
	var unsup *ir.UnsupportedError
	want := fmt.Sprintf("kernel wide's %d bytes of shared memory (the device's maxComputeSharedMemorySize is %d)", max+16, max)
	if !errors.As(err, &unsup) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("over the limit: %v\nwant an *ir.UnsupportedError starting %q", err, want)
	}
	if err := load(max / 16); err != nil {
		t.Errorf("at the limit (%d bytes): %v", max, err)
	}
}
