package expr

import (
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

type ordered interface {
	integer | ~float32 | ~float64
}

// physical classes of comparable values.
const (
	physNone = iota
	physI8
	physI16
	physI32
	physI64
	physF32
	physF64
	physStr
	physDec
)

func physOf(t types.Type) int {
	switch t.Kind {
	case types.TinyInt:
		return physI8
	case types.SmallInt:
		return physI16
	case types.Int, types.Date, types.Time, types.IntervalYearMonth:
		return physI32
	case types.BigInt, types.Timestamp, types.TimestampLTZ, types.IntervalDayTime:
		return physI64
	case types.Float:
		return physF32
	case types.Double:
		return physF64
	case types.Char, types.VarChar:
		return physStr
	case types.Decimal:
		return physDec
	}
	return physNone
}

type cmpNode struct {
	op   string
	a, b node
	phys int
	t    types.Type
}

// newCompare returns a comparison kernel, or nil when the operands are not
// of one supported physical type.
func newCompare(op string, a, b node, t types.Type) node {
	pa, pb := physOf(a.typ()), physOf(b.typ())
	if isNullLit(a) {
		pa = pb
	}
	if isNullLit(b) {
		pb = pa
	}
	if pa == physNone || pa != pb {
		return nil
	}
	if pa == physDec && !isNullLit(a) && !isNullLit(b) && a.typ().Scale != b.typ().Scale {
		return nil // different scales: the generic path rescales
	}
	// Same physical type but different logical kinds (e.g. DATE vs INT)
	// are left to the generic path, which reports the mismatch.
	ka, kb := a.typ().Kind, b.typ().Kind
	if !isNullLit(a) && !isNullLit(b) && ka != kb && !(a.typ().IsString() && b.typ().IsString()) {
		return nil
	}
	// Timestamps of micro and nano units are not comparable as raw int64.
	if !isNullLit(a) && !isNullLit(b) && types.IsNanoTimestamp(a.typ()) != types.IsNanoTimestamp(b.typ()) {
		return nil
	}
	return &cmpNode{op: op, a: a, b: b, phys: pa, t: t}
}

func (n *cmpNode) typ() types.Type { return n.t }
func (n *cmpNode) canFail() bool   { return anyCanFail(n.a, n.b) }

func (n *cmpNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
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
		return array.MakeArrayOfNull(mem, arrow.FixedWidthTypes.Boolean, rows), nil
	}
	switch n.phys {
	case physI8:
		return cmpEval[int8](n, rec, rows, mem)
	case physI16:
		return cmpEval[int16](n, rec, rows, mem)
	case physI32:
		return cmpEval[int32](n, rec, rows, mem)
	case physI64:
		return cmpEval[int64](n, rec, rows, mem)
	case physF32:
		return cmpEval[float32](n, rec, rows, mem)
	case physF64:
		return cmpEval[float64](n, rec, rows, mem)
	}
	if n.phys == physDec {
		return cmpDecEval(n, rec, rows, mem)
	}
	return cmpStrEval(n, rec, rows, mem)
}

// dec128 is the in-memory layout of decimal128.Num (little-endian words).
type dec128 struct {
	lo uint64
	hi int64
}

