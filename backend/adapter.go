package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// DeviceType is the kind of hardware behind an adapter.
type DeviceType uint8

// Device types, as Vulkan and WebGPU report them.
const (
	TypeUnknown    DeviceType = iota
	TypeDiscrete              // a discrete GPU
	TypeIntegrated            // a GPU sharing memory with the CPU
	TypeVirtual               // a virtualised GPU
	TypeCPU                   // a software rasteriser (lavapipe, llvmpipe, WARP)
)

var typeNames = [...]string{"unknown", "discrete", "integrated", "virtual", "cpu"}

func (t DeviceType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "DeviceType(" + strconv.Itoa(int(t)) + ")"
}

// MarshalText writes the type's name (for JSON).
func (t DeviceType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a name MarshalText wrote.
func (t *DeviceType) UnmarshalText(b []byte) error {
	for i, n := range typeNames {
		if n == string(b) {
			*t = DeviceType(i)
			return nil
		}
	}
	return fmt.Errorf("backend: unknown device type %q", b)
}

// Limits are the adapter limits kc checks on the host before recording.
type Limits struct {
	MaxBufferSize                   int64
	MaxStorageBufferBindingSize     int64
	MaxUniformBufferBindingSize     int64
	MaxStorageBuffersPerStage       int
	MinStorageBufferOffsetAlignment int64
	MinUniformBufferOffsetAlignment int64
	MaxWorkgroupSize                [3]int
	MaxInvocationsPerWorkgroup      int
	MaxWorkgroupsPerDimension       uint32
	MaxSharedMemory                 int // bytes of workgroup memory
	// MaxLoopIterations is how many loop iterations one invocation may
	// run, all its loops together, before the driver silently ends every
	// loop; 0 means no known limit. It is a driver quirk, not a Vulkan or
	// WebGPU limit (those let a terminating loop run to its end): Mesa's
	// llvmpipe (lavapipe) counts each iteration and each loop's final exit
	// test and stops at LLVMPipeLoopIterations (docs/lavapipe.md). The
	// drivers set it from the device's identity, not from a query.
	MaxLoopIterations int `json:",omitempty"`
}

// LLVMPipeLoopIterations is Mesa llvmpipe's loop budget per invocation
// (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, measured with Mesa 22.3.6), the
// MaxLoopIterations the drivers report for an llvmpipe device.
const LLVMPipeLoopIterations = 65535

// IsLLVMPipe says whether a device name is Mesa llvmpipe's ("llvmpipe
// (LLVM 15.0.6, 256 bits)"), for drivers that have nothing better to go by.
func IsLLVMPipe(name string) bool { return strings.HasPrefix(name, "llvmpipe") }

// CoopMatShape is one cooperative-matrix instruction shape an adapter offers
// (from vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR or the NV
// equivalent): D(MxN, Result) = A(MxK, A) * B(KxN, B) + C(MxN, C). Type names
// are "f16", "bf16", "f32", "f64", "s8", "u8", "s32", "u32".
type CoopMatShape struct {
	M, N, K    int
	A, B, C    string
	Result     string
	Saturating bool   `json:",omitempty"`
	Scope      string // "subgroup" or "workgroup" (NV cooperative_matrix2), ...
	Flavor     string // "khr", "nv", or "flex" (CoopMat2.Flexible)
	// Invocations is the workgroup size a workgroup-scope flexible shape
	// requires (VkCooperativeMatrixFlexibleDimensionsPropertiesNV's
	// workgroupInvocations); 0 otherwise.
	Invocations int `json:",omitempty"`
}

// CoopMat2 is what a device offers of VK_NV_cooperative_matrix2: its
// features (as enabled on the device kc creates), limits and flexible
// dimensions. kc's workgroup-scope matrices (`enable cooperative_matrix2`)
// need WorkgroupScope, and shapes other than CoopMat's fixed ones need
// FlexibleDimensions.
type CoopMat2 struct {
	WorkgroupScope     bool // cooperativeMatrixWorkgroupScope
	FlexibleDimensions bool // cooperativeMatrixFlexibleDimensions
	Reductions         bool // cooperativeMatrixReductions
	Conversions        bool // cooperativeMatrixConversions
	PerElementOps      bool // cooperativeMatrixPerElementOperations
	TensorAddressing   bool // cooperativeMatrixTensorAddressing
	BlockLoads         bool // cooperativeMatrixBlockLoads
	// MaxWorkgroupSize bounds the invocations of a workgroup that uses a
	// workgroup-scope matrix (cooperativeMatrixWorkgroupScopeMaxWorkgroupSize).
	MaxWorkgroupSize int
	// MaxDimension bounds the rows and columns of a flexible-dimension
	// matrix (cooperativeMatrixFlexibleDimensionsMaxDimension).
	MaxDimension int
	// ReservedShared is the shared memory, in bytes, the driver keeps for
	// itself in a workgroup that uses a workgroup-scope matrix
	// (cooperativeMatrixWorkgroupScopeReservedSharedMemory): such a kernel
	// may declare Limits.MaxSharedMemory minus this.
	ReservedShared int
	// Flexible lists the flexible-dimension shapes: M, N and K are
	// granularities (a matrix's rows and columns are multiples of them),
	// Scope and Invocations say at which scope and workgroup size.
	Flexible []CoopMatShape
}

// WorkgroupShapes returns the flexible workgroup-scope entries for inputs
// of type in and accumulators of type acc ("f16", "bf16", "f32"), most
// invocations first (the H200 offers 32, 64, 128 and 256), leaving out
// those over MaxWorkgroupSize; none when the device lacks workgroup scope
// or flexible dimensions.
func (c *CoopMat2) WorkgroupShapes(in, acc string) []CoopMatShape {
	if c == nil || !c.WorkgroupScope || !c.FlexibleDimensions {
		return nil
	}
	var out []CoopMatShape
	for _, s := range c.Flexible {
		if s.Scope == "workgroup" && s.A == in && s.B == in && s.C == acc && s.Result == acc && !s.Saturating &&
			s.Invocations > 0 && (c.MaxWorkgroupSize == 0 || s.Invocations <= c.MaxWorkgroupSize) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Invocations > out[j].Invocations })
	return out
}

