package ir

import "fmt"

// Types as written (parameters, shared variables, locals, constants,
// conversion targets): their structure, array lengths, and where each kind
// of type may be used.

// validType checks the structure of t and evaluates its array lengths.
func (c *checker) validType(t Type, pos Pos) bool {
	if isNil(t) {
		c.errorf(pos, "missing type")
		return false
	}
	switch t := t.(type) {
	case Scalar:
		if !validScalar(t) {
			c.errorf(pos, "invalid type %s", t)
			return false
		}
	case Vector:
		if !validScalar(t.Elem) || t.N < 2 || t.N > 4 {
			c.errorf(pos, "invalid vector type %s", t)
			return false
		}
		if t.Elem == BF16 || t.Elem.Is8Bit() {
			c.errorf(pos, "invalid vector type %s: %s is a storage type (scalars and cooperative matrices only)", t, t.Elem)
			return false
		}
	case Atomic:
		if !t.Elem.IsInt() {
			c.errorf(pos, "invalid type %s: atomics hold i32 or u32", t)
			return false
		}
	case *Array:
		if IsCoopMat(t.Elem) {
			c.errorf(pos, "invalid type %s: cooperative matrices cannot be array elements", typeText(t))
			return false
		}
		if !c.validType(t.Elem, pos) || !c.arrayLen(t, pos) {
			return false
		}
		if sharedSize(t) > maxTypeBytes {
			c.errorf(pos, "type %s is too large (over %d bytes)", t, maxTypeBytes)
			return false
		}
	case CoopMat:
		if !c.coopType(t, pos) {
			return false
		}
	case *Struct:
		if !c.structOK[t] {
			if !c.structDeclared(t) {
				c.errorf(pos, "struct %s is not declared in the module", t.Name)
			}
			return false
		}
	default:
		c.errorf(pos, "invalid type %s", typeText(t))
		return false
	}
	c.useType(t, pos)
	return true
}

// maxArrayLen bounds array lengths as Tint does; maxTypeBytes bounds the
// size of any type (so that sizes fit in int).
const (
	maxArrayLen  = 65535 // Tint: "array count must be less than 65536"
	maxTypeBytes = 1 << 30
)

// arrayLen evaluates a.LenExpr into a.Len (a positive constant integer).
func (c *checker) arrayLen(a *Array, pos Pos) bool {
	if a.LenExpr == nil {
		if a.Len <= 0 || a.Len > maxArrayLen {
			c.errorf(pos, "invalid array length %d", a.Len)
			return false
		}
		return true
	}
	a.Len = 0
	n, ok := c.constInt(a.LenExpr, "array length")
	if !ok {
		return false
	}
	if n <= 0 || n > maxArrayLen {
		c.errorf(posOf(a.LenExpr, pos), "invalid array length %d (must be 1 to %d)", n, maxArrayLen)
		return false
	}
	a.Len = int(n)
	return true
}

// constInt checks e as an integer constant (untyped ones become i32).
func (c *checker) constInt(e Expr, what string) (int64, bool) {
	t := c.value(e)
	if t == Type(untypedFloat) {
		c.errorf(posOf(e, c.at), "%s %s must be an integer", what, c.describe(e, t))
		return 0, false
	}
	t = c.toDefault(e, t)
	if bad(t) {
		return 0, false
	}
	if !c.konst[e] {
		c.errorf(posOf(e, c.at), "%s %s is not constant", what, c.describe(e, t))
		return 0, false
	}
	if t != Type(I32) && t != Type(U32) {
		c.errorf(posOf(e, c.at), "%s %s must be an integer", what, c.describe(e, t))
		return 0, false
	}
	return c.vals[e].Int, true
}

// params checks and declares the kernel's parameters.
func (c *checker) params(k *Kernel) {
	for _, p := range k.Params {
		if p == nil {
			c.errorf(k.Pos, "kernel %s: nil parameter", k.Name)
			continue
		}
		ok := false
		switch p.Kind {
		case ScalarParam:
			ok = c.scalarParam(p)
		case BufferParam:
			ok = c.bufferParamDecl(p)
		default:
			c.errorf(p.Pos, "parameter %s: invalid kind %d", p.Name, p.Kind)
		}
		if !ok {
			c.badObj[p] = true
		}
		c.declare(p, p.Pos, p.Name, "parameter")
	}
}

