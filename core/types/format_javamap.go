package types

import (
	"math"
	"reflect"
	"sort"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// javaMapOrder returns the order in which java.util.HashMap iterates the
// entries of m once Flink's converter has put them into a new HashMap:
// by bucket (hash spread over the table size), then insertion order; a
// repeated key keeps its first position and its last value. It returns
// nil (keep insertion order) for key types whose Java hash is not a pure
// function of the value (byte[] and nested types).
func javaMapOrder(m *MapValue, kt Type) (order []int, values []any) {
	n := len(m.Keys)
	hashes := make([]int32, 0, n)
	var firstOf []int
	values = make([]any, 0, n)
	for i, k := range m.Keys {
		dup := -1
		for j, f := range firstOf {
			if reflect.DeepEqual(m.Keys[f], k) {
				dup = j
				break
			}
		}
		if dup >= 0 {
			values[dup] = m.Values[i]
			continue
		}
		h, ok := javaHash(k, kt)
		if !ok {
			return nil, nil
		}
		firstOf = append(firstOf, i)
		hashes = append(hashes, h)
		values = append(values, m.Values[i])
	}
	size := 16
	for len(firstOf) > size*3/4 {
		size *= 2
	}
	idx := make([]int, len(firstOf))
	for i := range idx {
		idx[i] = i
	}
	bucket := func(i int) int {
		h := uint32(hashes[i])
		return int((h ^ h>>16) & uint32(size-1))
	}
	sort.SliceStable(idx, func(a, b int) bool { return bucket(idx[a]) < bucket(idx[b]) })
	order = make([]int, len(idx))
	vals := make([]any, len(idx))
	for i, j := range idx {
		order[i] = firstOf[j]
		vals[i] = values[j]
	}
	return order, vals
}

func longHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// javaHash is hashCode() of the Java external class of a key (ok false
// when it is not defined by the value).
func javaHash(v any, t Type) (int32, bool) {
	if v == nil {
		return 0, true
	}
	switch t.Kind {
	case Boolean:
		if v.(bool) {
			return 1231, true
		}
		return 1237, true
	case TinyInt, SmallInt, Int:
		x, _ := asInt64(v)
		return int32(x), true
	case BigInt:
		x, _ := asInt64(v)
		return longHash(x), true
	case Double:
		f, _ := v.(float64)
		bits := int64(math.Float64bits(f))
		if f != f {
			bits = 0x7ff8000000000000
		}
		return longHash(bits), true
	case Float:
		f, _ := v.(float32)
		if f != f {
			return 0x7fc00000, true
		}
		return int32(math.Float32bits(f)), true
	case Char, VarChar:
		var h int32
		for _, u := range utf16.Encode([]rune(v.(string))) {
			h = 31*h + int32(u)
		}
		return h, true
	case Decimal:
		return bigDecimalHash(v.(decimal128.Num), t.Scale), true
	case Date:
		d, _ := asInt64(v)
		return localDateHash(d), true
	case Time:
		ms, _ := asInt64(v)
		return longHash(ms * 1_000_000), true
	case Timestamp:
		x, _ := asInt64(v)
		secs, nanos := SplitTimestamp(x, t)
		days, sod := floorDivMod(secs, 86400)
		return localDateHash(days) ^ longHash(sod*NanosPerSecond+nanos), true
	case TimestampLTZ:
		x, _ := asInt64(v)
		secs, nanos := SplitTimestamp(x, t)
		return longHash(secs) + 51*int32(nanos), true
	}
	return 0, false
}

func localDateHash(days int64) int32 {
	y, m, d := civil(days)
	yv := int32(y)
	return (yv & -2048) ^ ((yv << 11) + (int32(m) << 6) + int32(d))
}

// bigDecimalHash is BigDecimal.hashCode: 31 * unscaled.hashCode() + scale,
// with BigInteger.hashCode over the big-endian 32-bit magnitude words.
func bigDecimalHash(n decimal128.Num, scale int) int32 {
	b := n.BigInt()
	sign := int32(b.Sign())
	mag := b.Abs(b).Bytes()
	for len(mag)%4 != 0 {
		mag = append([]byte{0}, mag...)
	}
	var h int32
	for i := 0; i < len(mag); i += 4 {
		w := uint32(mag[i])<<24 | uint32(mag[i+1])<<16 | uint32(mag[i+2])<<8 | uint32(mag[i+3])
		h = 31*h + int32(w)
	}
	return 31*(h*sign) + int32(scale)
}