func (s CoopMatShape) String() string {
	return fmt.Sprintf("%dx%dx%d %s*%s+%s->%s (%s)", s.M, s.N, s.K, s.A, s.B, s.C, s.Result, s.Flavor)
}

// AdapterInfo describes one adapter of one driver.
type AdapterInfo struct {
	Index       int        // position in Adapters() (all drivers); set by package backend
	Driver      string     // driver name: "wgpu", "vulkan"
	DriverIndex int        // position in the driver's own list
	Name        string     // device name ("NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)")
	API         string     // graphics API and version: "Vulkan 1.3.255", "Vulkan", "Metal", "OpenGL"
	Type        DeviceType // discrete, integrated, cpu, ...
	VendorID    uint32
	DeviceID    uint32
	DriverInfo  string // driver name and version as the API reports them

	Targets []Target // artifact kinds the device accepts, preferred first

	Limits Limits
	F16    bool // f16 arithmetic and 16-bit storage in shaders
	// BF16: the bf16 type in shaders, its conversions and 16-bit storage
	// (Vulkan: VK_KHR_shader_bfloat16's shaderBFloat16Type and
	// storageBuffer16BitAccess). bf16 cooperative matrices need, besides,
	// a CoopMat shape with bf16 inputs.
	BF16 bool
	// Int8: 8-bit integers in shaders and 8-bit storage (Vulkan: shaderInt8
	// and storageBuffer8BitAccess). i8/u8 cooperative matrices need,
	// besides, a CoopMat shape with s8/u8 inputs.
	Int8         bool
	Subgroups    bool           // subgroup operations usable from the accepted targets
	SubgroupSize int            // the default subgroup size (0: unknown)
	SubgroupMin  int            // smallest subgroup size (0: unknown)
	SubgroupMax  int            // largest subgroup size (0: unknown)
	Timestamps   bool           // GPU timestamps between commands
	TimestampNs  float64        // nanoseconds per timestamp tick (the period)
	CoopMat      []CoopMatShape // cooperative-matrix shapes; empty when none
	// CoopMat2: VK_NV_cooperative_matrix2 (workgroup-scope matrices,
	// flexible dimensions); nil when the device lacks it
	CoopMat2 *CoopMat2 `json:",omitempty"`
	// IntegerDot: the packed 4x8-bit integer dot products (dot4I8Packed,
	// dot4U8Packed) are usable from the accepted targets (Vulkan's
	// shaderIntegerDotProduct)
	IntegerDot bool
	Extensions []string `json:",omitempty"` // notable extensions (Vulkan: cooperative matrix, subgroup size control, ...)
}

