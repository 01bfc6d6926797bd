package build

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// TestHashColumnsMatchesRowAtATime checks the typed, column-at-a-time
// hashing against the row-at-a-time definition it replaced (below, as
// refHashArray): routing, key groups in snapshots and HASH_CODE depend on
// every bit of it.
func TestHashColumnsMatchesRowAtATime(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(1))
	const n = 300
	build := func(dt arrow.DataType, nulls bool) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		for i := 0; i < n; i++ {
			if nulls && r.Intn(4) == 0 {
				b.AppendNull()
				continue
			}
			x := r.Int63() - math.MaxInt64/2
			switch b := b.(type) {
			case *array.Int8Builder:
				b.Append(int8(x))
			case *array.Int16Builder:
				b.Append(int16(x))
			case *array.Int32Builder:
				b.Append(int32(x))
			case *array.Int64Builder:
				b.Append(x)
			case *array.Uint8Builder:
				b.Append(uint8(x))
			case *array.Uint16Builder:
				b.Append(uint16(x))
			case *array.Uint32Builder:
				b.Append(uint32(x))
			case *array.Uint64Builder:
				b.Append(uint64(x))
			case *array.Float32Builder:
				b.Append([]float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(x) / 7}[r.Intn(4)])
			case *array.Float64Builder:
				b.Append([]float64{0, math.Copysign(0, -1), math.NaN(), float64(x) / 7}[r.Intn(4)])
			case *array.BooleanBuilder:
				b.Append(x&1 == 0)
			case *array.Date32Builder:
				b.Append(arrow.Date32(x))
			case *array.Date64Builder:
				b.Append(arrow.Date64(x))
			case *array.Time32Builder:
				b.Append(arrow.Time32(x))
			case *array.Time64Builder:
				b.Append(arrow.Time64(x))
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(x))
			case *array.DurationBuilder:
				b.Append(arrow.Duration(x))
			case *array.Decimal128Builder:
				b.Append(decimal128.New(x>>20, uint64(x)*31))
			case *array.StringBuilder:
				b.Append(string(rune('a'+x%26)) + "xyz"[:x&3])
			case *array.LargeStringBuilder:
				b.Append("k" + string(rune('a'+x%26)))
			case *array.BinaryBuilder:
				b.Append([]byte{byte(x), byte(x >> 8)}[:x&1+1])
			case *array.FixedSizeBinaryBuilder:
				b.Append([]byte{byte(x), byte(x >> 8), byte(x >> 16)})
			case *array.ListBuilder:
				b.Append(true)
				b.ValueBuilder().(*array.Int64Builder).Append(x % 5)
			default:
				t.Fatalf("no values for %s", dt)
			}
		}
		return b.NewArray()
	}
	dts := []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64, arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Millisecond}, arrow.FixedWidthTypes.Duration_ms, &arrow.Decimal128Type{Precision: 23, Scale: 3},
		arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, &arrow.FixedSizeBinaryType{ByteWidth: 3},
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
	}
	var cols []arrow.Array
	for _, dt := range dts {
		for _, nulls := range []bool{false, true} {
			a := build(dt, nulls)
			for _, s := range []arrow.Array{a, array.NewSlice(a, 7, 200)} {
				got := make([]uint64, s.Len())
				want := make([]uint64, s.Len())
				types.HashArray(s, got)
				for i := range want {
					want[i] = refSeed
				}
				refHashArray(s, want)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s (nulls %v, offset %d): row %d hashes to %x, want %x", dt, nulls, s.Data().Offset(), i, got[i], want[i])
					}
				}
				// alone as a key column: the first column is hashed from the seed
				one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: dt, Nullable: true}}, nil), []arrow.Array{s}, int64(s.Len()))
				vectorized.HashColumns(one, []int{0}, got)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s (nulls %v, offset %d): key row %d hashes to %x, want %x", dt, nulls, s.Data().Offset(), i, got[i], want[i])
					}
				}
				cols = append(cols, s)
			}
		}
	}
	// arrays of NULLs only, as MakeArrayOfNull builds them
	for _, dt := range dts {
		a := array.MakeArrayOfNull(mem, dt, 20)
		got := make([]uint64, a.Len())
		want := make([]uint64, a.Len())
		types.HashArray(a, got)
		for i := range want {
			want[i] = refSeed
		}
		refHashArray(a, want)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s, all NULL: row %d hashes to %x, want %x", dt, i, got[i], want[i])
			}
		}
	}
	// several key columns: the hashes of a sliced record
	var fields []arrow.Field
	var keyCols []arrow.Array
	for i := 0; i < len(cols); i += 2 {
		if cols[i].Len() != n {
			continue
		}
		keyCols = append(keyCols, cols[i], cols[i+2])
		fields = append(fields, arrow.Field{Name: "a", Type: cols[i].DataType(), Nullable: true}, arrow.Field{Name: "b", Type: cols[i+2].DataType(), Nullable: true})
		if len(keyCols) >= 6 {
			break
		}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), keyCols, n).NewSlice(3, 250)
	keys := []int{0, 1, 2, 3, 4, 5}
	got := make([]uint64, rec.NumRows())
	vectorized.HashColumns(rec, keys, got)
	want := make([]uint64, rec.NumRows())
	for i := range want {
		want[i] = refSeed
	}
	for _, k := range keys {
		refHashArray(rec.Column(k), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d of the record hashes to %x, want %x", i, got[i], want[i])
		}
	}
}

