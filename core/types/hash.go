package types

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// HashColumns writes into hashes[i] a hash of the values of columns cols
// of row i of rec, for every row. The hash is deterministic across runs and
// processes (no seed), so it can route rows between subtasks, assign key
// groups in snapshots and compute HASH_CODE. Values that GROUP BY puts
// together hash alike: all NULLs of a column are equal, and so are 0.0 and
// -0.0, and every NaN. hashes must be at least rec.NumRows() long.
func HashColumns(rec arrow.RecordBatch, cols []int, hashes []uint64) {
	hs := hashes[:rec.NumRows()]
	if len(cols) > 0 && hashFirst(rec.Column(cols[0]), hs) {
		cols = cols[1:]
	} else {
		for i := range hs {
			hs[i] = hashSeed
		}
	}
	for _, c := range cols {
		hashArray(rec.Column(c), hs)
	}
}

// hashFirst sets hs[i] to the hash of the first key column a alone, as
// hashArray over hashSeed does, when a is an integer or temporal column
// without NULLs (the common keys); it reports false, doing nothing,
// otherwise.
func hashFirst(a arrow.Array, hs []uint64) bool {
	if bm, _ := validity(a); bm != nil || len(hs) == 0 {
		return false
	}
	switch a := a.(type) {
	case *array.Int32:
		seedSigned(hs, a.Int32Values())
	case *array.Int64:
		seedSigned(hs, a.Int64Values())
	case *array.Date32:
		seedSigned(hs, a.Date32Values())
	case *array.Timestamp:
		seedSigned(hs, a.TimestampValues())
	default:
		return false
	}
	return true
}

func seedSigned[T ~int32 | ~int64](hs []uint64, vals []T) {
	vals = vals[:len(hs)]
	for i, v := range vals {
		hs[i] = mix(hashSeed, uint64(int64(v)))
	}
}

// HashArray writes into hashes[i] the hash HashColumns gives a row whose
// only key column is a, for the first len(hashes) rows of a.
func HashArray(a arrow.Array, hashes []uint64) {
	for i := range hashes {
		hashes[i] = hashSeed
	}
	hashArray(a, hashes)
}

const hashSeed = 0x9e3779b97f4a7c15

const (
	hashMul  = 0x100000001b3
	nullHash = 0x5bd1e9955bd1e995
)

func mix(h, v uint64) uint64 {
	h ^= v
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 31
	return h * hashMul
}

func mixBytes(h uint64, b []byte) uint64 {
	x := uint64(0xcbf29ce484222325)
	for _, c := range b {
		x ^= uint64(c)
		x *= hashMul
	}
	return mix(h, x^uint64(len(b)))
}

// mixString is mixBytes(h, []byte(s)) without the conversion.
func mixString(h uint64, s string) uint64 {
	x := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= hashMul
	}
	return mix(h, x^uint64(len(s)))
}

