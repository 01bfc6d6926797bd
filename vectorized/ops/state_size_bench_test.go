package ops

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// groupAggBIGINT is SELECT k, COUNT(*), SUM(v) GROUP BY k over BIGINT k and
// BIGINT v (the performance target's shape).
func groupAggBIGINT(ttl time.Duration) (*GroupAggregate, error) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.BigIntT}}
	as, err := types.ArrowSchema(out)
	if err != nil {
		return nil, err
	}
	return NewGroupAggregate([]int{0}, calls, in, as, GroupAggregateOptions{StateTTL: ttl}), nil
}

// bigintBatch returns rows k = first..first+n-1 (each key once), v = k.
func bigintBatch(first, n int64) vectorized.Batch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	kb := array.NewInt64Builder(vectorized.Mem)
	vb := array.NewInt64Builder(vectorized.Mem)
	for k := first; k < first+n; k++ {
		kb.Append(k)
		vb.Append(k)
	}
	return vectorized.Batch{Rec: array.NewRecordBatch(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, n)}
}

// BenchmarkGroupAggregateStateBytesPerKey measures the memory a streaming
// GROUP BY keeps per key (BIGINT key, COUNT, SUM): the live heap after 1 M
// distinct keys, less the heap before, per key (target ≤ 100 bytes).
func BenchmarkGroupAggregateStateBytesPerKey(b *testing.B) {
	const keys = 1_000_000
	ctx := context.Background()
	for b.Loop() {
		before := heapInUse()
		op, err := groupAggBIGINT(0)
		if err != nil {
			b.Fatal(err)
		}
		if err := op.Open(ctx); err != nil {
			b.Fatal(err)
		}
		for k := int64(0); k < keys; k += 4096 {
			if err := op.Process(ctx, bigintBatch(k, min(4096, keys-k)), &discard{}); err != nil {
				b.Fatal(err)
			}
		}
		after := heapInUse()
		b.ReportMetric(float64(after-before)/keys, "bytes/key")
		runtime.KeepAlive(op)
		_ = op.Close()
	}
}

// BenchmarkGroupAggregateTTLFlat feeds 8 M rows of ever-new keys (each key
// once) with table.exec.state.ttl = 100 ms of a clock that advances 1 ms
// per 4,096-row batch: the live groups and the heap must stay flat. It
// reports the heap after each quarter of the input.
func BenchmarkGroupAggregateTTLFlat(b *testing.B) {
	const rows = 8_000_000
	ctx := context.Background()
	for b.Loop() {
		op, err := groupAggBIGINT(100 * time.Millisecond)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Unix(0, 0)
		op.SetClock(func() time.Time { return now })
		if err := op.Open(ctx); err != nil {
			b.Fatal(err)
		}
		var heaps [4]uint64
		maxLive := 0
		for k := int64(0); k < rows; k += 4096 {
			if err := op.Process(ctx, bigintBatch(k, 4096), &discard{}); err != nil {
				b.Fatal(err)
			}
			now = now.Add(time.Millisecond)
			maxLive = max(maxLive, op.LiveGroups())
			if q := int((k + 4096) * 4 / rows); (k+4096)%(rows/4) < 4096 && q >= 1 && q <= 4 {
				heaps[q-1] = heapInUse()
			}
		}
		for i, h := range heaps {
			b.ReportMetric(float64(h)/(1<<20), []string{"MiB-heap-at-25%", "MiB-heap-at-50%", "MiB-heap-at-75%", "MiB-heap-at-100%"}[i])
		}
		b.ReportMetric(float64(maxLive), "max-live-groups")
		_ = op.Close()
	}
}
