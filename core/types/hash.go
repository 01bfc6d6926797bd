package types

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// HashColumns writes into hashes[i] a hash of the values of columns cols
// of row i of rec, for every row. The hash is deterministic across runs and
// processes (no seed), so it can route rows between subtasks, assign key
// groups in snapshots and compute HASH_CODE. Values that GROUP BY puts
// together hash alike: all NULLs of a column are equal, and so are 0.0 and
// -0.0, and every NaN. hashes must be at least rec.NumRows() long.
func HashColumns(rec arrow.RecordBatch, cols []int, hashes []uint64) {
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		hashes[i] = hashSeed
	}
	for _, c := range cols {
		hashArray(rec.Column(c), hashes[:n])
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

func canonFloat(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

func hashArray(a arrow.Array, hs []uint64) {
	for i := range hs {
		if a.IsNull(i) {
			hs[i] = mix(hs[i], nullHash)
		}
	}
	valid := func(i int) bool { return a.IsValid(i) }
	switch a := a.(type) {
	case *array.Int8:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int16:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int32:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Int64:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint8:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint16:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint32:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Uint64:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], a.Value(i))
			}
		}
	case *array.Float32:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], canonFloat(float64(a.Value(i))))
			}
		}
	case *array.Float64:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], canonFloat(a.Value(i)))
			}
		}
	case *array.Boolean:
		for i := range hs {
			if valid(i) {
				v := uint64(1)
				if a.Value(i) {
					v = 2
				}
				hs[i] = mix(hs[i], v)
			}
		}
	case *array.Date32:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Date64:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Time32:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(int64(a.Value(i))))
			}
		}
	case *array.Time64:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Timestamp:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Duration:
		for i := range hs {
			if valid(i) {
				hs[i] = mix(hs[i], uint64(a.Value(i)))
			}
		}
	case *array.Decimal128:
		for i := range hs {
			if valid(i) {
				v := a.Value(i)
				hs[i] = mix(mix(hs[i], v.LowBits()), uint64(v.HighBits()))
			}
		}
	case *array.String:
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], []byte(a.Value(i)))
			}
		}
	case *array.LargeString:
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], []byte(a.Value(i)))
			}
		}
	case *array.Binary:
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], a.Value(i))
			}
		}
	case *array.LargeBinary:
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], a.Value(i))
			}
		}
	case *array.FixedSizeBinary:
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], a.Value(i))
			}
		}
	default:
		// Nested types (ARRAY, MAP, ROW): their display text is a faithful
		// encoding of the value.
		for i := range hs {
			if valid(i) {
				hs[i] = mixBytes(hs[i], []byte(a.ValueStr(i)))
			}
		}
	}
}
