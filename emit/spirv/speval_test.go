package spirv

import (
	"fmt"
	"math"
	"math/bits"
)

// A small evaluator of the SPIR-V this package emits, for tests: it runs
// one entry point for one invocation at a time, over buffers of 32-bit
// (and 16-bit float) scalars and vectors. It knows no barriers, shared
// memory, atomics or subgroups, so it serves kernels whose invocations are
// independent. It exists to check the semantics of the emitted guards
// (division, remainder, shifts, conversions), of structured control flow
// (switch included) and of function calls against the reference
// interpreter, bit for bit.

// val is a value or a memory object: a scalar's bits, or components.
type val struct {
	s uint32
	c []*val
}

func (v *val) clone() *val {
	if v.c == nil {
		return &val{s: v.s}
	}
	out := &val{c: make([]*val, len(v.c))}
	for i, x := range v.c {
		out.c[i] = x.clone()
	}
	return out
}

type ptr struct {
	root *val
	path []int
}

func (p ptr) deref() *val {
	v := p.root
	for _, i := range p.path {
		if i < 0 || i >= len(v.c) {
			panic(fmt.Sprintf("out of bounds index %d of %d", i, len(v.c)))
		}
		v = v.c[i]
	}
	return v
}

type sptype struct {
	o      op
	width  uint32
	signed bool
	bf     bool     // OpTypeFloat 16 BFloat16KHR
	elem   uint32   // vector/array/pointer element type
	n      int      // vector count, array length
	sc     uint32   // pointer storage class
	fields []uint32 // struct member types
}

type spinst struct {
	o   op
	ops []uint32
}

type speval struct {
	types   map[uint32]sptype
	consts  map[uint32]*val
	ctype   map[uint32]uint32 // type of each constant
	globals map[uint32]*val   // variable storage
	varType map[uint32]uint32
	varSC   map[uint32]uint32
	binding map[uint32]uint32
	builtin map[uint32]uint32
	entry   map[string]uint32 // entry point name -> function id
	bodies  map[uint32][]spinst
	labels  map[uint32]map[uint32]int
	size    map[string][3]uint32
}

func newSpeval(words []uint32) (*speval, error) {
	e := &speval{types: map[uint32]sptype{}, consts: map[uint32]*val{}, ctype: map[uint32]uint32{}, globals: map[uint32]*val{},
		varType: map[uint32]uint32{}, varSC: map[uint32]uint32{}, binding: map[uint32]uint32{}, builtin: map[uint32]uint32{},
		entry: map[string]uint32{}, bodies: map[uint32][]spinst{}, labels: map[uint32]map[uint32]int{}, size: map[string][3]uint32{}}
	names := map[uint32]string{}
	var cur []spinst
	var curFn uint32
	fnBodies := map[uint32][]spinst{}
	err := forEachInst(words[5:], 5, func(off int, o op, w []uint32) error {
		w = append([]uint32(nil), w...)
		switch o {
		case opEntryPoint:
			s, _, _ := decodeString(w[2:])
			names[w[1]] = s
		case opExecutionMode:
			e.size[names[w[0]]] = [3]uint32{w[2], w[3], w[4]}
		case opDecorate:
			switch w[1] {
			case decBinding:
				e.binding[w[0]] = w[2]
			case decBuiltIn:
				e.builtin[w[0]] = w[2]
			}
		case opTypeBool:
			e.types[w[0]] = sptype{o: o}
		case opTypeInt:
			e.types[w[0]] = sptype{o: o, width: w[1], signed: w[2] == 1}
		case opTypeFloat:
			e.types[w[0]] = sptype{o: o, width: w[1], bf: len(w) > 2 && w[2] == fpEncodingBFloat16}
		case opTypeVector:
			e.types[w[0]] = sptype{o: o, elem: w[1], n: int(w[2])}
		case opTypeArray:
			e.types[w[0]] = sptype{o: o, elem: w[1], n: int(e.consts[w[2]].s)}
		case opTypeRuntimeArray:
			e.types[w[0]] = sptype{o: o, elem: w[1]}
		case opTypeStruct:
			e.types[w[0]] = sptype{o: o, n: len(w) - 1, elem: w[1], fields: w[1:]}
		case opTypePointer:
			e.types[w[0]] = sptype{o: o, sc: w[1], elem: w[2]}
		case opConstant:
			e.consts[w[1]] = &val{s: w[2]}
			e.ctype[w[1]] = w[0]
		case opConstantTrue:
			e.consts[w[1]] = &val{s: 1}
		case opConstantFalse:
			e.consts[w[1]] = &val{s: 0}
		case opConstantNull:
			e.consts[w[1]] = e.zero(w[0])
		case opConstantComposite:
			v := &val{}
			for _, id := range w[2:] {
				v.c = append(v.c, e.consts[id].clone())
			}
			e.consts[w[1]] = v
		case opVariable:
			if curFn == 0 {
				e.varType[w[1]] = e.types[w[0]].elem
				e.varSC[w[1]] = e.types[w[0]].sc
			} else {
				cur = append(cur, spinst{o, w})
			}
		case opFunction:
			curFn = w[1]
			cur = nil
		case opFunctionEnd:
			fnBodies[curFn] = cur
			curFn = 0
		default:
			if curFn != 0 {
				cur = append(cur, spinst{o, w})
			}
		}
		return nil
	})
	for id, name := range names {
		e.entry[name] = id
	}
	for id, body := range fnBodies {
		e.bodies[id] = body
		lab := map[uint32]int{}
		for i, in := range body {
			if in.o == opLabel {
				lab[in.ops[0]] = i
			}
		}
		e.labels[id] = lab
	}
	return e, err
}

