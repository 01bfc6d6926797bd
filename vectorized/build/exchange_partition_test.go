package build

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
)

// TestRouterMatchesRowAtATime checks that the router sends every row to
// the consumer the row-at-a-time partitioner did, in the same order, with
// the same values and row kinds: for fixed-width, string, binary, boolean
// and nested columns, with and without NULLs, sliced records, several key
// columns and 1 to 5 consumers.
func TestRouterMatchesRowAtATime(t *testing.T) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(7))
	const n = 1000
	i64 := array.NewInt64Builder(mem)
	i32 := array.NewInt32Builder(mem)
	f64 := array.NewFloat64Builder(mem)
	str := array.NewStringBuilder(mem)
	bl := array.NewBooleanBuilder(mem)
	ts := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Millisecond})
	lst := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int64)
	long := array.NewStringBuilder(mem) // no NULLs, 0 to 20 bytes
	bin := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	kinds := make([]changelog.RowKind, n)
	for i := 0; i < n; i++ {
		i64.Append(r.Int63n(50))
		if r.Intn(5) == 0 {
			i32.AppendNull()
			str.AppendNull()
			f64.AppendNull()
		} else {
			i32.Append(int32(r.Intn(1 << 20)))
			str.Append(string(rune('a' + r.Intn(26))))
			f64.Append(r.Float64())
		}
		bl.Append(r.Intn(2) == 0)
		ts.Append(arrow.Timestamp(r.Int63()))
		lst.Append(true)
		lst.ValueBuilder().(*array.Int64Builder).Append(int64(i))
		long.Append("abcdefghijklmnopqrstuvwxyz"[:r.Intn(21)])
		bin.Append([]byte{byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7}[:r.Intn(10)])
		kinds[i] = changelog.RowKind(r.Intn(4))
	}
	cols := []arrow.Array{i64.NewArray(), i32.NewArray(), f64.NewArray(), str.NewArray(), bl.NewArray(), ts.NewArray(), lst.NewArray(), long.NewArray(), bin.NewArray()}
	var fields []arrow.Field
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: "c", Type: c.DataType(), Nullable: true})
	}
	full := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
	batches := []vectorized.Batch{
		{Rec: full},
		{Rec: full, Kinds: kinds},
		{Rec: full.NewSlice(13, 900), Kinds: kinds[13:900]},
		{Rec: full.NewSlice(5, 6)},
	}
	for _, keys := range [][]int{{0}, {1}, {3}, {5}, {7}, {0, 3}, {2, 6}, {8, 0}} {
		for P := 1; P <= 5; P++ {
			for bi, b := range batches {
				want := make([]vectorized.Batch, P)
				if _, _, err := rowsPartition(b, keys, P, nil, nil, want); err != nil {
					t.Fatal(err)
				}
				got := make([]vectorized.Batch, P)
				rt := newRouter(keys, P)
				if j := rt.route(b.Rec); j >= 0 {
					got[j] = b
				} else if err := rt.split(b, got); err != nil {
					t.Fatal(err)
				}
				for j := range want {
					if got[j].NumRows() != want[j].NumRows() {
						t.Fatalf("keys %v, P %d, batch %d: consumer %d gets %d rows, want %d", keys, P, bi, j, got[j].NumRows(), want[j].NumRows())
					}
					if want[j].NumRows() == 0 {
						continue
					}
					if !array.RecordEqual(got[j].Rec, want[j].Rec) {
						t.Fatalf("keys %v, P %d, batch %d: consumer %d gets\n%v\nwant\n%v", keys, P, bi, j, got[j].Rec, want[j].Rec)
					}
					if len(got[j].Kinds) != len(want[j].Kinds) {
						t.Fatalf("keys %v, P %d, batch %d: consumer %d gets %d row kinds, want %d", keys, P, bi, j, len(got[j].Kinds), len(want[j].Kinds))
					}
					for k := range want[j].Kinds {
						if got[j].Kinds[k] != want[j].Kinds[k] {
							t.Fatalf("keys %v, P %d, batch %d: consumer %d row %d is %v, want %v", keys, P, bi, j, k, got[j].Kinds[k], want[j].Kinds[k])
						}
					}
				}
			}
		}
	}
}
