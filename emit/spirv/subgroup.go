package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers subgroup operations to OpGroupNonUniform* with Subgroup
// scope. Each operation adds the capability of its class (GroupNonUniform
// plus Arithmetic, Ballot, Shuffle, ShuffleRelative or Vote), so a module
// asks the device for what it uses and no more.

// subgroupArith maps reductions and scans to their opcodes: float, signed,
// unsigned.
var subgroupArith = map[ir.Intrinsic][3]op{
	ir.SubgroupAdd:          {opGroupNonUniformFAdd, opGroupNonUniformIAdd, opGroupNonUniformIAdd},
	ir.SubgroupMul:          {opGroupNonUniformFMul, opGroupNonUniformIMul, opGroupNonUniformIMul},
	ir.SubgroupMin:          {opGroupNonUniformFMin, opGroupNonUniformSMin, opGroupNonUniformUMin},
	ir.SubgroupMax:          {opGroupNonUniformFMax, opGroupNonUniformSMax, opGroupNonUniformUMax},
	ir.SubgroupAnd:          {0, opGroupNonUniformBitwiseAnd, opGroupNonUniformBitwiseAnd},
	ir.SubgroupOr:           {0, opGroupNonUniformBitwiseOr, opGroupNonUniformBitwiseOr},
	ir.SubgroupXor:          {0, opGroupNonUniformBitwiseXor, opGroupNonUniformBitwiseXor},
	ir.SubgroupInclusiveAdd: {opGroupNonUniformFAdd, opGroupNonUniformIAdd, opGroupNonUniformIAdd},
	ir.SubgroupExclusiveAdd: {opGroupNonUniformFAdd, opGroupNonUniformIAdd, opGroupNonUniformIAdd},
}

var subgroupLane = map[ir.Intrinsic]struct {
	code op
	cap  capability
}{
	ir.SubgroupBroadcast:   {opGroupNonUniformBroadcast, capGroupNonUniformBallot},
	ir.SubgroupShuffle:     {opGroupNonUniformShuffle, capGroupNonUniformShuffle},
	ir.SubgroupShuffleXor:  {opGroupNonUniformShuffleXor, capGroupNonUniformShuffle},
	ir.SubgroupShuffleUp:   {opGroupNonUniformShuffleUp, capGroupNonUniformShuffleRelative},
	ir.SubgroupShuffleDown: {opGroupNonUniformShuffleDown, capGroupNonUniformShuffleRelative},
}

func (f *fn) subgroup(e *ir.Call) uint32 {
	f.capability(capGroupNonUniform)
	scope := f.constU32(scopeSubgroup)
	args := make([]uint32, len(e.Args))
	for i, a := range e.Args {
		args[i] = f.expr(a)
	}
	t := f.tid(e.Ty)
	if ops, ok := subgroupArith[e.Func]; ok {
		f.capability(capGroupNonUniformArithmetic)
		s := ir.ElemScalar(e.Ty)
		code := ops[2]
		switch {
		case s.IsFloat():
			code = ops[0]
		case s == ir.I32:
			code = ops[1]
		}
		group := uint32(groupOpReduce)
		switch e.Func {
		case ir.SubgroupInclusiveAdd:
			group = groupOpInclusive
		case ir.SubgroupExclusiveAdd:
			group = groupOpExclusive
		}
		r := f.builder.id()
		f.body.inst(code, t, r, scope, group, args[0])
		return r
	}
	if l, ok := subgroupLane[e.Func]; ok {
		f.capability(l.cap)
		return f.op3(l.code, t, scope, args[0], args[1])
	}
	switch e.Func {
	case ir.SubgroupBroadcastFirst:
		f.capability(capGroupNonUniformBallot)
		return f.op2(opGroupNonUniformBroadcastFirst, t, scope, args[0])
	case ir.SubgroupBallot:
		f.capability(capGroupNonUniformBallot)
		return f.op2(opGroupNonUniformBallot, t, scope, args[0])
	case ir.SubgroupAll:
		f.capability(capGroupNonUniformVote)
		return f.op2(opGroupNonUniformAll, t, scope, args[0])
	case ir.SubgroupAny:
		f.capability(capGroupNonUniformVote)
		return f.op2(opGroupNonUniformAny, t, scope, args[0])
	case ir.SubgroupElect:
		return f.op1(opGroupNonUniformElect, t, scope)
	}
	fail(ir.Errorf(e.Pos, "spirv: unknown subgroup operation %s", e.Func))
	return 0
}