// zero returns the zero value of type t.
func (e *speval) zero(t uint32) *val {
	ty := e.types[t]
	switch ty.o {
	case opTypeVector, opTypeArray:
		v := &val{c: make([]*val, ty.n)}
		for i := range v.c {
			v.c[i] = e.zero(ty.elem)
		}
		return v
	case opTypeStruct:
		v := &val{c: make([]*val, len(ty.fields))}
		for i, f := range ty.fields {
			v.c[i] = e.zero(f)
		}
		return v
	}
	return &val{}
}

// run executes entry point name for every invocation of groups
// workgroups. buffers maps binding numbers to element values; params are
// the params block members in order.
func (e *speval) run(name string, groups [3]uint32, params []uint32, buffers map[uint32][]*val) error {
	for id := range e.varType {
		switch e.varSC[id] {
		case scUniform:
			p := &val{}
			for _, x := range params {
				p.c = append(p.c, &val{s: x})
			}
			e.globals[id] = p
		case scStorageBuffer:
			e.globals[id] = &val{c: []*val{{c: buffers[e.binding[id]]}}}
		case scWorkgroup:
			// Not supported: an access fails ("no pointer"), but another
			// kernel's shared variables in the same module do no harm.
			delete(e.globals, id)
		}
	}
	size := e.size[name]
	for gz := uint32(0); gz < groups[2]; gz++ {
		for gy := uint32(0); gy < groups[1]; gy++ {
			for gx := uint32(0); gx < groups[0]; gx++ {
				for lz := uint32(0); lz < size[2]; lz++ {
					for ly := uint32(0); ly < size[1]; ly++ {
						for lx := uint32(0); lx < size[0]; lx++ {
							inv := invocation{
								wg:  [3]uint32{gx, gy, gz},
								lid: [3]uint32{lx, ly, lz},
								ng:  groups,
								sz:  size,
							}
							if err := e.invoke(name, inv); err != nil {
								return err
							}
						}
					}
				}
			}
		}
	}
	return nil
}

type invocation struct{ wg, lid, ng, sz [3]uint32 }

