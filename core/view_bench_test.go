package core

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/tablerun/tablerun/core/changelog"
)

// groupByChanges returns the changelog of SELECT k, SUM(v) GROUP BY k
// over rows with keys uniform over keys distinct values, as batches of
// batchRows input rows: +I for a new key, -U/+U after it.
func groupByChanges(rows, keys, batchRows int) []ChangeBatch {
	rng := rand.New(rand.NewPCG(1, 2))
	sums := make([]int64, keys+1)
	var out []ChangeBatch
	var b ChangeBatch
	for i := 0; i < rows; i++ {
		k := int32(1 + rng.IntN(keys))
		v := int64(1 + rng.IntN(1000))
		if s := sums[k]; s != 0 {
			b.Kinds = append(b.Kinds, changelog.UpdateBefore)
			b.Rows = append(b.Rows, Row{k, s})
			b.Kinds = append(b.Kinds, changelog.UpdateAfter)
		} else {
			b.Kinds = append(b.Kinds, changelog.Insert)
		}
		sums[k] += v
		b.Rows = append(b.Rows, Row{k, sums[k]})
		if (i+1)%batchRows == 0 {
			out = append(out, b)
			b = ChangeBatch{}
		}
	}
	if b.Len() > 0 {
		out = append(out, b)
	}
	return out
}

// BenchmarkViewApply applies the changelog of a GROUP BY over 1 M keys
// (4 M input rows: every key inserted, then updated about 3 times) to a
// View a batch at a time, as the table mode, Materialize and the kernel
// do. It reports changes/s and the live heap the view holds at the end.
func BenchmarkViewApply(b *testing.B) {
	batches := groupByChanges(4_000_000, 1_000_000, 4096)
	n := 0
	for _, cb := range batches {
		n += cb.Len()
	}
	b.ResetTimer()
	var heap uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		v := NewView(0)
		for _, cb := range batches {
			v.ApplyBatch(cb)
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		if v.Len() != 1_000_000 && v.Len() < 980_000 {
			b.Fatalf("view holds %d rows", v.Len())
		}
		runtime.KeepAlive(v)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "changes/s")
	b.ReportMetric(float64(heap)/(1<<20), "view-MB")
}
