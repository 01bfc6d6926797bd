package ops

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// valueCmp compares the non-NULL values a[i] and b[j] of two arrays of one
// type: negative, zero or positive.
type valueCmp func(i, j int) int

// rawValues reinterprets the data buffer of a fixed-width array as []T,
// starting at the array's offset.
func rawValues[T any](a arrow.Array) []T {
	d := a.Data()
	buf := d.Buffers()[1]
	if buf == nil || buf.Len() == 0 {
		return nil
	}
	var zero T
	raw := buf.Bytes()
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/int(unsafe.Sizeof(zero)))[d.Offset():]
}

func orderedCmp[T cmp.Ordered](a, b arrow.Array) valueCmp {
	va, vb := rawValues[T](a), rawValues[T](b)
	return func(i, j int) int { return cmp.Compare(va[i], vb[j]) }
}

// javaDoubleCompare orders as Java's Double.compare, which Flink's sort
// uses: -0.0 < 0.0, and NaN is greater than everything and equal to itself.
func javaDoubleCompare(x, y float64) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	bx, by := int64(math.Float64bits(x)), int64(math.Float64bits(y))
	if x != x {
		bx = 0x7ff8000000000000
	}
	if y != y {
		by = 0x7ff8000000000000
	}
	return cmp.Compare(bx, by)
}

// newValueCmp returns the comparator of two arrays of the same Arrow type,
// or an error for types without an order.
func newValueCmp(a, b arrow.Array) (valueCmp, error) {
	if !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return nil, fmt.Errorf("internal: comparing %s with %s", a.DataType(), b.DataType())
	}
	switch a.DataType().ID() {
	case arrow.INT8:
		return orderedCmp[int8](a, b), nil
	case arrow.INT16:
		return orderedCmp[int16](a, b), nil
	case arrow.INT32, arrow.DATE32, arrow.TIME32, arrow.INTERVAL_MONTHS:
		return orderedCmp[int32](a, b), nil
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return orderedCmp[int64](a, b), nil
	case arrow.UINT8:
		return orderedCmp[uint8](a, b), nil
	case arrow.UINT16:
		return orderedCmp[uint16](a, b), nil
	case arrow.UINT32:
		return orderedCmp[uint32](a, b), nil
	case arrow.UINT64:
		return orderedCmp[uint64](a, b), nil
	case arrow.FLOAT32:
		va, vb := rawValues[float32](a), rawValues[float32](b)
		return func(i, j int) int { return javaDoubleCompare(float64(va[i]), float64(vb[j])) }, nil
	case arrow.FLOAT64:
		va, vb := rawValues[float64](a), rawValues[float64](b)
		return func(i, j int) int { return javaDoubleCompare(va[i], vb[j]) }, nil
	case arrow.DECIMAL128:
		va, vb := rawValues[decimal128.Num](a), rawValues[decimal128.Num](b)
		return func(i, j int) int { return va[i].Cmp(vb[j]) }, nil
	case arrow.BOOL:
		ba, bb := a.(*array.Boolean), b.(*array.Boolean)
		return func(i, j int) int {
			x, y := ba.Value(i), bb.Value(j)
			switch {
			case x == y:
				return 0
			case y:
				return -1
			}
			return 1
		}, nil
	case arrow.STRING:
		sa, sb := a.(*array.String), b.(*array.String)
		return func(i, j int) int { return strings.Compare(sa.Value(i), sb.Value(j)) }, nil
	case arrow.BINARY:
		sa, sb := a.(*array.Binary), b.(*array.Binary)
		return func(i, j int) int { return bytes.Compare(sa.Value(i), sb.Value(j)) }, nil
	case arrow.NULL:
		return func(i, j int) int { return 0 }, nil
	}
	return nil, fmt.Errorf("not supported yet: comparing values of Arrow type %s", a.DataType())
}

// sortKeyCmp compares rows of one column with a direction and a NULL
// placement.
type sortKeyCmp struct {
	arr        arrow.Array
	cmp        valueCmp
	desc       bool
	nullsFirst bool
	hasNulls   bool
}

func (k *sortKeyCmp) compare(i, j int) int {
	if k.hasNulls {
		ni, nj := k.arr.IsNull(i), k.arr.IsNull(j)
		if ni || nj {
			switch {
			case ni && nj:
				return 0
			case ni == k.nullsFirst:
				return -1
			}
			return 1
		}
	}
	c := k.cmp(i, j)
	if k.desc {
		return -c
	}
	return c
}
