//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// spirvMagic is the first word of every SPIR-V module.
const spirvMagic = 0x07230203

// pipeline is a compute pipeline with its layouts and a cache of descriptor
// sets keyed by what they bind (backend.PipelineImpl).
type pipeline struct {
	d         *device
	handle    uintptr
	layout    uintptr
	setLayout uintptr
	params    int // bytes of the params block (0: no binding 0)
	nbufs     int
	bindings  []uint32 // binding number of each storage buffer, in order
	readOnly  []bool   // each storage buffer is bound read-only
	sets      map[setKey]cachedSet
}

// setKey identifies a descriptor set's contents: the params chunk and every
// storage range (up to maxCachedBufs; larger layouts are not cached).
type setKey struct {
	uniform uintptr
	n       int
	r       [maxCachedBufs]struct {
		buf       uintptr
		off, size int64
	}
}

type cachedSet struct {
	set, pool uintptr
}

// setRef names a cache entry from a buffer, for eviction.
type setRef struct {
	p   *pipeline
	key setKey
}

// NewPipeline implements backend.DeviceImpl.
func (d *device) NewPipeline(ctx context.Context, a *emit.Artifact) (backend.PipelineImpl, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if a.Target != backend.SPIRV {
		return nil, fmt.Errorf("vulkan: cannot load a %s artifact (the Vulkan driver takes SPIR-V)", a.Target)
	}
	if err := checkSPIRV(a.Words); err != nil {
		return nil, err
	}
	e := &a.Entries[0]
	if err := checkEntry(a.Words, e.Name); err != nil {
		return nil, err
	}
	lay := &e.Reflection
	p := &pipeline{d: d, params: lay.ParamsSize(), nbufs: len(lay.Buffers), sets: map[setKey]cachedSet{}}
	for _, b := range lay.Buffers {
		p.bindings = append(p.bindings, uint32(b.Binding))
		p.readOnly = append(p.readOnly, b.ReadOnly())
	}
	if err := p.createLayouts(lay); err != nil {
		p.destroy()
		return nil, err
	}
	if err := p.createPipeline(a.Words, e); err != nil {
		p.destroy()
		return nil, err
	}
	d.pipes = append(d.pipes, p)
	return p, nil
}

// checkSPIRV refuses what is plainly not a SPIR-V module (a driver may crash
// on malformed code; full validation is spirv-val's job upstream).
func checkSPIRV(w []uint32) error {
	switch {
	case len(w) < 5:
		return fmt.Errorf("vulkan: SPIR-V module of %d words is shorter than its header", len(w))
	case w[0] != spirvMagic:
		return fmt.Errorf("vulkan: not a SPIR-V module (magic %#08x)", w[0])
	case w[1]>>16 != 1 || w[1]>>8&0xff > 6:
		return fmt.Errorf("vulkan: unsupported SPIR-V version %d.%d", w[1]>>16, w[1]>>8&0xff)
	case w[3] == 0 || w[3] > 1<<22:
		return fmt.Errorf("vulkan: SPIR-V id bound %d out of range", w[3])
	}
	return nil
}

// checkEntry walks the module's instructions (refusing a malformed stream)
// and checks that it declares a GLCompute entry point named entry: drivers
// may crash on a missing one rather than return an error.
func checkEntry(w []uint32, entry string) error {
	const opEntryPoint, glCompute = 15, 5
	var have []string
	for i := 5; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			return fmt.Errorf("vulkan: malformed SPIR-V: instruction at word %d has length %d", i, n)
		}
		if w[i]&0xffff == opEntryPoint && n >= 4 {
			var b []byte
			for _, x := range w[i+3 : i+n] {
				b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
			}
			name := cString(b)
			if w[i+1] == glCompute {
				if name == entry {
					return nil
				}
				have = append(have, name)
			}
		}
		i += n
	}
	return fmt.Errorf("vulkan: SPIR-V module has no compute entry point %q (it has %q)", entry, have)
}

// createLayouts creates the descriptor-set layout (binding 0 a dynamic
// uniform buffer when there are params, then the storage buffers) and the
// pipeline layout.
func (p *pipeline) createLayouts(lay *ir.KernelReflection) error {
	l := p.d.l
	var a arena
	defer a.free()
	var bs []vkDescriptorSetLayoutBinding
	if lay.Params != nil {
		bs = append(bs, vkDescriptorSetLayoutBinding{binding: 0, descriptorType: descUniformBufferDynamic, descriptorCount: 1, stageFlags: stageCompute})
	}
	for _, b := range lay.Buffers {
		bs = append(bs, vkDescriptorSetLayoutBinding{binding: uint32(b.Binding), descriptorType: descStorageBuffer, descriptorCount: 1, stageFlags: stageCompute})
	}
	cb := sliceIn[vkDescriptorSetLayoutBinding](&a, len(bs))
	copy(cb, bs)
	ci := newIn[vkDescriptorSetLayoutCreateInfo](&a)
	ci.sType = stDescriptorSetLayoutCreateInfo
	ci.bindingCount = uint32(len(cb))
	ci.pBindings = saddr(cb)
	ph := newIn[uintptr](&a)
	if err := check("vkCreateDescriptorSetLayout", call(l.fn.CreateDescriptorSetLayout, l.handle, addr(ci), 0, addr(ph))); err != nil {
		return err
	}
	p.setLayout = *ph
	psl := newIn[uintptr](&a)
	*psl = p.setLayout
	pli := newIn[vkPipelineLayoutCreateInfo](&a)
	pli.sType = stPipelineLayoutCreateInfo
	pli.setLayoutCount = 1
	pli.pSetLayouts = addr(psl)
	if err := check("vkCreatePipelineLayout", call(l.fn.CreatePipelineLayout, l.handle, addr(pli), 0, addr(ph))); err != nil {
		return err
	}
	p.layout = *ph
	return nil
}