func (a AdapterInfo) String() string {
	return fmt.Sprintf("%d: %s [%s %s, %s]", a.Index, a.Name, a.Driver, a.API, a.Type)
}

// Adapters enumerates every adapter of every registered driver. Adapters
// are numbered across drivers: drivers in name order, each driver's adapters
// in its own order. A driver that fails to enumerate (its system library is
// missing, say) contributes no adapters; its error is joined into err,
// which is non-nil only when some driver failed, even when others
// succeeded: callers that want any working adapter use the slice.
func Adapters(ctx context.Context) ([]AdapterInfo, error) {
	var out []AdapterInfo
	var errs []error
	for _, name := range Drivers() {
		as, err := driverByName(name).Adapters(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("driver %s: %w", name, err))
			continue
		}
		for i, a := range as {
			a.Driver = name
			a.DriverIndex = i
			a.Index = len(out)
			out = append(out, a)
		}
	}
	return out, errors.Join(errs...)
}

// Rank orders adapters for Choose: lower is better. The policy is: a
// Vulkan-driver adapter with cooperative matrices first, then a discrete
// Vulkan-driver adapter, then the best wgpu adapter (discrete, integrated,
// virtual, cpu; wgpu over Vulkan before other APIs of the same type), then
// anything else in the same type order.
func Rank(a AdapterInfo) int {
	typeRank := map[DeviceType]int{TypeDiscrete: 0, TypeIntegrated: 1, TypeVirtual: 2, TypeCPU: 3}
	tr, ok := typeRank[a.Type]
	if !ok {
		tr = 4
	}
	switch {
	case a.Driver == "vulkan" && len(a.CoopMat) > 0:
		return 0 + tr
	case a.Driver == "vulkan" && a.Type == TypeDiscrete:
		return 10
	case a.Driver == "wgpu" && a.API == "Vulkan":
		return 20 + 2*tr
	case a.Driver == "wgpu":
		return 21 + 2*tr
	}
	return 30 + tr
}

// Choose returns the position in as of the adapter the policy prefers (see
// Rank; the first of equals), or -1 when as is empty.
func Choose(as []AdapterInfo) int {
	best := -1
	for i, a := range as {
		if best < 0 || Rank(a) < Rank(as[best]) {
			best = i
		}
	}
	return best
}

