package expr

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// decArithNode adds or subtracts DECIMALs in 128-bit integer arithmetic,
// aligning scales by multiplying with a power of ten. A result that does
// not fit the result precision is NULL, as in Flink.
type decArithNode struct {
	op     string
	a, b   node
	t      types.Type
	at     arrow.DataType
	ka, kb uint64 // scale multipliers for a and b
	bound  dec128 // 10^precision
}

// newDecArith returns a kernel for DECIMAL + / - whose result scale is the
// larger operand scale (Flink's rule below precision 38), or nil.
func newDecArith(op string, a, b node, t types.Type) node {
	if (op != "+" && op != "-") || t.Kind != types.Decimal {
		return nil
	}
	ta, tb := a.typ(), b.typ()
	if ta.Kind != types.Decimal || tb.Kind != types.Decimal || t.Scale != max(ta.Scale, tb.Scale) {
		return nil
	}
	da, db := t.Scale-ta.Scale, t.Scale-tb.Scale
	if da > 18 || db > 18 || t.Precision > 38 {
		return nil
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return nil
	}
	bd := decimal128.GetScaleMultiplier(t.Precision)
	return &decArithNode{op: op, a: a, b: b, t: t, at: at, ka: pow10u(da), kb: pow10u(db),
		bound: dec128{lo: bd.LowBits(), hi: bd.HighBits()}}
}

func pow10u(n int) uint64 {
	v := uint64(1)
	for i := 0; i < n; i++ {
		v *= 10
	}
	return v
}

func (n *decArithNode) typ() types.Type { return n.t }
func (n *decArithNode) canFail() bool   { return anyCanFail(n.a, n.b) }

func neg128(x dec128) dec128 {
	lo, c := bits.Add64(^x.lo, 1, 0)
	return dec128{lo: lo, hi: ^x.hi + int64(c)}
}

// mulSmall multiplies by m; ok is false on 128-bit overflow.
func mulSmall(x dec128, m uint64) (dec128, bool) {
	if m == 1 {
		return x, true
	}
	negative := x.hi < 0
	if negative {
		x = neg128(x)
		if x.hi < 0 { // the minimum value
			return x, false
		}
	}
	h1, l1 := bits.Mul64(x.lo, m)
	h2, l2 := bits.Mul64(uint64(x.hi), m)
	hi, c := bits.Add64(l2, h1, 0)
	if h2 != 0 || c != 0 || hi>>63 != 0 {
		return x, false
	}
	r := dec128{lo: l1, hi: int64(hi)}
	if negative {
		r = neg128(r)
	}
	return r, true
}

// addSub returns x + y or x - y; ok is false on signed 128-bit overflow.
func addSub(x, y dec128, sub bool) (dec128, bool) {
	if sub {
		lo, b := bits.Sub64(x.lo, y.lo, 0)
		hi := x.hi - y.hi - int64(b)
		ok := !((x.hi < 0) != (y.hi < 0) && (hi < 0) != (x.hi < 0))
		return dec128{lo: lo, hi: hi}, ok
	}
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi := x.hi + y.hi + int64(c)
	ok := !((x.hi < 0) == (y.hi < 0) && (hi < 0) != (x.hi < 0))
	return dec128{lo: lo, hi: hi}, ok
}

// fits reports |x| < bound.
func fits(x, bound dec128) bool {
	if x.hi < 0 {
		x = neg128(x)
		if x.hi < 0 {
			return false
		}
	}
	return cmpDec(x, bound) < 0
}

func (n *decArithNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	if isNullLit(n.a) || isNullLit(n.b) {
		for _, x := range []node{n.a, n.b} {
			if !isNullLit(x) {
				arr, err := x.eval(rec, scratch)
				if err != nil {
					return nil, err
				}
				arr.Release()
			}
		}
		return array.MakeArrayOfNull(mem, n.at, rows), nil
	}
	xs, xConst := decLit(n.a)
	ys, yConst := decLit(n.b)
	var xa, ya arrow.Array
	var err error
	if !xConst {
		if xa, err = n.a.eval(rec, scratch); err != nil {
			return nil, err
		}
		defer xa.Release()
	}
	if !yConst {
		if ya, err = n.b.eval(rec, scratch); err != nil {
			return nil, err
		}
		defer ya.Release()
	}
	validity, nulls := validityOf(mem, rows, xa, ya)
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(rows * 16)
	var out []dec128
	if rows > 0 {
		out = unsafe.Slice((*dec128)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), rows)
	}
	var xv, yv []dec128
	if xa != nil {
		xv = decValues(xa)
	}
	if ya != nil {
		yv = decValues(ya)
	}
	sub := n.op == "-"
	for i := 0; i < rows; i++ {
		x, y := xs, ys
		if xv != nil {
			x = xv[i]
		}
		if yv != nil {
			y = yv[i]
		}
		x, ok1 := mulSmall(x, n.ka)
		y, ok2 := mulSmall(y, n.kb)
		z, ok3 := addSub(x, y, sub)
		if ok1 && ok2 && ok3 && fits(z, n.bound) {
			out[i] = z
			continue
		}
		// Overflow: NULL (unless the row is NULL anyway).
		out[i] = dec128{}
		if validity == nil {
			validity = memory.NewResizableBuffer(mem)
			validity.Resize(int(bitutil.BytesForBits(int64(rows))))
			vb := validity.Bytes()
			for j := range vb {
				vb[j] = 0xff
			}
		}
		if bitutil.BitIsSet(validity.Bytes(), i) {
			bitutil.ClearBit(validity.Bytes(), i)
			nulls++
		}
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}