func (c *checker) scalarParam(p *Param) bool {
	s, ok := p.Type.(Scalar)
	switch {
	case ok && s == F16:
		c.errorf(p.Pos, "parameter %s: f16 params are not supported; pass f16 data in a buffer", p.Name)
	case !ok || (s != I32 && s != U32 && s != F32):
		c.errorf(p.Pos, "parameter %s: scalar parameters must be i32, u32 or f32, not %s", p.Name, typeText(p.Type))
	default:
		return true
	}
	return false
}

func (c *checker) bufferParamDecl(p *Param) bool {
	if !c.validType(p.Type, p.Pos) {
		return false
	}
	switch {
	case p.Access != Read && p.Access != ReadWrite:
		c.errorf(p.Pos, "buffer %s: invalid access mode %d (want read or read_write)", p.Name, p.Access)
	case !HostShareable(p.Type):
		if _, ok := p.Type.(*Struct); ok {
			c.errorf(p.Pos, "buffer %s: element type %s is not host-shareable (%s)", p.Name, p.Type, notHostShareable(p.Type))
			break
		}
		c.errorf(p.Pos, "buffer %s: element type %s is not host-shareable (%s)", p.Name, p.Type, notHostShareable(p.Type))
	case hasAtomic(p.Type) && p.Access != ReadWrite:
		c.errorf(p.Pos, "buffer %s: atomic elements need read_write access", p.Name)
	default:
		return true
	}
	return false
}

// Limits. The workgroup size is bounded by the language, not by a device:
// 1024 invocations, x and y up to 1024, z up to 64 (CUDA's block and HLSL's
// numthreads limits; Vulkan devices commonly allow as much). Whether a
// device runs a size is checked where the kernel is loaded (backend), and
// WebGPU's default limits (256 invocations, 256x256x64) are a warning of
// `kc check` (WebGPULimitWarnings). Shared memory likewise: the language
// allows 256 KiB (above any GPU's per-workgroup memory today: Hopper's is
// 227 KiB under CUDA, and Vulkan drivers report less, 48 KiB on the H200,
// 32 KiB on lavapipe); the backend checks the kernel's bytes against the
// device's maxComputeSharedMemorySize when it loads it, and `kc check`
// warns above WebGPU's default maxComputeWorkgroupStorageSize of 16 KiB.
const (
	maxInvocations  = 1024
	maxSharedBytes  = 256 << 10
	webgpuSharedMin = 16384
)

var maxWorkgroupDim = [3]int64{1024, 1024, 64}

// WebGPU's default limits of the workgroup size
// (maxComputeInvocationsPerWorkgroup, maxComputeWorkgroupSizeX/Y/Z).
const webgpuInvocations = 256

var webgpuWorkgroupDim = [3]int{256, 256, 64}

// WebGPULimitWarnings describes each checked kernel of m whose workgroup
// size or shared memory exceeds WebGPU's default limits: a WGSL device that
// grants only the defaults refuses to load it. Each entry reads
// file:line:col: message.
func WebGPULimitWarnings(m *Module) []string {
	var out []string
	for _, k := range m.Kernels {
		if n := KernelSharedBytes(k); n > webgpuSharedMin {
			out = append(out, fmt.Sprintf("%s: warning: kernel %s: %d bytes of shared memory exceed %d, WebGPU's default maxComputeWorkgroupStorageSize (WGSL devices that grant only the defaults refuse it)",
				k.Pos, k.Name, n, webgpuSharedMin))
		}
		s := k.Size
		if total := s[0] * s[1] * s[2]; total > webgpuInvocations {
			out = append(out, fmt.Sprintf("%s: warning: kernel %s: workgroup size %dx%dx%d = %d invocations exceeds %d, WebGPU's default maxComputeInvocationsPerWorkgroup (WGSL devices that grant only the defaults refuse it)",
				k.Pos, k.Name, s[0], s[1], s[2], total, webgpuInvocations))
			continue
		}
		for i, n := range s {
			if n > webgpuWorkgroupDim[i] {
				dim := "xyz"[i : i+1]
				out = append(out, fmt.Sprintf("%s: warning: kernel %s: workgroup size %s = %d exceeds %d, WebGPU's default maxComputeWorkgroupSize%s",
					k.Pos, k.Name, dim, n, webgpuWorkgroupDim[i], upper(dim)))
			}
		}
	}
	return out
}