func cmpDec(x, y dec128) int {
	switch {
	case x.hi < y.hi:
		return -1
	case x.hi > y.hi:
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

func decLit(nd node) (dec128, bool) {
	l, ok := nd.(*litNode)
	if !ok || l.v == nil {
		return dec128{}, false
	}
	d, ok := l.v.(decimal128.Num)
	if !ok {
		return dec128{}, false
	}
	return dec128{lo: d.LowBits(), hi: d.HighBits()}, true
}

func decValues(a arrow.Array) []dec128 {
	d := a.Data()
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 || d.Len() == 0 {
		return nil
	}
	all := unsafe.Slice((*dec128)(unsafe.Pointer(unsafe.SliceData(b.Bytes()))), b.Len()/16)
	return all[d.Offset() : d.Offset()+d.Len()]
}

func cmpDecEval(n *cmpNode, rec arrow.RecordBatch, rows int, mem memory.Allocator) (arrow.Array, error) {
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
	buf, out := newBits(mem, rows)
	var xv, yv []dec128
	if xa != nil {
		xv = decValues(xa)
	}
	if ya != nil {
		yv = decValues(ya)
	}
	for i := 0; i < rows; i++ {
		x, y := xs, ys
		if xv != nil {
			x = xv[i]
		}
		if yv != nil {
			y = yv[i]
		}
		out[i>>3] |= b2u(cmpStr(n.op, cmpDec(x, y))) << (i & 7)
	}
	return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

// litOrdered reads a numeric literal as T.
func litOrdered[T ordered](nd node) (T, bool) {
	l, ok := nd.(*litNode)
	if !ok || l.v == nil {
		var z T
		return z, false
	}
	switch v := l.v.(type) {
	case int8:
		return T(v), true
	case int16:
		return T(v), true
	case int32:
		return T(v), true
	case int64:
		return T(v), true
	case float32:
		return T(v), true
	case float64:
		return T(v), true
	}
	var z T
	return z, false
}

func newBits(mem memory.Allocator, n int) (*memory.Buffer, []byte) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	b := buf.Bytes()
	clear(b)
	return buf, b
}

func cmpEval[T ordered](n *cmpNode, rec arrow.RecordBatch, rows int, mem memory.Allocator) (arrow.Array, error) {
	xs, xConst := litOrdered[T](n.a)
	ys, yConst := litOrdered[T](n.b)
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
	buf, out := newBits(mem, rows)
	op := n.op
	switch {
	case xConst && yConst:
		if cmpOne(op, xs, ys) {
			for i := range out {
				out[i] = 0xff
			}
		}
	case yConst:
		cmpVS(op, numValues[T](xa), ys, out)
	case xConst:
		cmpVS(flip(op), numValues[T](ya), xs, out)
	default:
		cmpVV(op, numValues[T](xa), numValues[T](ya), out)
	}
	return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

// flip mirrors an operator for swapped operands (1 < x is x > 1).
func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

func cmpOne[T ordered](op string, x, y T) bool {
	switch op {
	case "=":
		return x == y
	case "<>":
		return x != y
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	}
	return x >= y
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func cmpVV[T ordered](op string, x, y []T, out []byte) {
	y = y[:len(x)]
	switch op {
	case "=":
		for i := range x {
			out[i>>3] |= b2u(x[i] == y[i]) << (i & 7)
		}
	case "<>":
		for i := range x {
			out[i>>3] |= b2u(x[i] != y[i]) << (i & 7)
		}
	case "<":
		for i := range x {
			out[i>>3] |= b2u(x[i] < y[i]) << (i & 7)
		}
	case "<=":
		for i := range x {
			out[i>>3] |= b2u(x[i] <= y[i]) << (i & 7)
		}
	case ">":
		for i := range x {
			out[i>>3] |= b2u(x[i] > y[i]) << (i & 7)
		}
	case ">=":
		for i := range x {
			out[i>>3] |= b2u(x[i] >= y[i]) << (i & 7)
		}
	}
}

func cmpVS[T ordered](op string, x []T, y T, out []byte) {
	switch op {
	case "=":
		for i := range x {
			out[i>>3] |= b2u(x[i] == y) << (i & 7)
		}
	case "<>":
		for i := range x {
			out[i>>3] |= b2u(x[i] != y) << (i & 7)
		}
	case "<":
		for i := range x {
			out[i>>3] |= b2u(x[i] < y) << (i & 7)
		}
	case "<=":
		for i := range x {
			out[i>>3] |= b2u(x[i] <= y) << (i & 7)
		}
	case ">":
		for i := range x {
			out[i>>3] |= b2u(x[i] > y) << (i & 7)
		}
	case ">=":
		for i := range x {
			out[i>>3] |= b2u(x[i] >= y) << (i & 7)
		}
	}
}

func cmpStr(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func cmpStrEval(n *cmpNode, rec arrow.RecordBatch, rows int, mem memory.Allocator) (arrow.Array, error) {
	var xs, ys string
	xl, xConst := n.a.(*litNode)
	yl, yConst := n.b.(*litNode)
	if xConst {
		xs = xl.v.(string)
	}
	if yConst {
		ys = yl.v.(string)
	}
	var xa, ya *array.String
	if !xConst {
		a, err := n.a.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		xa = a.(*array.String)
	}
	if !yConst {
		a, err := n.b.eval(rec, scratch)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		ya = a.(*array.String)
	}
	var va, vb arrow.Array
	if xa != nil {
		va = xa
	}
	if ya != nil {
		vb = ya
	}
	validity, nulls := validityOf(mem, rows, va, vb)
	buf, out := newBits(mem, rows)
	op := n.op
	eq := op == "=" || op == "<>"
	for i := 0; i < rows; i++ {
		x, y := xs, ys
		if xa != nil {
			x = xa.Value(i)
		}
		if ya != nil {
			y = ya.Value(i)
		}
		var r bool
		if eq {
			r = (x == y) == (op == "=")
		} else {
			r = cmpStr(op, strings.Compare(x, y))
		}
		out[i>>3] |= b2u(r) << (i & 7)
	}
	return finish(arrow.FixedWidthTypes.Boolean, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}
