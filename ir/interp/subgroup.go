package interp

import (
	"github.com/kcgo/kc/ir"
)

// Subgroups: lane l of the workgroup (its local_index) is invocation
// l % size of subgroup l / size. A subgroup operation acts over the
// subgroup's active lanes: those executing the call together (not returned,
// not in another branch or iteration).

// eachSubgroup calls f with each run of active lanes of one subgroup.
func (m *machine) eachSubgroup(act []int32, f func(lanes []int32)) {
	s := int32(m.sgSize)
	for i := 0; i < len(act); {
		g := act[i] / s
		j := i + 1
		for j < len(act) && act[j]/s == g {
			j++
		}
		f(act[i:j])
		i = j
	}
}

func (c *compiler) subgroup(e *ir.Call) exprFn {
	f := e.Func
	if len(e.Args) != f.Info().Arity {
		c.errorf(e.Pos, "%s takes %d arguments, given %d", f, f.Info().Arity, len(e.Args))
	}
	if f == ir.SubgroupElect {
		return c.subgroupElect()
	}
	x := c.expr(e.Args[0])
	t := e.Args[0].Type()
	s, w := ir.ElemScalar(t), width(t)
	switch f {
	case ir.SubgroupAdd, ir.SubgroupMul, ir.SubgroupMin, ir.SubgroupMax,
		ir.SubgroupAnd, ir.SubgroupOr, ir.SubgroupXor:
		op := reduceOp(f, s)
		if op == nil {
			c.errorf(e.Pos, "%s is not defined on %s", f, t)
		}
		return c.subgroupReduce(x, w, op)
	case ir.SubgroupInclusiveAdd, ir.SubgroupExclusiveAdd:
		op := binaryFn(ir.OpAdd, s)
		if op == nil || s == ir.Bool {
			c.errorf(e.Pos, "%s is not defined on %s", f, t)
		}
		return c.subgroupScan(x, w, op, f == ir.SubgroupExclusiveAdd)
	case ir.SubgroupBroadcastFirst:
		return c.subgroupLane(x, nil, w, func(_, _ uint32, first int32) int64 { return int64(first) })
	case ir.SubgroupBroadcast, ir.SubgroupShuffle:
		return c.subgroupLane(x, c.expr(e.Args[1]), w, func(_, v uint32, _ int32) int64 { return int64(v) })
	case ir.SubgroupShuffleXor:
		return c.subgroupLane(x, c.expr(e.Args[1]), w, func(id, v uint32, _ int32) int64 { return int64(id ^ v) })
	case ir.SubgroupShuffleUp:
		return c.subgroupLane(x, c.expr(e.Args[1]), w, func(id, v uint32, _ int32) int64 { return int64(id) - int64(v) })
	case ir.SubgroupShuffleDown:
		return c.subgroupLane(x, c.expr(e.Args[1]), w, func(id, v uint32, _ int32) int64 { return int64(id) + int64(v) })
	case ir.SubgroupBallot:
		return c.subgroupBallot(x)
	case ir.SubgroupAll, ir.SubgroupAny:
		return c.subgroupVote(x, f == ir.SubgroupAll)
	}
	c.errorf(e.Pos, "unsupported subgroup operation %s", f)
	return nil
}

func reduceOp(f ir.Intrinsic, s ir.Scalar) fn2 {
	if s == ir.Bool {
		return nil
	}
	switch f {
	case ir.SubgroupAdd:
		return binaryFn(ir.OpAdd, s)
	case ir.SubgroupMul:
		return binaryFn(ir.OpMul, s)
	case ir.SubgroupMin:
		return minFn(s, true)
	case ir.SubgroupMax:
		return minFn(s, false)
	}
	if !s.IsInt() {
		return nil
	}
	switch f {
	case ir.SubgroupAnd:
		return u32Binary(ir.OpAnd)
	case ir.SubgroupOr:
		return u32Binary(ir.OpOr)
	case ir.SubgroupXor:
		return u32Binary(ir.OpXor)
	}
	return nil
}

