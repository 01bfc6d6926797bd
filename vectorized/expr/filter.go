package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/tablerun/tablerun/core/types"
)

// rowSelector is implemented by nodes that can narrow a row selection
// directly (comparisons of a column with a constant, ANDs of those),
// without materialising BOOLEAN arrays.
type rowSelector interface {
	// canSelect reports whether selectRows applies to this node.
	canSelect() bool
	// selectRows returns the rows of in (all rows when all is true) where
	// the node is TRUE, ascending.
	selectRows(rec arrow.RecordBatch, in []int32, all bool) ([]int32, error)
}

func (n *cmpNode) canSelect() bool {
	if n.phys == physStr || n.phys == physNone || n.phys == physDec {
		return false
	}
	// A side other than a column is evaluated over the whole batch, so
	// it must not fail on rows an earlier AND operand dropped.
	operand := func(x node) bool {
		if _, ok := x.(*colNode); ok {
			return true
		}
		_, lit := x.(*litNode)
		return !lit && !x.canFail()
	}
	al, _ := n.a.(*litNode)
	bl, _ := n.b.(*litNode)
	return (operand(n.a) && bl != nil && bl.v != nil) || (operand(n.b) && al != nil && al.v != nil)
}

// dropLosslessCast returns (e, lit widened to e's type) when a is a cast
// of integer expression e to a narrower integer type that cannot lose
// anything — e is MOD(x, c) with |c| within the narrower type, Flink's
// MOD(BIGINT, INT) typed INT — and b is a literal of the narrower type:
// comparing e with the widened literal is the same comparison without
// the cast. Otherwise it returns a and b unchanged.
func dropLosslessCast(a, b node) (node, node) {
	c, ok := a.(*numCastNode)
	lit, lok := intLit(b)
	if !ok || !lok || !c.to.IsInteger() || !c.from.IsInteger() {
		return a, b
	}
	m, ok := c.arg.(*arithNode)
	if !ok || m.op != "MOD" || !m.t.IsInteger() {
		return a, b
	}
	d, ok := intLit(m.b)
	if !ok || d == 0 {
		return a, b
	}
	lo, hi := intRange(c.to.Kind)
	if d == math.MinInt64 || -d < lo || d > hi || -d > hi || d < lo {
		return a, b
	}
	if b.typ().Kind != c.to.Kind {
		return a, b
	}
	wide, err := newLit(widenInt(lit, m.t.Kind), m.t.WithNullable(false))
	if err != nil {
		return a, b
	}
	return m, wide
}

// intRange is the value range of an integer kind.
func intRange(k types.Kind) (int64, int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// widenInt is v as the canonical Go value of integer kind k.
func widenInt(v int64, k types.Kind) any {
	switch k {
	case types.TinyInt:
		return int8(v)
	case types.SmallInt:
		return int16(v)
	case types.Int:
		return int32(v)
	}
	return v
}

func (n *cmpNode) selectRows(rec arrow.RecordBatch, in []int32, all bool) ([]int32, error) {
	switch n.phys {
	case physI8:
		return cmpSelect[int8](n, rec, in, all)
	case physI16:
		return cmpSelect[int16](n, rec, in, all)
	case physI32:
		return cmpSelect[int32](n, rec, in, all)
	case physI64:
		return cmpSelect[int64](n, rec, in, all)
	case physF32:
		return cmpSelect[float32](n, rec, in, all)
	}
	return cmpSelect[float64](n, rec, in, all)
}

func cmpSelect[T ordered](n *cmpNode, rec arrow.RecordBatch, in []int32, all bool) ([]int32, error) {
	op := n.op
	var k T
	x := n.a
	if l, ok := n.a.(*litNode); ok && l.v != nil {
		x = n.b
		k, _ = litOrdered[T](n.a)
		op = flip(op)
	} else {
		k, _ = litOrdered[T](n.b)
	}
	c, _ := x.(*colNode)
	var a arrow.Array
	if c != nil {
		a = rec.Column(c.idx)
	} else {
		arr, err := x.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		defer arr.Release()
		a = arr
	}
	vals := numValues[T](a)
	var valid []byte
	off := a.Data().Offset()
	if a.NullN() > 0 {
		if b := a.Data().Buffers()[0]; b != nil {
			valid = b.Bytes()
		} else {
			return []int32{}, nil
		}
	}
	nb := int(bitutil.BytesForBits(int64(len(vals))))
	mask := make([]byte, nb)
	cmpVS(op, vals, k, mask)
	if valid != nil {
		bitutil.BitmapAnd(mask, valid, 0, int64(off), mask, 0, int64(len(vals)))
	}
	if !all {
		out := make([]int32, 0, len(in))
		for _, r := range in {
			if mask[r>>3]&(1<<(r&7)) != 0 {
				out = append(out, r)
			}
		}
		return out, nil
	}
	out := make([]int32, 0, len(vals))
	for bi, m := range mask {
		if m == 0 {
			continue
		}
		base := int32(bi * 8)
		for m != 0 {
			tz := bits.TrailingZeros8(m)
			out = append(out, base+int32(tz))
			m &= m - 1
		}
	}
	return out, nil
}

func (n *logicNode) canSelect() bool {
	if !n.and {
		return false
	}
	for _, a := range n.args {
		s, ok := a.(rowSelector)
		if !ok || !s.canSelect() {
			return false
		}
	}
	return true
}

func (n *logicNode) selectRows(rec arrow.RecordBatch, in []int32, all bool) ([]int32, error) {
	sel, isAll := in, all
	for _, a := range n.args {
		var err error
		sel, err = a.(rowSelector).selectRows(rec, sel, isAll)
		if err != nil {
			return nil, err
		}
		isAll = false
		if len(sel) == 0 {
			break
		}
	}
	return sel, nil
}
