package build

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// exchangeBatch returns a batch like the bids the hot-key Nexmark
// aggregation partitions: (auction BIGINT, price BIGINT), n rows, the
// auctions drawn from a few thousand values; with a STRING column too when
// strs.
func exchangeBatch(n int, strs bool) vectorized.Batch {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewSource(42))
	auction := array.NewInt64Builder(mem)
	price := array.NewInt64Builder(mem)
	day := array.NewStringBuilder(mem)
	for i := 0; i < n; i++ {
		auction.Append(1000 + r.Int63n(5000))
		price.Append(r.Int63n(100000))
		day.Append(fmt.Sprintf("2026-11-%02d", 1+r.Intn(28)))
	}
	fields := []arrow.Field{{Name: "auction", Type: arrow.PrimitiveTypes.Int64}, {Name: "price", Type: arrow.PrimitiveTypes.Int64}}
	cols := []arrow.Array{auction.NewArray(), price.NewArray()}
	if strs {
		fields = append(fields, arrow.Field{Name: "day", Type: arrow.BinaryTypes.String})
		cols = append(cols, day.NewArray())
	}
	return vectorized.Batch{Rec: array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))}
}

// BenchmarkExchangePartition measures what a hash exchange's producer does
// with a batch of 4096 rows for P consumers: route every row and build the
// consumers' batches. "rows" is the row-at-a-time hashing, per-row
// appends and per-consumer ops.Gather the partitioner used before.
//
//	go test ./vectorized/build -run XXX -bench ExchangePartition
func BenchmarkExchangePartition(b *testing.B) {
	for _, strs := range []bool{false, true} {
		batch := exchangeBatch(vectorized.DefaultBatchSize, strs)
		name := "bigint"
		if strs {
			name = "bigint+string"
		}
		for _, P := range []int{2, 4} {
			b.Run(fmt.Sprintf("%s/P%d/columns", name, P), func(b *testing.B) {
				r := newRouter([]int{0}, P)
				parts := make([]vectorized.Batch, P)
				for b.Loop() {
					if r.route(batch.Rec) >= 0 {
						continue
					}
					if err := r.split(batch, parts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(batch.NumRows())/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
			b.Run(fmt.Sprintf("%s/P%d/rows", name, P), func(b *testing.B) {
				var hashes []uint64
				var idx [][]int32
				parts := make([]vectorized.Batch, P)
				for b.Loop() {
					var err error
					hashes, idx, err = rowsPartition(batch, []int{0}, P, hashes, idx, parts)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(batch.NumRows())/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		}
	}
}

// rowsPartition is the partitioner as it was before the router, with the
// hash as it was (refHashArray): the reference of the benchmark and of
// TestRouterMatchesRowAtATime.
func rowsPartition(b vectorized.Batch, keys []int, P int, hashes []uint64, idx [][]int32, parts []vectorized.Batch) ([]uint64, [][]int32, error) {
	n := b.NumRows()
	if cap(hashes) < n {
		hashes = make([]uint64, n)
	}
	hs := hashes[:n]
	for i := range hs {
		hs[i] = refSeed
	}
	for _, k := range keys {
		refHashArray(b.Rec.Column(k), hs)
	}
	if idx == nil {
		idx = make([][]int32, P)
	}
	for j := range idx {
		idx[j] = idx[j][:0]
	}
	for i, x := range hs {
		j := vectorized.SubtaskOf(vectorized.KeyGroup(x, vectorized.DefaultMaxParallelism), vectorized.DefaultMaxParallelism, P)
		idx[j] = append(idx[j], int32(i))
	}
	for j, ix := range idx {
		parts[j] = vectorized.Batch{}
		if len(ix) == 0 {
			continue
		}
		part := b
		if len(ix) < n {
			rec, err := ops.Gather(b.Rec, ix, nil)
			if err != nil {
				return hashes, idx, err
			}
			part = vectorized.Batch{Rec: rec}
			if b.Kinds != nil {
				part.Kinds = make([]changelog.RowKind, len(ix))
				for k, i := range ix {
					part.Kinds[k] = b.Kinds[i]
				}
			}
		}
		parts[j] = part
	}
	return hashes, idx, nil
}
