package hlsl

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits subgroup operations as Wave* intrinsics (shader model
// 6.0). Shuffles read WaveReadLaneAt at a computed lane (dxc lowers it to
// OpGroupNonUniformShuffle since 2020, glslang always did). f16 operands
// are promoted to f32 and the result rounded back, on both compilers
// (glslang's HLSL front end does that by itself). Bool operands of
// broadcasts travel as uint.

var waveReductions = map[ir.Intrinsic]string{
	ir.SubgroupAdd: "WaveActiveSum", ir.SubgroupMul: "WaveActiveProduct",
	ir.SubgroupMin: "WaveActiveMin", ir.SubgroupMax: "WaveActiveMax",
	ir.SubgroupAnd: "WaveActiveBitAnd", ir.SubgroupOr: "WaveActiveBitOr",
	ir.SubgroupXor: "WaveActiveBitXor",
}

func (f *fn) subgroup(c *ir.Call) hx {
	args := make([]hx, len(c.Args))
	for i, a := range c.Args {
		args[i] = f.ex(a)
	}
	if len(args) < c.Func.Info().Arity {
		f.fail(unsupported(c.Pos, c.Func.String()+" with missing arguments"))
		return primary("0")
	}
	switch c.Func {
	case ir.SubgroupBallot:
		return apply("WaveActiveBallot", args[0])
	case ir.SubgroupAll:
		return apply("WaveActiveAllTrue", args[0])
	case ir.SubgroupAny:
		return apply("WaveActiveAnyTrue", args[0])
	case ir.SubgroupElect:
		return primary("WaveIsFirstLane()")
	}
	t := c.Ty
	vt := c.Args[0].Type()
	// carrier is the type the value travels as.
	carrier := vt
	switch ir.ElemScalar(vt) {
	case ir.F16:
		carrier = ir.WithElem(vt, ir.F32)
	case ir.Bool:
		carrier = ir.WithElem(vt, ir.U32)
	}
	x := f.conv(args[0], vt, carrier)
	back := func(h hx) hx { return f.conv(h, carrier, t) }
	lane := func(expr string) hx { return back(apply("WaveReadLaneAt", x, primary(expr))) }
	switch c.Func {
	case ir.SubgroupInclusiveAdd, ir.SubgroupExclusiveAdd:
		return back(apply(f.needScan(c.Func, carrier), x))
	case ir.SubgroupBroadcast, ir.SubgroupShuffle:
		return back(apply("WaveReadLaneAt", x, args[1]))
	case ir.SubgroupBroadcastFirst:
		return back(apply("WaveReadLaneFirst", x))
	case ir.SubgroupShuffleXor:
		return lane("WaveGetLaneIndex() ^ " + args[1].at(precBXor+1))
	case ir.SubgroupShuffleUp:
		return lane("WaveGetLaneIndex() - " + args[1].at(precAdd+1))
	case ir.SubgroupShuffleDown:
		return lane("WaveGetLaneIndex() + " + args[1].at(precAdd+1))
	}
	if name, ok := waveReductions[c.Func]; ok {
		return back(apply(name, x))
	}
	f.fail(unsupported(c.Pos, "subgroup operation "+c.Func.String()))
	return primary("0")
}

// scanMacro tells the scan helpers which compiler reads the text: dxc
// implements WavePrefixSum as the exclusive scan HLSL specifies, glslang's
// HLSL front end (12.0, Debian 12; see TestGlslangPrefixSumIsInclusive)
// as an inclusive scan.
const scanMacro = `#if defined(__hlsl_dx_compiler)
#define KC_PREFIX_SUM_INCLUSIVE 0
#else
// glslang lowers WavePrefixSum to an inclusive scan.
#define KC_PREFIX_SUM_INCLUSIVE 1
#endif`

// needScan registers the inclusive or exclusive scan helper for type t.
func (f *fn) needScan(op ir.Intrinsic, t ir.Type) string {
	f.e.need("0_scan", func() string { return scanMacro })
	n := typeName(t)
	if op == ir.SubgroupInclusiveAdd {
		f.e.need("incl_add_"+n, func() string {
			return strings.ReplaceAll(`// kc_incl_add is subgroupInclusiveAdd.
$T kc_incl_add($T x) {
#if KC_PREFIX_SUM_INCLUSIVE
	return WavePrefixSum(x);
#else
	return WavePrefixSum(x) + x;
#endif
}`, "$T", n)
		})
		return "kc_incl_add"
	}
	f.e.need("excl_add_"+n, func() string {
		if !ir.ElemScalar(t).IsFloat() {
			return strings.ReplaceAll(`// kc_excl_add is subgroupExclusiveAdd.
$T kc_excl_add($T x) {
#if KC_PREFIX_SUM_INCLUSIVE
	return WavePrefixSum(x) - x;
#else
	return WavePrefixSum(x);
#endif
}`, "$T", n)
		}
		return strings.ReplaceAll(strings.ReplaceAll(`// kc_excl_add is subgroupExclusiveAdd. Under glslang it reads the
// inclusive sum of the previous active lane (subtracting x would round).
$T kc_excl_add($T x) {
#if KC_PREFIX_SUM_INCLUSIVE
	$T incl = WavePrefixSum(x);
	uint lane = WaveGetLaneIndex();
	uint4 active = WaveActiveBallot(true);
	uint prev = lane;
	for (uint w = 0u; w < 4u; w++) {
		uint below = active[w];
		if (w * 32u >= lane) {
			below = 0u;
		} else if (lane - w * 32u < 32u) {
			below &= (1u << (lane - w * 32u)) - 1u;
		}
		if (below != 0u) {
			prev = w * 32u + firstbithigh(below);
		}
	}
	$T r = WaveReadLaneAt(incl, prev);
	return prev == lane ? ZERO : r;
#else
	return WavePrefixSum(x);
#endif
}`, "ZERO", zeroValue(t)), "$T", n)
	})
	return "kc_excl_add"
}