func (e *speval) builtinValue(bi uint32, inv invocation) *val {
	vec := func(a [3]uint32) *val { return &val{c: []*val{{s: a[0]}, {s: a[1]}, {s: a[2]}}} }
	switch bi {
	case biGlobalInvocationID:
		var g [3]uint32
		for i := range g {
			g[i] = inv.wg[i]*inv.sz[i] + inv.lid[i]
		}
		return vec(g)
	case biLocalInvocationID:
		return vec(inv.lid)
	case biWorkgroupID:
		return vec(inv.wg)
	case biNumWorkgroups:
		return vec(inv.ng)
	case biLocalInvocationIndex:
		return &val{s: inv.lid[0] + inv.sz[0]*(inv.lid[1]+inv.sz[1]*inv.lid[2])}
	}
	panic(fmt.Sprintf("builtin %d not supported", bi))
}

// invoke runs one invocation.
func (e *speval) invoke(name string, inv invocation) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	e.exec(e.entry[name], inv, nil)
	return nil
}

// exec runs function fn with arguments args and returns its result (nil
// for none); it panics on what it cannot evaluate.
func (e *speval) exec(fn uint32, inv invocation, args []*val) *val {
	body := e.bodies[fn]
	labels := e.labels[fn]
	vals := map[uint32]*val{}
	vtype := map[uint32]uint32{}
	// scalarTypeOf is the scalar type of a value (the element of a vector).
	scalarTypeOf := func(id uint32) sptype {
		t, ok := vtype[id]
		if !ok {
			t = e.ctype[id]
		}
		st := e.types[t]
		if st.o == opTypeVector {
			st = e.types[st.elem]
		}
		return st
	}
	ptrs := map[uint32]ptr{}
	get := func(id uint32) *val {
		if v, ok := vals[id]; ok {
			return v
		}
		if v, ok := e.consts[id]; ok {
			return v
		}
		panic(fmt.Sprintf("no value for id %d", id))
	}
	pointer := func(id uint32) ptr {
		if p, ok := ptrs[id]; ok {
			return p
		}
		if g, ok := e.globals[id]; ok {
			return ptr{root: g}
		}
		if bi, ok := e.builtin[id]; ok {
			return ptr{root: e.builtinValue(bi, inv)}
		}
		panic(fmt.Sprintf("no pointer for id %d", id))
	}
	var prev, curLabel uint32
	nparam := 0
	for pc := 0; pc < len(body); pc++ {
		in := body[pc]
		w := in.ops
		jump := func(l uint32) {
			prev = curLabel
			pc = labels[l] - 1
		}
		switch in.o {
		case opLabel:
			curLabel = w[0]
		case opLine, opSelectionMerge, opLoopMerge:
		case opReturn:
			return nil
		case opReturnValue:
			return get(w[0]).clone()
		case opFunctionParameter:
			vtype[w[1]] = w[0]
			vals[w[1]] = args[nparam]
			nparam++
		case opFunctionCall:
			var actual []*val
			for _, id := range w[3:] {
				actual = append(actual, get(id).clone())
			}
			vtype[w[1]] = w[0]
			vals[w[1]] = e.exec(w[2], inv, actual)
		case opSwitch:
			target := w[1]
			for i := 2; i+1 < len(w); i += 2 {
				if w[i] == get(w[0]).s {
					target = w[i+1]
				}
			}
			jump(target)
		case opBranch:
			jump(w[0])
		case opBranchConditional:
			if get(w[0]).s != 0 {
				jump(w[1])
			} else {
				jump(w[2])
			}
		case opPhi:
			vtype[w[1]] = w[0]
			for i := 2; i+1 < len(w); i += 2 {
				if w[i+1] == prev {
					vals[w[1]] = get(w[i])
				}
			}
		case opVariable:
			ptrs[w[1]] = ptr{root: e.zero(e.types[w[0]].elem)}
			if len(w) > 3 { // an initializer
				*ptrs[w[1]].root = *get(w[3]).clone()
			}
		case opLoad:
			vtype[w[1]] = w[0]
			vals[w[1]] = pointer(w[2]).deref().clone()
		case opStore:
			*pointer(w[0]).deref() = *get(w[1]).clone()
		case opAccessChain:
			p := pointer(w[2])
			path := append([]int(nil), p.path...)
			for _, id := range w[3:] {
				path = append(path, int(int32(get(id).s)))
			}
			ptrs[w[1]] = ptr{root: p.root, path: path}
		case opArrayLength:
			vals[w[1]] = &val{s: uint32(len(pointer(w[2]).deref().c[w[3]].c))}
		case opCompositeExtract:
			vtype[w[1]] = w[0]
			v := get(w[2])
			for _, i := range w[3:] {
				v = v.c[i]
			}
			vals[w[1]] = v.clone()
		case opVectorExtractDynamic:
			vtype[w[1]] = w[0]
			vals[w[1]] = get(w[2]).c[get(w[3]).s].clone()
		case opCompositeConstruct:
			vtype[w[1]] = w[0]
			v := &val{}
			for _, id := range w[2:] {
				x := get(id)
				if e.types[w[0]].o == opTypeVector && x.c != nil {
					for _, c := range x.c {
						v.c = append(v.c, c.clone())
					}
				} else {
					v.c = append(v.c, x.clone())
				}
			}
			vals[w[1]] = v
		case opVectorShuffle:
			vtype[w[1]] = w[0]
			a, b := get(w[2]), get(w[3])
			all := append(append([]*val(nil), a.c...), b.c...)
			v := &val{}
			for _, i := range w[4:] {
				v.c = append(v.c, all[i].clone())
			}
			vals[w[1]] = v
		case opDot:
			a, b := get(w[2]), get(w[3])
			t := e.types[w[0]]
			var sum float32
			for i := range a.c {
				sum += toF(t, a.c[i].s) * toF(t, b.c[i].s)
			}
			vtype[w[1]] = w[0]
			vals[w[1]] = &val{s: fromF(t, sum)}
		case opExtInst:
			args := make([]*val, len(w)-4)
			for i, id := range w[4:] {
				args[i] = get(id)
			}
			vtype[w[1]] = w[0]
			vals[w[1]] = e.mapN(w[0], args, func(t sptype, x []uint32) uint32 { return extInst(w[3], t, x) })
		default:
			if len(w) < 3 {
				panic(fmt.Sprintf("opcode %d not supported", in.o))
			}
			args := make([]*val, len(w)-2)
			for i, id := range w[2:] {
				args[i] = get(id)
			}
			// The operand type decides comparisons and conversions.
			ot := scalarTypeOf(w[2])
			vtype[w[1]] = w[0]
			vals[w[1]] = e.mapN(w[0], args, func(t sptype, x []uint32) uint32 { return scalarOp(in.o, t, ot, x) })
		}
	}
	return nil
}