// subgroupReduce folds the active lanes' values in lane order (each step
// rounded to the type) and gives every one of them the result.
func (c *compiler) subgroupReduce(x exprFn, w int, op fn2) exprFn {
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		m.eachSubgroup(act, func(lanes []int32) {
			for i := 0; i < w; i++ {
				acc := a[4*int(lanes[0])+i]
				for _, l := range lanes[1:] {
					acc = op(acc, a[4*int(l)+i])
				}
				for _, l := range lanes {
					out[4*int(l)+i] = acc
				}
			}
		})
		return out
	}
}

// subgroupScan is the inclusive or exclusive prefix sum over the active
// lanes in lane order; the exclusive sum of the first is 0.
func (c *compiler) subgroupScan(x exprFn, w int, op fn2, exclusive bool) exprFn {
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		m.eachSubgroup(act, func(lanes []int32) {
			for i := 0; i < w; i++ {
				var acc uint32
				for k, l := range lanes {
					v := a[4*int(l)+i]
					if k == 0 {
						if exclusive {
							out[4*int(l)+i] = 0
						}
						acc = v
					} else {
						if exclusive {
							out[4*int(l)+i] = acc
						}
						acc = op(acc, v)
					}
					if !exclusive {
						out[4*int(l)+i] = acc
					}
				}
			}
		})
		return out
	}
}

// subgroupLane gives each active lane the value of the source lane that
// src computes from its subgroup invocation id, the operand v and the
// first active id. A source outside the subgroup or not active (undefined
// on GPUs) yields the lane's own value.
func (c *compiler) subgroupLane(x, arg exprFn, w int, src func(id, v uint32, first int32) int64) exprFn {
	m := c.m
	out := m.newCol()
	size := m.sgSize
	where := make([]int32, size) // subgroup invocation id -> lane, or -1
	for i := range where {
		where[i] = -1
	}
	return func(act []int32) []uint32 {
		a := x(act)
		var v []uint32
		if arg != nil {
			v = arg(act)
		}
		m.eachSubgroup(act, func(lanes []int32) {
			for _, l := range lanes {
				where[int(l)%size] = l
			}
			first := lanes[0] % int32(size)
			for _, l := range lanes {
				id := uint32(int(l) % size)
				var operand uint32
				if v != nil {
					operand = v[4*l]
				}
				from := l
				if s := src(id, operand, first); s >= 0 && s < int64(size) && where[s] >= 0 {
					from = where[s]
				}
				copy(out[4*int(l):4*int(l)+w], a[4*int(from):4*int(from)+w])
			}
			for _, l := range lanes {
				where[int(l)%size] = -1
			}
		})
		return out
	}
}

// subgroupBallot sets bit i of the vec4<u32> (bit i%32 of word i/32) for
// each active invocation i whose predicate holds.
func (c *compiler) subgroupBallot(x exprFn) exprFn {
	m := c.m
	out := m.newCol()
	size := int32(m.sgSize)
	return func(act []int32) []uint32 {
		a := x(act)
		m.eachSubgroup(act, func(lanes []int32) {
			var b [4]uint32
			for _, l := range lanes {
				if a[4*l] != 0 {
					id := l % size
					b[id/32] |= 1 << (id % 32)
				}
			}
			for _, l := range lanes {
				copy(out[4*l:4*l+4], b[:])
			}
		})
		return out
	}
}

// subgroupVote is subgroupAll (every active lane's predicate holds) or
// subgroupAny (some does).
func (c *compiler) subgroupVote(x exprFn, all bool) exprFn {
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		a := x(act)
		m.eachSubgroup(act, func(lanes []int32) {
			r := all
			for _, l := range lanes {
				if (a[4*l] != 0) != all {
					r = !all
					break
				}
			}
			for _, l := range lanes {
				out[4*l] = boolBits(r)
			}
		})
		return out
	}
}

// subgroupElect is true in the lowest active lane of each subgroup.
func (c *compiler) subgroupElect() exprFn {
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		m.eachSubgroup(act, func(lanes []int32) {
			for i, l := range lanes {
				out[4*l] = boolBits(i == 0)
			}
		})
		return out
	}
}