// Select resolves a device selector against as and returns a position in
// as. The selector (the KC_DEVICE environment variable, the -device flag)
// is one of:
//
//	""              the policy's choice (Choose)
//	"3"             adapter 3 of Adapters()
//	"vulkan"        the policy's choice among one driver's adapters
//	"wgpu:1"        adapter 1 of one driver's own list
//	"llvmpipe"      the first adapter whose name contains the text (case-insensitive)
func Select(as []AdapterInfo, sel string) (int, error) {
	sel = strings.TrimSpace(sel)
	if len(as) == 0 {
		return -1, errors.New("backend: no GPU adapters found" + driversHint())
	}
	if sel == "" {
		return Choose(as), nil
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 0 || n >= len(as) {
			return -1, fmt.Errorf("backend: device %d out of range (have %d adapters)", n, len(as))
		}
		return n, nil
	}
	if drv, idx, ok := strings.Cut(sel, ":"); ok {
		n, err := strconv.Atoi(idx)
		if err != nil {
			return -1, fmt.Errorf("backend: bad device selector %q (want DRIVER:N)", sel)
		}
		for i, a := range as {
			if a.Driver == drv && a.DriverIndex == n {
				return i, nil
			}
		}
		return -1, fmt.Errorf("backend: no adapter %d for driver %q", n, drv)
	}
	var sub []AdapterInfo
	for _, a := range as {
		if a.Driver == sel {
			sub = append(sub, a)
		}
	}
	if len(sub) > 0 {
		return sub[Choose(sub)].Index, nil
	}
	low := strings.ToLower(sel)
	for i, a := range as {
		if strings.Contains(strings.ToLower(a.Name), low) || strings.Contains(strings.ToLower(a.DriverInfo), low) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("backend: no adapter matches device selector %q", sel)
}

func driversHint() string {
	if len(Drivers()) == 0 {
		return " (no drivers registered: import github.com/kcgo/kc/backend/wgpu or backend/vulkan)"
	}
	return ""
}

// EnvDevice is the environment variable that selects a device (see Select).
const EnvDevice = "KC_DEVICE"

// Open opens a device. sel is a selector as Select takes it; when sel is
// empty the KC_DEVICE environment variable is used, and when that is empty
// too, the policy's choice.
func Open(ctx context.Context, sel string) (*Device, error) {
	if sel == "" {
		sel = os.Getenv(EnvDevice)
	}
	as, enumErr := Adapters(ctx)
	i, err := Select(as, sel)
	if err != nil {
		if enumErr != nil {
			err = fmt.Errorf("%w (%v)", err, enumErr)
		}
		return nil, err
	}
	return OpenAdapter(ctx, as[i])
}

// Supports reports whether an adapter offers every feature in need.
func Supports(a AdapterInfo, need ir.Features) bool {
	return (need&ir.FeatureF16 == 0 || a.F16) &&
		(need&ir.FeatureSubgroups == 0 || a.Subgroups) &&
		(need&ir.FeatureCoopMat == 0 || len(a.CoopMat) > 0) &&
		(need&ir.FeatureDot4Packed == 0 || a.IntegerDot) &&
		(need&ir.FeatureBF16 == 0 || a.BF16) &&
		(need&ir.FeatureInt8 == 0 || a.Int8) &&
		(need&ir.FeatureCoopMat2 == 0 || (a.CoopMat2 != nil && a.CoopMat2.WorkgroupScope))
}

// OpenFor is Open for kernels ks of a checked module: with no selector
// (sel and KC_DEVICE empty) it opens the policy's choice among the
// adapters that can run every one of them (SupportsKernel: features and
// cooperative-matrix types); an explicit selector is obeyed as Open does.
func OpenFor(ctx context.Context, sel string, ks ...*ir.Kernel) (*Device, error) {
	if sel == "" {
		sel = os.Getenv(EnvDevice)
	}
	var need ir.Features
	for _, k := range ks {
		need |= k.Features
	}
	if sel != "" || need == 0 {
		return Open(ctx, sel)
	}
	as, enumErr := Adapters(ctx)
	var ok []AdapterInfo
	var why error
	for _, a := range as {
		if err := supportsAll(a, ks); err != nil {
			why = err
			continue
		}
		ok = append(ok, a)
	}
	if len(ok) == 0 {
		err := fmt.Errorf("backend: no adapter supports %s", featureNames(need))
		if why != nil {
			err = fmt.Errorf("%w (%v)", err, why)
		}
		if enumErr != nil {
			err = fmt.Errorf("%w (%v)", err, enumErr)
		}
		return nil, err
	}
	return OpenAdapter(ctx, ok[Choose(ok)])
}

// supportsAll is SupportsKernel for each of ks.
func supportsAll(a AdapterInfo, ks []*ir.Kernel) error {
	for _, k := range ks {
		if err := SupportsKernel(a, k); err != nil {
			return err
		}
	}
	return nil
}

// optionalFeatures are the features a device may lack, in the order
// messages name them.
var optionalFeatures = []ir.Feature{ir.FeatureF16, ir.FeatureSubgroups, ir.FeatureCoopMat, ir.FeatureDot4Packed, ir.FeatureBF16, ir.FeatureInt8, ir.FeatureCoopMat2}

func featureNames(f ir.Features) string {
	var names []string
	for _, x := range optionalFeatures {
		if f&x != 0 {
			names = append(names, x.Name())
		}
	}
	return strings.Join(names, " and ")
}

// OpenAdapter opens the device for an adapter that Adapters returned.
func OpenAdapter(ctx context.Context, a AdapterInfo) (*Device, error) {
	drv := driverByName(a.Driver)
	if drv == nil {
		return nil, fmt.Errorf("backend: driver %q is not registered", a.Driver)
	}
	impl, err := drv.Open(ctx, a.DriverIndex)
	if err != nil {
		return nil, fmt.Errorf("backend: open %s adapter %d (%s): %w", a.Driver, a.DriverIndex, a.Name, err)
	}
	info := impl.Info()
	info.Index, info.Driver, info.DriverIndex = a.Index, a.Driver, a.DriverIndex
	return newDevice(impl, info), nil
}