// workgroupSize evaluates k.Workgroup into k.Size and checks the limits.
func (c *checker) workgroupSize(k *Kernel) {
	n := len(k.Workgroup)
	if n == 0 || n > 3 {
		c.errorf(k.Pos, "kernel %s: workgroup size needs 1 to 3 dimensions, not %d", k.Name, n)
		return
	}
	size := [3]int{1, 1, 1}
	ok := true
	defer func(saved Pos) { c.at = saved }(c.at)
	c.at = k.Pos
	for i, e := range k.Workgroup {
		v, good := c.constInt(e, "workgroup size")
		p, dim := posOf(e, k.Pos), "xyz"[i:i+1]
		switch {
		case !good:
			ok = false
		case v < 1:
			c.errorf(p, "workgroup size %s = %d must be at least 1", dim, v)
			ok = false
		case v > maxWorkgroupDim[i]:
			c.errorf(p, "workgroup size %s = %d exceeds %d (the language's limit)", dim, v, maxWorkgroupDim[i])
			ok = false
		default:
			size[i] = int(v)
		}
	}
	if !ok {
		return
	}
	if total := size[0] * size[1] * size[2]; total > maxInvocations {
		c.errorf(k.Pos, "workgroup size %dx%dx%d = %d invocations exceeds %d (the language's limit)",
			size[0], size[1], size[2], total, maxInvocations)
		return
	}
	k.Size = size
}

func upper(s string) string { return string(s[0] - 'a' + 'A') }

// sharedVars checks and declares the shared variables and their total size.
func (c *checker) sharedVars(k *Kernel) {
	total := 0
	for _, s := range k.Shared {
		if s == nil {
			c.errorf(k.Pos, "kernel %s: nil shared variable", k.Name)
			continue
		}
		if IsCoopMat(s.Type) {
			c.errorf(s.Pos, "shared %s: a cooperative matrix cannot live in shared memory (store it to a shared array with coopStore)", s.Name)
			c.badObj[s] = true
		} else if !c.validType(s.Type, s.Pos) {
			c.badObj[s] = true
		} else {
			before := total
			total += roundUp(sharedSize(s.Type), 16)
			if before <= maxSharedBytes && total > maxSharedBytes {
				c.errorf(s.Pos, "shared memory: %s brings the total to %d bytes, over %d (the language's limit; devices allow less: the backend checks each device's maxComputeSharedMemorySize)",
					s.Name, total, maxSharedBytes)
			}
		}
		c.declare(s, s.Pos, s.Name, "shared variable")
	}
}

// KernelSharedBytes is the workgroup memory of k's shared variables as the
// checker counts it: each std430-like, bool as 4 bytes, rounded up to 16.
// The reflection's SharedBytes is the same sum.
func KernelSharedBytes(k *Kernel) int {
	n := 0
	for _, s := range k.Shared {
		if s != nil && s.Type != nil && !IsCoopMat(s.Type) {
			n += roundUp(sharedSize(s.Type), 16)
		}
	}
	return n
}

// sharedSize is the byte size of t in workgroup memory, std430-like, with
// bool counted as a 4-byte value.
func sharedSize(t Type) int { return ElemStride(boolAsU32(t)) }

func boolAsU32(t Type) Type {
	switch t := t.(type) {
	case Scalar, Vector:
		if ElemScalar(t) == Bool {
			return WithElem(t, U32)
		}
	case *Array:
		return &Array{Elem: boolAsU32(t.Elem), Len: t.Len}
	}
	return t
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// useType records the f16 feature for a type that mentions f16.
func (c *checker) useType(t Type, pos Pos) {
	if UsesF16(t) {
		c.useFeature(FeatureF16, pos, "f16")
	}
	if UsesBF16(t) {
		c.useFeature(FeatureBF16, pos, "bf16")
	}
	if UsesInt8(t) {
		c.useFeature(FeatureInt8, pos, "i8/u8")
	}
}

// localType checks the type written in a local declaration.
func (c *checker) localType(t Type, pos Pos, name string) bool {
	if !c.validType(t, pos) {
		return false
	}
	if hasAtomic(t) {
		c.errorf(pos, "variable %s: atomic types can only be used in read_write buffers and shared memory", name)
		return false
	}
	return true
}
