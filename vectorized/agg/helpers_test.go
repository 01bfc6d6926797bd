package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// randomColumn makes n random values of typ drawn from about card distinct
// values, a fraction nullFrac of them NULL. It returns the array and the
// reference values (nil for NULL) as Go values: int64, uint64, float64,
// string, bool or decimal128.Num.
func randomColumn(mem memory.Allocator, typ arrow.DataType, n, card int, nullFrac float64, r *rand.Rand) (arrow.Array, []any) {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	ref := make([]any, n)
	for i := range n {
		if r.Float64() < nullFrac {
			b.AppendNull()
			continue
		}
		k := r.IntN(card)
		s := int64(k - card/2) // include negatives
		switch bb := b.(type) {
		case *array.Int8Builder:
			v := int8(s)
			bb.Append(v)
			ref[i] = int64(v)
		case *array.Int16Builder:
			v := int16(s * 37)
			bb.Append(v)
			ref[i] = int64(v)
		case *array.Int32Builder:
			v := int32(s * 100003)
			bb.Append(v)
			ref[i] = int64(v)
		case *array.Int64Builder:
			v := s * 1_000_000_007
			bb.Append(v)
			ref[i] = v
		case *array.Uint8Builder:
			bb.Append(uint8(k))
			ref[i] = uint64(uint8(k))
		case *array.Uint16Builder:
			bb.Append(uint16(k))
			ref[i] = uint64(uint16(k))
		case *array.Uint32Builder:
			bb.Append(uint32(k) * 7919)
			ref[i] = uint64(uint32(k) * 7919)
		case *array.Uint64Builder:
			bb.Append(uint64(k) << 40)
			ref[i] = uint64(k) << 40
		case *array.Float32Builder:
			v := float32(s) / 4
			switch k % 13 {
			case 0:
				v = float32(math.NaN())
			case 1:
				v = float32(math.Copysign(0, -1))
			}
			bb.Append(v)
			ref[i] = float64(v)
		case *array.Float64Builder:
			v := float64(s) / 8
			switch k % 11 {
			case 0:
				v = math.Float64frombits(0x7ff8000000000001 + uint64(r.IntN(5))) // NaNs of many payloads
			case 1:
				v = math.Copysign(0, -1)
			}
			bb.Append(v)
			ref[i] = v
		case *array.Date32Builder:
			bb.Append(arrow.Date32(s))
			ref[i] = s
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(s * 1000))
			ref[i] = s * 1000
		case *array.Time64Builder:
			bb.Append(arrow.Time64(k))
			ref[i] = int64(k)
		case *array.BooleanBuilder:
			bb.Append(k%2 == 0)
			ref[i] = k%2 == 0
		case *array.StringBuilder:
			v := strings.Repeat("é", k%3) + fmt.Sprint(s)
			bb.Append(v)
			ref[i] = v
		case *array.LargeStringBuilder:
			v := fmt.Sprint("L", s)
			bb.Append(v)
			ref[i] = v
		case *array.BinaryBuilder:
			v := []byte{byte(k), byte(k >> 8), 0xff}[:1+k%3]
			bb.Append(v)
			ref[i] = string(v)
		case *array.Decimal128Builder:
			v := decimal128.FromI64(s * 12345)
			bb.Append(v)
			ref[i] = v
		default:
			panic(fmt.Sprintf("randomColumn: %T", b))
		}
	}
	return b.NewArray(), ref
}

// valueAt reads row i of a as the Go reference representation.
func valueAt(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch v := a.(type) {
	case *array.Int8:
		return int64(v.Value(i))
	case *array.Int16:
		return int64(v.Value(i))
	case *array.Int32:
		return int64(v.Value(i))
	case *array.Int64:
		return v.Value(i)
	case *array.Uint8:
		return uint64(v.Value(i))
	case *array.Uint16:
		return uint64(v.Value(i))
	case *array.Uint32:
		return uint64(v.Value(i))
	case *array.Uint64:
		return v.Value(i)
	case *array.Float32:
		return float64(v.Value(i))
	case *array.Float64:
		return v.Value(i)
	case *array.Date32:
		return int64(v.Value(i))
	case *array.Timestamp:
		return int64(v.Value(i))
	case *array.Time64:
		return int64(v.Value(i))
	case *array.Boolean:
		return v.Value(i)
	case *array.String:
		return v.Value(i)
	case *array.LargeString:
		return v.Value(i)
	case *array.Binary:
		return string(v.Value(i))
	case *array.Decimal128:
		return v.Value(i)
	}
	panic(fmt.Sprintf("valueAt: %T", a))
}

// canon is the GROUP BY identity of a reference value: all NaNs are one
// value and -0.0 is 0.0.
func canon(v any) string {
	if f, ok := v.(float64); ok {
		if f != f {
			return "NaN"
		}
		if f == 0 && !math.Signbit(f) {
			return "0"
		}
		if f == 0 {
			return "-0" // a key of its own, as in Flink
		}
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// sliceArrays slices every array to [lo, hi).
func sliceArrays(as []arrow.Array, lo, hi int) []arrow.Array {
	out := make([]arrow.Array, len(as))
	for i, a := range as {
		out[i] = array.NewSlice(a, int64(lo), int64(hi))
	}
	return out
}

func release(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// batchSizes cuts n rows into batches of sizes cycling through sizes.
func batchSizes(n int, sizes []int) [][2]int {
	var out [][2]int
	for lo, i := 0, 0; lo < n; i++ {
		hi := min(n, lo+sizes[i%len(sizes)])
		out = append(out, [2]int{lo, hi})
		lo = hi
	}
	return out
}