// createPipeline builds the shader module and the compute pipeline. When
// the device can require full subgroups and the workgroup's x size is a
// multiple of the largest subgroup size, the pipeline asks for them, so
// subgroup operations see whole subgroups as the reference interpreter does.
func (p *pipeline) createPipeline(words []uint32, e *emit.Entry) error {
	l := p.d.l
	var a arena
	defer a.free()
	code := sliceIn[uint32](&a, len(words))
	copy(code, words)
	smi := newIn[vkShaderModuleCreateInfo](&a)
	smi.sType = stShaderModuleCreateInfo
	smi.codeSize = uintptr(4 * len(code))
	smi.pCode = saddr(code)
	pm := newIn[uintptr](&a)
	if err := check("vkCreateShaderModule", call(l.fn.CreateShaderModule, l.handle, addr(smi), 0, addr(pm))); err != nil {
		return err
	}
	defer call(l.fn.DestroyShaderModule, l.handle, *pm, 0)
	entry := e.Name
	ci := newIn[vkComputePipelineCreateInfo](&a)
	ci.sType = stComputePipelineCreateInfo
	ci.stage = vkPipelineShaderStageCreateInfo{
		sType:  stPipelineShaderStageCreateInfo,
		stage:  stageCompute,
		module: *pm,
		pName:  a.cstr(entry),
	}
	ph := l.phys
	if ph.hasV13 && ph.v13.f[v13ComputeFullSubgroups] != 0 && ph.sgsc.maxSubgroupSize > 0 &&
		e.Reflection.Workgroup[0] > 0 && e.Reflection.Workgroup[0]%int(ph.sgsc.maxSubgroupSize) == 0 {
		ci.stage.flags |= requireFullSubgroups
	}
	if e.Reflection.FeatureSet()&ir.FeatureSubgroups != 0 && ph.hasV13 && ph.v13.f[v13SubgroupSizeControl] != 0 &&
		ph.sgsc.requiredSubgroupSizeStages&stageCompute != 0 && ph.sgsc.minSubgroupSize != ph.sgsc.maxSubgroupSize {
		// Pin the subgroup size to the one the adapter reports, so kernels
		// see the size the reference interpreter is run with.
		rs := newIn[vkRequiredSubgroupSizeCreateInfo](&a)
		rs.sType = stRequiredSubgroupSizeCreateInfo
		rs.requiredSubgroupSize = ph.subgroup.subgroupSize
		ci.stage.pNext = addr(rs)
	}
	ci.flags = p.d.capture
	ci.layout = p.layout
	ci.basePipelineIndex = -1
	pp := newIn[uintptr](&a)
	if err := check("vkCreateComputePipelines", call(l.fn.CreateComputePipelines, l.handle, p.d.pipeCache, 1, addr(ci), 0, addr(pp))); err != nil {
		return fmt.Errorf("%w (kernel %s, entry %q)", err, e.Kernel, entry)
	}
	p.handle = *pp
	return nil
}

// Release implements backend.PipelineImpl.
func (p *pipeline) Release() {
	d := p.d
	for i, q := range d.pipes {
		if q == p {
			d.pipes = append(d.pipes[:i], d.pipes[i+1:]...)
			break
		}
	}
	d.deferFree(p.destroy)
}

// destroy frees the pipeline, its layouts and its cached sets.
func (p *pipeline) destroy() {
	l := p.d.l
	if l.handle == 0 {
		return
	}
	for k := range p.sets {
		p.evictNow(k)
	}
	if p.handle != 0 {
		call(l.fn.DestroyPipeline, l.handle, p.handle, 0)
	}
	if p.layout != 0 {
		call(l.fn.DestroyPipelineLayout, l.handle, p.layout, 0)
	}
	if p.setLayout != 0 {
		call(l.fn.DestroyDescriptorSetLayout, l.handle, p.setLayout, 0)
	}
	p.handle, p.layout, p.setLayout = 0, 0, 0
}

// evict drops a cached set and frees it once the work recorded so far has
// completed.
func (p *pipeline) evict(k setKey) {
	s, ok := p.sets[k]
	if !ok {
		return
	}
	delete(p.sets, k)
	d := p.d
	d.deferFree(func() { d.freeSet(s) })
}

