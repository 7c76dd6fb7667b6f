package ir

import (
	"math"
	"testing"
)

func TestFoldInt32(t *testing.T) {
	min := uint32(math.MaxInt32) + 1
	neg := func(v int32) uint32 { return uint32(v) }
	cases := []struct {
		op     BinaryOp
		a, b   uint32
		signed bool
		want   uint32
	}{
		{OpAdd, math.MaxUint32, 2, false, 1},
		{OpMul, 0x10000, 0x10000, false, 0},
		{OpSub, 0, 1, true, math.MaxUint32},
		{OpDiv, 7, 0, false, 7},
		{OpRem, 7, 0, true, 0},
		{OpDiv, min, neg(-1), true, min},
		{OpRem, min, neg(-1), true, 0},
		{OpDiv, neg(-7), 2, true, neg(-3)},
		{OpRem, neg(-7), 2, true, neg(-1)},
		{OpRem, 7, neg(-2), true, 1},
		{OpDiv, neg(-7), 2, false, (1<<32 - 7) / 2},
		{OpShl, 1, 33, false, 2},
		{OpShr, neg(-8), 33, true, neg(-4)},
		{OpShr, neg(-8), 1, false, 0x7ffffffc},
		{OpXor, 0xf0, 0xff, false, 0x0f},
	}
	for _, c := range cases {
		got, ok := FoldInt32(c.op, c.a, c.b, c.signed)
		if !ok || got != c.want {
			t.Errorf("FoldInt32(%v, %#x, %#x, signed=%v) = %#x, %v; want %#x", c.op, c.a, c.b, c.signed, got, ok, c.want)
		}
	}
	if _, ok := FoldInt32(OpLt, 1, 2, true); ok {
		t.Error("FoldInt32 folded a comparison")
	}
}
