package agg

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

var keyTypeCases = []struct {
	name  string
	types []arrow.DataType
	fixed bool
}{
	{"int8", []arrow.DataType{arrow.PrimitiveTypes.Int8}, true},
	{"int16", []arrow.DataType{arrow.PrimitiveTypes.Int16}, true},
	{"int32", []arrow.DataType{arrow.PrimitiveTypes.Int32}, true},
	{"int64", []arrow.DataType{arrow.PrimitiveTypes.Int64}, true},
	{"uint8", []arrow.DataType{arrow.PrimitiveTypes.Uint8}, true},
	{"uint16", []arrow.DataType{arrow.PrimitiveTypes.Uint16}, true},
	{"uint32", []arrow.DataType{arrow.PrimitiveTypes.Uint32}, true},
	{"uint64", []arrow.DataType{arrow.PrimitiveTypes.Uint64}, true},
	{"float32", []arrow.DataType{arrow.PrimitiveTypes.Float32}, true},
	{"float64", []arrow.DataType{arrow.PrimitiveTypes.Float64}, true},
	{"date32", []arrow.DataType{arrow.FixedWidthTypes.Date32}, true},
	{"timestamp", []arrow.DataType{arrow.FixedWidthTypes.Timestamp_us}, true},
	{"time64", []arrow.DataType{arrow.FixedWidthTypes.Time64ns}, true},
	{"bool", []arrow.DataType{arrow.FixedWidthTypes.Boolean}, false},
	{"string", []arrow.DataType{arrow.BinaryTypes.String}, false},
	{"large_string", []arrow.DataType{arrow.BinaryTypes.LargeString}, false},
	{"binary", []arrow.DataType{arrow.BinaryTypes.Binary}, false},
	{"decimal", []arrow.DataType{&arrow.Decimal128Type{Precision: 20, Scale: 2}}, false},
	{"int32,string,bool", []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean}, false},
	{"float64,decimal,int64", []arrow.DataType{arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 10, Scale: 0}, arrow.PrimitiveTypes.Int64}, false},
}

func TestGroupTableAgainstMap(t *testing.T) {
	for _, tc := range keyTypeCases {
		for _, card := range []int{3, 200, 5000} {
			for _, nullFrac := range []float64{0, 0.1} {
				t.Run(tc.name, func(t *testing.T) {
					checkGroupTable(t, tc.types, tc.fixed, card, nullFrac)
				})
			}
		}
	}
}

func checkGroupTable(t *testing.T, types []arrow.DataType, fixed bool, card int, nullFrac float64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(uint64(card), uint64(len(types))))
	const n = 20_000
	cols := make([]arrow.Array, len(types))
	refs := make([][]any, len(types))
	for i, typ := range types {
		cols[i], refs[i] = randomColumn(mem, typ, n, card, nullFrac, r)
	}
	defer release(cols)
	rowKey := func(i int) string {
		var sb strings.Builder
		for c := range refs {
			sb.WriteString(canon(refs[c][i]))
			sb.WriteByte('|')
		}
		return sb.String()
	}

	tbl, err := NewGroupTable(types)
	require.NoError(t, err)
	_, isFixed := tbl.(*fixedTable)
	require.Equal(t, fixed, isFixed)

	ref := map[string]uint32{}
	firstRow := []int{}
	ids := make([]uint32, 5000)
	for _, b := range batchSizes(n, []int{1, 7, 1000, 4096, 3, 64}) {
		batch := sliceArrays(cols, b[0], b[1])
		require.NoError(t, tbl.Insert(batch, b[1]-b[0], ids))
		release(batch)
		for j := range b[1] - b[0] {
			row := b[0] + j
			k := rowKey(row)
			want, ok := ref[k]
			if !ok {
				want = uint32(len(ref))
				ref[k] = want
				firstRow = append(firstRow, row)
			}
			require.Equal(t, want, ids[j], "row %d key %s", row, k)
		}
		require.Equal(t, len(ref), tbl.Len())
	}
	require.Positive(t, tbl.SizeBytes())

	keys := tbl.Keys(mem)
	defer release(keys)
	require.Len(t, keys, len(types))
	for g, row := range firstRow {
		for c := range types {
			require.True(t, arrow.TypeEqual(types[c], keys[c].DataType()))
			require.Equal(t, canon(refs[c][row]), canon(valueAt(keys[c], g)), "group %d col %d", g, c)
		}
	}
}