// evictNow drops and frees a cached set (no work in flight).
func (p *pipeline) evictNow(k setKey) {
	if s, ok := p.sets[k]; ok {
		delete(p.sets, k)
		p.d.freeSet(s)
	}
}

func (d *device) freeSet(s cachedSet) {
	var a arena
	defer a.free()
	ps := newIn[uintptr](&a)
	*ps = s.set
	call(d.l.fn.FreeDescriptorSets, d.l.handle, s.pool, 1, addr(ps))
}

// Sizes of the descriptor pools.
const (
	poolSets    = 1024
	poolBuffers = 8 * poolSets
)

// newPool creates a descriptor pool for up to poolSets sets.
func (d *device) newPool(freeable bool) (uintptr, error) {
	var a arena
	defer a.free()
	sizes := sliceIn[vkDescriptorPoolSize](&a, 2)
	sizes[0] = vkDescriptorPoolSize{typ: descUniformBufferDynamic, descriptorCount: poolSets}
	sizes[1] = vkDescriptorPoolSize{typ: descStorageBuffer, descriptorCount: poolBuffers}
	ci := newIn[vkDescriptorPoolCreateInfo](&a)
	ci.sType = stDescriptorPoolCreateInfo
	if freeable {
		ci.flags = descPoolFreeDescriptorSet
	}
	ci.maxSets = poolSets
	ci.poolSizeCount = 2
	ci.pPoolSizes = saddr(sizes)
	ph := newIn[uintptr](&a)
	if err := check("vkCreateDescriptorPool", call(d.l.fn.CreateDescriptorPool, d.l.handle, addr(ci), 0, addr(ph))); err != nil {
		return 0, err
	}
	return *ph, nil
}

// setBatch is how many sets frameSet allocates at once: one
// vkAllocateDescriptorSets call (one cgo crossing) for that many dispatches
// that each bind a set of their own.
const setBatch = 32

// frameSet returns a set of layout from f's pools (freed together when the
// frame is recycled): a spare one allocated with earlier ones, or a batch
// of setBatch allocated now (one set when the pool in use lacks room).
func (d *device) frameSet(f *frame, layout uintptr) (uintptr, error) {
	if s := f.spare[layout]; len(s) > 0 {
		f.spare[layout] = s[:len(s)-1]
		return s[len(s)-1], nil
	}
	if f.poolN > 0 {
		a := d.scratch
		pls := sliceIn[uintptr](a, setBatch)
		for i := range pls {
			pls[i] = layout
		}
		ai := newIn[vkDescriptorSetAllocateInfo](a)
		*ai = vkDescriptorSetAllocateInfo{sType: stDescriptorSetAllocateInfo, descriptorPool: f.pools[f.poolN-1], descriptorSetCount: setBatch, pSetLayouts: saddr(pls)}
		sets := sliceIn[uintptr](a, setBatch)
		r := call(d.l.fn.AllocateDescriptorSets, d.l.handle, addr(ai), saddr(sets))
		if r == 0 {
			if f.spare == nil {
				f.spare = map[uintptr][]uintptr{}
			}
			d.stats.setAllocs += setBatch
			spare := append(f.spare[layout][:0], sets[1:]...)
			f.spare[layout] = spare
			set := sets[0]
			a.reset()
			return set, nil
		}
		a.reset()
	}
	set, _, err := d.allocSet(&f.pools, &f.poolN, layout, false)
	return set, err
}

// allocSet allocates a set of layout from pools, trying each and adding a
// new pool when all are full. It returns the set and its pool.
func (d *device) allocSet(pools *[]uintptr, inUse *int, layout uintptr, freeable bool) (uintptr, uintptr, error) {
	a := d.scratch
	defer a.reset()
	pl := newIn[uintptr](a)
	*pl = layout
	ai := newIn[vkDescriptorSetAllocateInfo](a)
	ai.sType = stDescriptorSetAllocateInfo
	ai.descriptorSetCount = 1
	ai.pSetLayouts = addr(pl)
	ps := newIn[uintptr](a)
	// Try the pool in use, then the next existing one, then a new one.
	fresh := false
	for {
		if *inUse > 0 {
			pool := (*pools)[*inUse-1]
			ai.descriptorPool = pool
			r := call(d.l.fn.AllocateDescriptorSets, d.l.handle, addr(ai), addr(ps))
			if r == 0 {
				d.stats.setAllocs++
				return *ps, pool, nil
			}
			if (r != -1000069000 && r != -12) || fresh { // OUT_OF_POOL_MEMORY, FRAGMENTED_POOL
				return 0, 0, check("vkAllocateDescriptorSets", r)
			}
		}
		if *inUse < len(*pools) {
			*inUse++
			continue
		}
		pool, err := d.newPool(freeable)
		if err != nil {
			return 0, 0, err
		}
		*pools = append(*pools, pool)
		*inUse = len(*pools)
		fresh = true
	}
}