func canonFloat(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

// validity returns the validity bitmap of a and a's offset into it, or nil
// when no value of a is NULL (a.IsNull is false for every row).
func validity(a arrow.Array) ([]byte, int) {
	bm := a.NullBitmapBytes()
	if len(bm) == 0 || a.NullN() == 0 {
		return nil, 0
	}
	return bm, a.Data().Offset()
}

// The typed loops below hash a whole column at a time, reading the values
// and the validity bitmap directly (no per-row interface calls): a NULL
// row mixes nullHash, a valid one its value, exactly as the row-at-a-time
// definition did (vectorized/build/exchange_hash_test.go keeps it and
// checks every type against it).

func hashSigned[T ~int8 | ~int16 | ~int32 | ~int64](hs []uint64, vals []T, bm []byte, off int) {
	vals = vals[:len(hs)]
	if bm == nil {
		for i, v := range vals {
			hs[i] = mix(hs[i], uint64(int64(v)))
		}
		return
	}
	for i, v := range vals {
		if bitutil.BitIsSet(bm, off+i) {
			hs[i] = mix(hs[i], uint64(int64(v)))
		} else {
			hs[i] = mix(hs[i], nullHash)
		}
	}
}

func hashUnsigned[T ~uint8 | ~uint16 | ~uint32 | ~uint64](hs []uint64, vals []T, bm []byte, off int) {
	vals = vals[:len(hs)]
	if bm == nil {
		for i, v := range vals {
			hs[i] = mix(hs[i], uint64(v))
		}
		return
	}
	for i, v := range vals {
		if bitutil.BitIsSet(bm, off+i) {
			hs[i] = mix(hs[i], uint64(v))
		} else {
			hs[i] = mix(hs[i], nullHash)
		}
	}
}

func hashFloats[T ~float32 | ~float64](hs []uint64, vals []T, bm []byte, off int) {
	vals = vals[:len(hs)]
	for i, v := range vals {
		if bm == nil || bitutil.BitIsSet(bm, off+i) {
			hs[i] = mix(hs[i], canonFloat(float64(v)))
		} else {
			hs[i] = mix(hs[i], nullHash)
		}
	}
}

// hashEach mixes value(i) into hs[i] for the valid rows, nullHash for the
// others.
func hashEach(hs []uint64, bm []byte, off int, value func(h uint64, i int) uint64) {
	for i := range hs {
		if bm == nil || bitutil.BitIsSet(bm, off+i) {
			hs[i] = value(hs[i], i)
		} else {
			hs[i] = mix(hs[i], nullHash)
		}
	}
}

// hasOffsets reports whether the variable-length array a has its offsets
// buffer (an array of NULLs may have none).
func hasOffsets(a arrow.Array) bool {
	bufs := a.Data().Buffers()
	return len(bufs) > 1 && bufs[1] != nil && bufs[1].Len() > 0
}

// hashVarBinary mixes the bytes of every valid value of a STRING or BINARY
// column into hs: offs are its len(hs)+1 offsets, data its values from
// offs[0] on (ValueOffsets, ValueBytes).
func hashVarBinary[O int32 | int64](hs []uint64, offs []O, data []byte, bm []byte, off int) {
	offs = offs[:len(hs)+1]
	base := offs[0]
	for i := range hs {
		if bm == nil || bitutil.BitIsSet(bm, off+i) {
			hs[i] = mixBytes(hs[i], data[offs[i]-base:offs[i+1]-base])
		} else {
			hs[i] = mix(hs[i], nullHash)
		}
	}
}

func hashArray(a arrow.Array, hs []uint64) {
	if len(hs) == 0 {
		return
	}
	switch a := a.(type) {
	case *array.Int8:
		bm, off := validity(a)
		hashSigned(hs, a.Int8Values(), bm, off)
	case *array.Int16:
		bm, off := validity(a)
		hashSigned(hs, a.Int16Values(), bm, off)
	case *array.Int32:
		bm, off := validity(a)
		hashSigned(hs, a.Int32Values(), bm, off)
	case *array.Int64:
		bm, off := validity(a)
		hashSigned(hs, a.Int64Values(), bm, off)
	case *array.Uint8:
		bm, off := validity(a)
		hashUnsigned(hs, a.Uint8Values(), bm, off)
	case *array.Uint16:
		bm, off := validity(a)
		hashUnsigned(hs, a.Uint16Values(), bm, off)
	case *array.Uint32:
		bm, off := validity(a)
		hashUnsigned(hs, a.Uint32Values(), bm, off)
	case *array.Uint64:
		bm, off := validity(a)
		hashUnsigned(hs, a.Uint64Values(), bm, off)
	case *array.Float32:
		bm, off := validity(a)
		hashFloats(hs, a.Float32Values(), bm, off)
	case *array.Float64:
		bm, off := validity(a)
		hashFloats(hs, a.Float64Values(), bm, off)
	case *array.Date32:
		bm, off := validity(a)
		hashSigned(hs, a.Date32Values(), bm, off)
	case *array.Date64:
		bm, off := validity(a)
		hashSigned(hs, a.Date64Values(), bm, off)
	case *array.Time32:
		bm, off := validity(a)
		hashSigned(hs, a.Time32Values(), bm, off)
	case *array.Time64:
		bm, off := validity(a)
		hashSigned(hs, a.Time64Values(), bm, off)
	case *array.Timestamp:
		bm, off := validity(a)
		hashSigned(hs, a.TimestampValues(), bm, off)
	case *array.Duration:
		bm, off := validity(a)
		hashSigned(hs, a.DurationValues(), bm, off)
	case *array.Boolean:
		bm, off := validity(a)
		hashEach(hs, bm, off, func(h uint64, i int) uint64 {
			v := uint64(1)
			if a.Value(i) {
				v = 2
			}
			return mix(h, v)
		})
	case *array.Decimal128:
		bm, off := validity(a)
		vals := a.Values()[:len(hs)]
		hashEach(hs, bm, off, func(h uint64, i int) uint64 {
			v := vals[i]
			return mix(mix(h, v.LowBits()), uint64(v.HighBits()))
		})
	case *array.String:
		bm, off := validity(a)
		if hasOffsets(a) {
			hashVarBinary(hs, a.ValueOffsets(), a.ValueBytes(), bm, off)
		} else {
			hashEach(hs, bm, off, func(h uint64, i int) uint64 { return mixString(h, a.Value(i)) })
		}
	case *array.LargeString:
		bm, off := validity(a)
		if hasOffsets(a) {
			hashVarBinary(hs, a.ValueOffsets(), a.ValueBytes(), bm, off)
		} else {
			hashEach(hs, bm, off, func(h uint64, i int) uint64 { return mixString(h, a.Value(i)) })
		}
	case *array.Binary:
		bm, off := validity(a)
		if hasOffsets(a) {
			hashVarBinary(hs, a.ValueOffsets(), a.ValueBytes(), bm, off)
		} else {
			hashEach(hs, bm, off, func(h uint64, i int) uint64 { return mixBytes(h, a.Value(i)) })
		}
	case *array.LargeBinary:
		bm, off := validity(a)
		if hasOffsets(a) {
			hashVarBinary(hs, a.ValueOffsets(), a.ValueBytes(), bm, off)
		} else {
			hashEach(hs, bm, off, func(h uint64, i int) uint64 { return mixBytes(h, a.Value(i)) })
		}
	case *array.FixedSizeBinary:
		bm, off := validity(a)
		hashEach(hs, bm, off, func(h uint64, i int) uint64 { return mixBytes(h, a.Value(i)) })
	default:
		// Nested types (ARRAY, MAP, ROW): their display text is a faithful
		// encoding of the value.
		for i := range hs {
			if a.IsNull(i) {
				hs[i] = mix(hs[i], nullHash)
			} else {
				hs[i] = mixString(hs[i], a.ValueStr(i))
			}
		}
	}
}