func TestGroupTableErrors(t *testing.T) {
	_, err := NewGroupTable(nil)
	require.ErrorIs(t, err, ErrNotSupported)
	_, err = NewGroupTable([]arrow.DataType{arrow.ListOf(arrow.PrimitiveTypes.Int32)})
	require.ErrorIs(t, err, ErrNotSupported)
	require.ErrorContains(t, err, "not supported yet")

	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	a, _ := randomColumn(mem, arrow.PrimitiveTypes.Int32, 10, 5, 0, r)
	defer a.Release()
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String} {
		tbl, err := NewGroupTable([]arrow.DataType{typ})
		require.NoError(t, err)
		ids := make([]uint32, 10)
		require.Error(t, tbl.Insert([]arrow.Array{a}, 10, ids), "wrong type")
		require.Error(t, tbl.Insert([]arrow.Array{a, a}, 10, ids), "wrong arity")
	}
	tbl, err := NewGroupTable([]arrow.DataType{arrow.PrimitiveTypes.Int32})
	require.NoError(t, err)
	require.Error(t, tbl.Insert([]arrow.Array{a}, 11, make([]uint32, 11)), "too many rows")
	require.Error(t, tbl.Insert([]arrow.Array{a}, 10, make([]uint32, 5)), "short ids")
	require.NoError(t, tbl.Insert([]arrow.Array{a}, 0, nil))
	require.Equal(t, 0, tbl.Len())

	for _, tc := range keyTypeCases {
		empty, err := NewGroupTable(tc.types)
		require.NoError(t, err)
		keys := empty.Keys(mem)
		require.Len(t, keys, len(tc.types))
		for _, k := range keys {
			require.Equal(t, 0, k.Len())
		}
		release(keys)
	}
}

func TestGroupTableGrowsPastMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	tbl, err := NewGroupTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
	require.NoError(t, err)
	mem := memory.NewGoAllocator()
	const n = 1 << 20
	ks := make([]int64, n)
	for i := range ks {
		ks[i] = int64(i) * 4096 // keys that collide under a plain mask
	}
	ids := make([]uint32, n)
	a := int64Array(mem, ks)
	defer a.Release()
	require.NoError(t, tbl.Insert([]arrow.Array{a}, n, ids))
	require.Equal(t, n, tbl.Len())
	for i, id := range ids {
		if uint32(i) != id {
			require.Equal(t, uint32(i), id)
		}
	}
	require.NoError(t, tbl.Insert([]arrow.Array{a}, n, ids))
	require.Equal(t, n, tbl.Len())
	require.Equal(t, uint32(n-1), ids[n-1])
}

func TestHugeBatchFewKeysStaysSmall(t *testing.T) {
	mem := memory.NewGoAllocator()
	const n = 1 << 20
	ks := make([]int64, n)
	for i := range ks {
		ks[i] = int64(i % 10)
	}
	a := int64Array(mem, ks)
	defer a.Release()
	ids := make([]uint32, n)
	for _, types := range [][]arrow.DataType{{arrow.PrimitiveTypes.Int64}, {arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}} {
		tbl, err := NewGroupTable(types)
		require.NoError(t, err)
		cols := make([]arrow.Array, len(types))
		for i := range cols {
			cols[i] = a
		}
		require.NoError(t, tbl.Insert(cols, n, ids))
		require.Equal(t, 10, tbl.Len())
		require.Equal(t, uint32((n-1)%10), ids[n-1])
		require.Less(t, tbl.SizeBytes()-int64(n)*40, int64(1<<20), "slots sized for the keys, not the batch")
	}
}

func TestGroupTableNullTypeColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nulls := array.NewNull(4)
	defer nulls.Release()
	b := array.NewInt32Builder(mem)
	b.AppendValues([]int32{1, 2, 1, 0}, []bool{true, true, true, false})
	ints := b.NewArray()
	b.Release()
	defer ints.Release()
	tbl, err := NewGroupTable([]arrow.DataType{arrow.Null, arrow.PrimitiveTypes.Int32})
	require.NoError(t, err)
	ids := make([]uint32, 4)
	require.NoError(t, tbl.Insert([]arrow.Array{nulls, ints}, 4, ids))
	require.Equal(t, []uint32{0, 1, 0, 2}, ids)
	keys := tbl.Keys(mem)
	defer release(keys)
	require.Equal(t, 3, keys[0].NullN())
	require.Equal(t, int64(2), valueAt(keys[1], 1))
	require.True(t, keys[1].IsNull(2))
}