// mapN applies f componentwise; t is the scalar result type.
func (e *speval) mapN(typ uint32, args []*val, f func(t sptype, x []uint32) uint32) *val {
	t := e.types[typ]
	if t.o == opTypeVector {
		out := &val{}
		for i := 0; i < t.n; i++ {
			x := make([]uint32, len(args))
			for j, a := range args {
				x[j] = a.c[i].s
			}
			out.c = append(out.c, &val{s: f(e.types[t.elem], x)})
		}
		return out
	}
	x := make([]uint32, len(args))
	for j, a := range args {
		x[j] = a.s
	}
	return &val{s: f(t, x)}
}

// poison stands for a value SPIR-V leaves undefined; a guard that lets it
// through shows up as a wrong result.
const poison = 0xdeadbeef

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// float helpers: values of the result type t (16 or 32 bits).
func toF(t sptype, x uint32) float32 {
	if t.bf {
		return math.Float32frombits(x << 16)
	}
	if t.width == 16 {
		return f16ToFloat32(uint16(x))
	}
	return math.Float32frombits(x)
}

func fromF(t sptype, f float32) uint32 {
	if t.width == 16 {
		return uint32(f16bits(float64(f)))
	}
	return math.Float32bits(f)
}

// scalarOp evaluates one scalar instruction; t is the result's scalar
// type, ot the first operand's. Instructions whose result SPIR-V leaves
// undefined for some operands (division by zero, overflow, shifts of 32 or
// more, out-of-range conversions) panic there: the emitted guards must
// keep such operands from reaching them.
func scalarOp(o op, t, ot sptype, x []uint32) uint32 {
	f := func(i int) float32 { return toF(ot, x[i]) }
	switch o {
	case opIAdd:
		return x[0] + x[1]
	case opISub:
		return x[0] - x[1]
	case opIMul:
		return x[0] * x[1]
	case opUDiv:
		return x[0] / x[1] // panics on zero: the guard must prevent it
	case opSDiv:
		if int32(x[0]) == math.MinInt32 && int32(x[1]) == -1 {
			panic("SDiv overflow reached the instruction")
		}
		return uint32(int32(x[0]) / int32(x[1]))
	case opUMod:
		return x[0] % x[1]
	case opSRem:
		if int32(x[0]) == math.MinInt32 && int32(x[1]) == -1 {
			panic("SRem overflow reached the instruction")
		}
		return uint32(int32(x[0]) % int32(x[1]))
	case opSNegate:
		return -x[0]
	case opNot:
		return ^x[0]
	case opBitwiseAnd:
		return x[0] & x[1]
	case opBitwiseOr:
		return x[0] | x[1]
	case opBitwiseXor:
		return x[0] ^ x[1]
	case opShiftLeftLogical, opShiftRightLogical, opShiftRightArithmetic:
		if x[1] >= 32 {
			return poison
		}
		switch o {
		case opShiftLeftLogical:
			return x[0] << x[1]
		case opShiftRightLogical:
			return x[0] >> x[1]
		}
		return uint32(int32(x[0]) >> x[1])
	case opIEqual, opLogicalEqual:
		return b2u(x[0] == x[1])
	case opINotEqual, opLogicalNotEqual:
		return b2u(x[0] != x[1])
	case opULessThan:
		return b2u(x[0] < x[1])
	case opULessThanEqual:
		return b2u(x[0] <= x[1])
	case opUGreaterThan:
		return b2u(x[0] > x[1])
	case opUGreaterThanEqual:
		return b2u(x[0] >= x[1])
	case opSLessThan:
		return b2u(int32(x[0]) < int32(x[1]))
	case opSLessThanEqual:
		return b2u(int32(x[0]) <= int32(x[1]))
	case opSGreaterThan:
		return b2u(int32(x[0]) > int32(x[1]))
	case opSGreaterThanEqual:
		return b2u(int32(x[0]) >= int32(x[1]))
	case opLogicalAnd:
		return x[0] & x[1]
	case opLogicalOr:
		return x[0] | x[1]
	case opLogicalNot:
		return x[0] ^ 1
	case opSelect:
		if x[0] != 0 {
			return x[1]
		}
		return x[2]
	case opBitcast:
		return x[0]
	case opBitCount:
		return uint32(bits.OnesCount32(x[0]))
	case opBitReverse:
		return bits.Reverse32(x[0])
	case opFAdd:
		return fromF(t, toF(t, x[0])+toF(t, x[1]))
	case opFSub:
		return fromF(t, toF(t, x[0])-toF(t, x[1]))
	case opFMul:
		return fromF(t, toF(t, x[0])*toF(t, x[1]))
	case opFDiv:
		return fromF(t, toF(t, x[0])/toF(t, x[1]))
	case opFNegate:
		return fromF(t, -toF(t, x[0]))
	case opFOrdEqual:
		return b2u(f(0) == f(1))
	case opFUnordNotEqual:
		return b2u(f(0) != f(1))
	case opFOrdLessThan:
		return b2u(f(0) < f(1))
	case opFOrdLessThanEqual:
		return b2u(f(0) <= f(1))
	case opFOrdGreaterThan:
		return b2u(f(0) > f(1))
	case opFOrdGreaterThanEqual:
		return b2u(f(0) >= f(1))
	case opIsNan:
		return b2u(math.IsNaN(float64(toF(ot, x[0]))))
	case opConvertSToF:
		return fromF(t, float32(int32(x[0])))
	case opConvertUToF:
		return fromF(t, float32(x[0]))
	case opConvertFToS:
		v := float64(toF(ot, x[0]))
		if math.IsNaN(v) || v < math.MinInt32 || v >= 1<<31 {
			return poison // an undefined value, not undefined behaviour
		}
		return uint32(int32(v))
	case opConvertFToU:
		v := float64(toF(ot, x[0]))
		if math.IsNaN(v) || v <= -1 || v >= 1<<32 {
			return poison
		}
		return uint32(v)
	case opFConvert:
		switch {
		case t.bf && isNaN32(x[0]):
			return x[0]>>16 | 0x40
		case t.bf: // toward zero, as NVIDIA's driver does (H200, 2026-12-01)
			return x[0] >> 16
		case ot.bf:
			return x[0] << 16
		}
		if t.width == 16 {
			return uint32(f16bits(float64(math.Float32frombits(x[0]))))
		}
		return math.Float32bits(f16ToFloat32(uint16(x[0])))
	}
	panic(fmt.Sprintf("opcode %d not supported", o))
}

