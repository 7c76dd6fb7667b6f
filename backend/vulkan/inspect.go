//go:build linux && cgo

package vulkan

import (
	"math"
	"os"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// Pipeline statistics and internal representations
// (VK_KHR_pipeline_executable_properties): what the driver compiled a
// pipeline into — registers, local memory (spills), shared memory,
// instruction counts, as the driver names them — and, where it offers
// them, its intermediate or machine code. Capturing costs compile time and
// may keep the driver from caching, so it is off unless asked:
//
//	KC_VULKAN_STATS=1    statistics (backend.Pipeline.Statistics)
//	KC_VULKAN_STATS=ir   statistics and internal representations
//	                     (backend.Pipeline.Representations)
//
// With it set and the device offering the extension and its
// pipelineExecutableInfo feature, the device enables both, and every
// pipeline is created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
// (and _INTERNAL_REPRESENTATIONS_BIT_KHR for "ir"). Otherwise the methods
// return backend.ErrNoStatistics.

const (
	extPipelineExec = "VK_KHR_pipeline_executable_properties"
	envStats        = "KC_VULKAN_STATS"

	stPipelineExecFeatures = 1000269000
	stPipelineInfo         = 1000269001
	stPipelineExecProps    = 1000269002
	stPipelineExecInfo     = 1000269003
	stPipelineExecStat     = 1000269004
	stPipelineExecIR       = 1000269005

	captureStatistics = 0x40 // VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
	captureIR         = 0x80 // VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR
)

type vkPipelineInfo struct {
	sType    uint32
	pNext    uintptr
	pipeline uintptr
}

type vkPipelineExecutableProperties struct {
	sType        uint32
	pNext        uintptr
	stages       uint32
	name         [256]byte
	description  [256]byte
	subgroupSize uint32
}

type vkPipelineExecutableInfo struct {
	sType           uint32
	pNext           uintptr
	pipeline        uintptr
	executableIndex uint32
}

type vkPipelineExecutableStatistic struct {
	sType       uint32
	pNext       uintptr
	name        [256]byte
	description [256]byte
	format      uint32 // BOOL32, INT64, UINT64, FLOAT64
	value       uint64 // the union, read by format
}

type vkPipelineExecutableIR struct {
	sType       uint32
	pNext       uintptr
	name        [256]byte
	description [256]byte
	isText      uint32
	dataSize    uintptr
	pData       uintptr
}

// inspectFns are the extension's entry points (0 when not enabled).
type inspectFns struct {
	props, stats, reprs uintptr
}

// captureWanted reads KC_VULKAN_STATS: the capture flags asked for.
func captureWanted() uint32 {
	switch os.Getenv(envStats) {
	case "", "0", "off":
		return 0
	case "ir":
		return captureStatistics | captureIR
	}
	return captureStatistics
}

// captureFlags is what p's pipelines are created with: the flags asked for
// when p offers the extension and its feature, else 0.
func (p *physical) captureFlags() uint32 {
	if !p.exts[extPipelineExec] || p.pexec.f[0] == 0 {
		return 0
	}
	return captureWanted()
}

// loadInspect resolves the extension's entry points when d captures.
func (d *device) loadInspect(p *physical) {
	if d.l.borrowed {
		return // the host's device: kc did not enable the extension
	}
	d.capture = p.captureFlags()
	if d.capture == 0 {
		return
	}
	g, h := d.l.in.fn.getDeviceProcAddr, d.l.handle
	d.inspect = inspectFns{
		props: procAddr(g, h, "vkGetPipelineExecutablePropertiesKHR"),
		stats: procAddr(g, h, "vkGetPipelineExecutableStatisticsKHR"),
		reprs: procAddr(g, h, "vkGetPipelineExecutableInternalRepresentationsKHR"),
	}
	if d.inspect.props == 0 || d.inspect.stats == 0 {
		d.capture = 0
	}
}

// executables names the pipeline's executables (index order), or says
// why the device cannot be asked.
func (p *pipeline) executables(a *arena) ([]string, error) {
	d := p.d
	if err := d.usable(); err != nil {
		return nil, err
	}
	pi := newIn[vkPipelineInfo](a)
	*pi = vkPipelineInfo{sType: stPipelineInfo, pipeline: p.handle}
	props, err := execQuery[vkPipelineExecutableProperties](d, a, "vkGetPipelineExecutablePropertiesKHR", d.inspect.props, addr(pi), stPipelineExecProps)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range props {
		names = append(names, cString(e.name[:]))
	}
	return names, nil
}

// execQuery runs one of the extension's two-call queries,
// fn(device, in, &n, out): first the count n, then up to n structures
// filled, each set to sType st first (every Vulkan structure begins with
// its sType); VK_INCOMPLETE keeps what was written.
func execQuery[T any](d *device, a *arena, name string, fn, in uintptr, st uint32) ([]T, error) {
	n := newIn[uint32](a)
	if err := check(name, call(fn, d.l.handle, in, addr(n), 0)); err != nil {
		return nil, err
	}
	out := sliceIn[T](a, int(*n))
	for i := range out {
		*(*uint32)(unsafe.Pointer(&out[i])) = st
	}
	if len(out) > 0 {
		if r := call(fn, d.l.handle, in, addr(n), saddr(out)); r != 0 && r != 5 {
			return nil, check(name, r)
		}
	}
	return out[:min(int(*n), len(out))], nil
}

// Statistics implements backend.PipelineInspector.
func (p *pipeline) Statistics() ([]backend.PipelineStat, error) {
	d := p.d
	if d.capture&captureStatistics == 0 {
		return nil, backend.ErrNoStatistics
	}
	var a arena
	defer a.free()
	execs, err := p.executables(&a)
	if err != nil {
		return nil, err
	}
	var out []backend.PipelineStat
	for i, ex := range execs {
		st, err := execQuery[vkPipelineExecutableStatistic](d, &a, "vkGetPipelineExecutableStatisticsKHR", d.inspect.stats, addr(p.execInfo(&a, i)), stPipelineExecStat)
		if err != nil {
			return nil, err
		}
		for _, s := range st {
			out = append(out, backend.PipelineStat{Executable: ex, Name: cString(s.name[:]),
				Description: cString(s.description[:]), Value: statValue(s.format, s.value)})
		}
	}
	return out, nil
}

// statValue reads a VkPipelineExecutableStatisticValueKHR by its format.
func statValue(format uint32, v uint64) float64 {
	switch format {
	case 0: // BOOL32
		if uint32(v) != 0 {
			return 1
		}
		return 0
	case 1: // INT64
		return float64(int64(v))
	case 3: // FLOAT64
		return math.Float64frombits(v)
	}
	return float64(v) // UINT64
}

func (p *pipeline) execInfo(a *arena, i int) *vkPipelineExecutableInfo {
	info := newIn[vkPipelineExecutableInfo](a)
	*info = vkPipelineExecutableInfo{sType: stPipelineExecInfo, pipeline: p.handle, executableIndex: uint32(i)}
	return info
}

// Representations implements backend.PipelineInspector.
func (p *pipeline) Representations() ([]backend.PipelineRepresentation, error) {
	d := p.d
	if d.capture&captureIR == 0 || d.inspect.reprs == 0 {
		return nil, backend.ErrNoStatistics
	}
	var a arena
	defer a.free()
	execs, err := p.executables(&a)
	if err != nil {
		return nil, err
	}
	const name = "vkGetPipelineExecutableInternalRepresentationsKHR"
	var out []backend.PipelineRepresentation
	for i, ex := range execs {
		// First the sizes (pData null), then the data.
		info := p.execInfo(&a, i)
		rs, err := execQuery[vkPipelineExecutableIR](d, &a, name, d.inspect.reprs, addr(info), stPipelineExecIR)
		if err != nil {
			return nil, err
		}
		if len(rs) == 0 {
			continue
		}
		n := newIn[uint32](&a)
		*n = uint32(len(rs))
		bufs := make([]unsafe.Pointer, len(rs))
		sizes := make([]uintptr, len(rs))
		for j := range rs {
			if sizes[j] = rs[j].dataSize; sizes[j] > 0 {
				bufs[j] = a.alloc(rs[j].dataSize)
				rs[j].pData = uintptr(bufs[j])
			}
		}
		if r := call(d.inspect.reprs, d.l.handle, addr(info), addr(n), saddr(rs)); r != 0 && r != 5 {
			return nil, check(name, r)
		}
		for j, r := range rs {
			var data []byte
			if bufs[j] != nil {
				data = append(data, unsafe.Slice((*byte)(bufs[j]), min(r.dataSize, sizes[j]))...)
			}
			if r.isText != 0 && len(data) > 0 && data[len(data)-1] == 0 {
				data = data[:len(data)-1] // the text's NUL
			}
			out = append(out, backend.PipelineRepresentation{Executable: ex, Name: cString(r.name[:]),
				Description: cString(r.description[:]), Text: r.isText != 0, Data: data})
		}
	}
	return out, nil
}

var _ backend.PipelineInspector = (*pipeline)(nil)
