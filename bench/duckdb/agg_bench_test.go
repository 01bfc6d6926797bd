package duckdb

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// BenchmarkAggGroupBySum is the kernel-level peer of
// BenchmarkDuckDBGroupBySum: tablerun's vectorized/agg group table and SUM
// accumulator over the same rows, in BatchSize-row Arrow batches, ending
// with the output columns (keys and sums) built. It measures the GROUP BY
// hot path alone, without planning, operators or result delivery.
func BenchmarkAggGroupBySum(b *testing.B) {
	for _, keys := range KeyCounts {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			recs := groupByRecords(b, keys)
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				aggGroupBySum(b, recs)
			}
			b.ReportMetric(float64(Rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}

// aggGroupBySum runs SELECT k, SUM(v) … GROUP BY k over recs with the
// vectorized/agg kernels and builds the output columns.
func aggGroupBySum(tb testing.TB, recs []arrow.RecordBatch) {
	mem := memory.DefaultAllocator
	ids := make([]uint32, BatchSize)
	tbl, err := agg.NewGroupTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
	if err != nil {
		tb.Fatal(err)
	}
	sum, err := agg.NewAccumulator(agg.FuncSum, []arrow.DataType{arrow.PrimitiveTypes.Float64}, nil, false)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range recs {
		n := int(r.NumRows())
		if err := tbl.Insert([]arrow.Array{r.Column(0)}, n, ids); err != nil {
			tb.Fatal(err)
		}
		sum.Resize(tbl.Len())
		if err := sum.Update(ids[:n], []arrow.Array{r.Column(1)}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	out, err := sum.Evaluate(mem)
	if err != nil {
		tb.Fatal(err)
	}
	out.Release()
	for _, k := range tbl.Keys(mem) {
		k.Release()
	}
}

// BenchmarkSideBySideGroupBySum alternates DuckDB (threads=1) and the
// vectorized/agg kernel on the same rows within every iteration, so both
// see the same machine load, and reports each one's rows/s and their
// ratio (agg-vs-duckdb > 1 means faster than DuckDB). On a shared, noisy
// machine this ratio is the number to quote.
func BenchmarkSideBySideGroupBySum(b *testing.B) {
	for _, keys := range KeyCounts {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			in := groupByData(b, keys)
			db := openDuckDB(b)
			loadTable(b, db, in)
			recs := groupByRecords(b, keys)
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			var duck, kernel time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				consumeGroupBySum(b, db, groupBySumQuery)
				t1 := time.Now()
				aggGroupBySum(b, recs)
				kernel += time.Since(t1)
				duck += t1.Sub(t0)
			}
			n := float64(Rows) * float64(b.N)
			b.ReportMetric(n/duck.Seconds(), "duckdb-rows/s")
			b.ReportMetric(n/kernel.Seconds(), "agg-rows/s")
			b.ReportMetric(duck.Seconds()/kernel.Seconds(), "agg-vs-duckdb")
		})
	}
}