// The hash as it was defined row at a time (core/types/hash.go before the
// typed column loops).

const refSeed = 0x9e3779b97f4a7c15

const (
	refMul  = 0x100000001b3
	refNull = 0x5bd1e9955bd1e995
)

func refMix(h, v uint64) uint64 {
	h ^= v
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 31
	return h * refMul
}

func refMixBytes(h uint64, b []byte) uint64 {
	x := uint64(0xcbf29ce484222325)
	for _, c := range b {
		x ^= uint64(c)
		x *= refMul
	}
	return refMix(h, x^uint64(len(b)))
}

func refCanonFloat(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

func refHashArray(a arrow.Array, hs []uint64) {
	for i := range hs {
		if a.IsNull(i) {
			hs[i] = refMix(hs[i], refNull)
		}
	}
	valid := func(i int) bool { return a.IsValid(i) }
	switch a := a.(type) {
	case *array.Int8:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int16:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int32:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int64:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint8:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint16:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint32:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint64:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], a.Value(i))
			}
		}
	case *array.Float32:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], refCanonFloat(float64(a.Value(i))))
			}
		}
	case *array.Float64:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], refCanonFloat(a.Value(i)))
			}
		}
	case *array.Boolean:
		for i := range hs {
			if valid(i) {
				v := uint64(1)
				if a.Value(i) {
					v = 2
				}
				hs[i] = refMix(hs[i], v)
			}
		}
	case *array.Date32:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Date64:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Time32:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Time64:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Timestamp:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Duration:
		for i := range hs {
			if valid(i) {
				hs[i] = refMix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Decimal128:
		for i := range hs {
			if valid(i) {
				v := a.Value(i)
				hs[i] = refMix(refMix(hs[i], v.LowBits()), uint64(v.HighBits()))
			}
		}
	case *array.String:
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], []byte(a.Value(i)))
			}
		}
	case *array.LargeString:
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], []byte(a.Value(i)))
			}
		}
	case *array.Binary:
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], a.Value(i))
			}
		}
	case *array.LargeBinary:
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], a.Value(i))
			}
		}
	case *array.FixedSizeBinary:
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], a.Value(i))
			}
		}
	default:
		// Nested types (ARRAY, MAP, ROW): their display text is a faithful
		// encoding of the value.
		for i := range hs {
			if valid(i) {
				hs[i] = refMixBytes(hs[i], []byte(a.ValueStr(i)))
			}
		}
	}
}
