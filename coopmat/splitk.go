package coopmat

import (
	"fmt"

	"github.com/kcgo/kc/backend"
)

// Split-k's scratch: slice z of the partial products lives at z·M·N in one
// f32 buffer. Every generated kernel indexes it in u32 (kc has no 64-bit
// integers): the main kernels write cbase + row·N + col with
// cbase = workgroup_id.z * M * N (coopgen.go, coop2gen.go, f32gen.go), and
// the reduction reads P[z * MN + i] (reduceSource). Past 2^32 elements the
// index wraps and slices alias, silently. The automatic plans never come
// near (splitK splits only products of few tiles: at most about 2^24
// elements of scratch), but a plan from the tune cache or a caller can;
// checkSplits refuses it, and fitSplits drops a candidate's split instead.

// maxIndexed is the number of elements a u32 index reaches.
const maxIndexed = 1 << 32

// maxReduceGroups is the reduction's grid limit when the device reports
// none: WebGPU's and Vulkan's portable 65535 workgroups per dimension.
const maxReduceGroups = 65535

// checkSplits verifies a split-k plan's scratch against u32 indexing and
// the device's binding and grid limits.
func (p Plan) checkSplits(info backend.AdapterInfo) error {
	if p.Splits <= 1 {
		return nil
	}
	n := int64(p.Splits) * int64(p.M) * int64(p.N)
	if n >= maxIndexed {
		return fmt.Errorf("coopmat: plan %s for %s: its split-k scratch holds %d·%d·%d = %d partial products, past the 2^32 a kernel's u32 index reaches",
			p, p.Options, p.Splits, p.M, p.N, n)
	}
	l := info.Limits
	if max := l.MaxStorageBufferBindingSize; max > 0 && 4*n > max {
		return fmt.Errorf("coopmat: plan %s for %s: its split-k scratch of %d bytes exceeds %s's storage binding limit %d", p, p.Options, 4*n, info.Name, max)
	}
	if max := l.MaxBufferSize; max > 0 && 4*n > max {
		return fmt.Errorf("coopmat: plan %s for %s: its split-k scratch of %d bytes exceeds %s's buffer limit %d", p, p.Options, 4*n, info.Name, max)
	}
	groups := int64(ceilDiv(p.M*p.N, 256))
	max := int64(maxReduceGroups)
	if l.MaxWorkgroupsPerDimension > 0 {
		max = int64(l.MaxWorkgroupsPerDimension)
	}
	if groups > max {
		return fmt.Errorf("coopmat: plan %s for %s: its split-k reduction needs %d workgroups; %s allows %d per dimension", p, p.Options, groups, info.Name, max)
	}
	return nil
}

// fitSplits drops the split of a candidate plan whose split-k the device
// cannot hold (checkSplits): one slice over the whole of k.
func (p *Plan) fitSplits(info backend.AdapterInfo) {
	if p.checkSplits(info) != nil {
		p.Splits, p.KS = 1, ceilDiv(p.K, p.Tile.BK)*p.Tile.BK
	}
}
