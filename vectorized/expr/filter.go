package expr

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
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
	_, ac := n.a.(*colNode)
	_, bc := n.b.(*colNode)
	al, _ := n.a.(*litNode)
	bl, _ := n.b.(*litNode)
	return (ac && bl != nil && bl.v != nil) || (bc && al != nil && al.v != nil)
}

func (n *cmpNode) selectRows(rec arrow.RecordBatch, in []int32, all bool) ([]int32, error) {
	switch n.phys {
	case physI8:
		return cmpSelect[int8](n, rec, in, all), nil
	case physI16:
		return cmpSelect[int16](n, rec, in, all), nil
	case physI32:
		return cmpSelect[int32](n, rec, in, all), nil
	case physI64:
		return cmpSelect[int64](n, rec, in, all), nil
	case physF32:
		return cmpSelect[float32](n, rec, in, all), nil
	}
	return cmpSelect[float64](n, rec, in, all), nil
}

func cmpSelect[T ordered](n *cmpNode, rec arrow.RecordBatch, in []int32, all bool) []int32 {
	op := n.op
	var c *colNode
	var k T
	if cn, ok := n.a.(*colNode); ok {
		c = cn
		k, _ = litOrdered[T](n.b)
	} else {
		c = n.b.(*colNode)
		k, _ = litOrdered[T](n.a)
		op = flip(op)
	}
	a := rec.Column(c.idx)
	vals := numValues[T](a)
	var valid []byte
	off := a.Data().Offset()
	if a.NullN() > 0 {
		if b := a.Data().Buffers()[0]; b != nil {
			valid = b.Bytes()
		} else {
			return []int32{}
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
		return out
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
	return out
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