// extInst evaluates the GLSL.std.450 instructions the tests need.
func extInst(inst uint32, t sptype, x []uint32) uint32 {
	switch inst {
	case glslFClamp:
		v, lo, hi := toF(t, x[0]), toF(t, x[1]), toF(t, x[2])
		return fromF(t, float32(math.Min(math.Max(float64(v), float64(lo)), float64(hi))))
	case glslFAbs:
		return fromF(t, float32(math.Abs(float64(toF(t, x[0])))))
	case glslTrunc, glslFloor, glslCeil, glslRoundEven:
		fn := map[uint32]func(float64) float64{glslTrunc: math.Trunc, glslFloor: math.Floor,
			glslCeil: math.Ceil, glslRoundEven: math.RoundToEven}[inst]
		return fromF(t, float32(fn(float64(toF(t, x[0])))))
	case glslFMin:
		return fromF(t, float32(math.Min(float64(toF(t, x[0])), float64(toF(t, x[1])))))
	case glslFMax:
		return fromF(t, float32(math.Max(float64(toF(t, x[0])), float64(toF(t, x[1])))))
	case glslSAbs:
		if int32(x[0]) < 0 {
			return -x[0]
		}
		return x[0]
	case glslSSign:
		return uint32(min(max(int32(x[0]), -1), 1))
	case glslFindILsb:
		if x[0] == 0 {
			return 0xffffffff
		}
		return uint32(bits.TrailingZeros32(x[0]))
	case glslFindUMsb:
		return uint32(31 - bits.LeadingZeros32(x[0]))
	case glslFindSMsb:
		v := x[0]
		if int32(v) < 0 {
			v = ^v
		}
		return uint32(31 - bits.LeadingZeros32(v))
	case glslSMin:
		return uint32(min(int32(x[0]), int32(x[1])))
	case glslSMax:
		return uint32(max(int32(x[0]), int32(x[1])))
	case glslUMin:
		return min(x[0], x[1])
	case glslUMax:
		return max(x[0], x[1])
	case glslSClamp:
		return uint32(min(max(int32(x[0]), int32(x[1])), int32(x[2])))
	case glslUClamp:
		return min(max(x[0], x[1]), x[2])
	}
	panic(fmt.Sprintf("GLSL.std.450 instruction %d not supported", inst))
}
