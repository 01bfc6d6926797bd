package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// BenchmarkGroupAggregate is the streaming SELECT k, COUNT(*), SUM(v)
// GROUP BY k over 2 M insert-only rows: every row emits its change (+I or
// -U/+U), so the output is about twice the input.
func BenchmarkGroupAggregate(b *testing.B) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.DoubleT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.DoubleT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.DoubleT}}
	as, err := types.ArrowSchema(out)
	if err != nil {
		b.Fatal(err)
	}
	const rows = 2_000_000
	for _, card := range []int{10, 1_000, 1_000_000} {
		batches := benchBatches(rows, card)
		ctx := context.Background()
		b.Run(fmt.Sprintf("keys=%d", card), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				op := NewGroupAggregate([]int{0}, calls, in, as, GroupAggregateOptions{})
				d := &discard{}
				if err := op.Open(ctx); err != nil {
					b.Fatal(err)
				}
				for _, bt := range batches {
					if err := op.Process(ctx, bt, d); err != nil {
						b.Fatal(err)
					}
				}
				_ = op.Close()
				if d.rows != 2*rows-card {
					b.Fatalf("%d changes, want %d", d.rows, 2*rows-card)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
	_ = vectorized.DefaultBatchSize
}
