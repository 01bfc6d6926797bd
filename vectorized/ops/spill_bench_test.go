package ops

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// BenchmarkSpillAgg1M aggregates 1 M distinct BIGINT keys with no budget
// and with a 16 MB budget (spilling).
func BenchmarkSpillAgg1M(b *testing.B) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	as, _ := types.ArrowSchema(in)
	var batches []vectorized.Batch
	for lo := 0; lo < 1_000_000; lo += 4096 {
		kb := array.NewInt64Builder(vectorized.Mem)
		vb := array.NewInt64Builder(vectorized.Mem)
		for i := lo; i < min(lo+4096, 1_000_000); i++ {
			kb.Append(int64(i))
			vb.Append(int64(i % 100))
		}
		n := int64(kb.Len())
		batches = append(batches, vectorized.Batch{Rec: array.NewRecordBatch(as, []arrow.Array{kb.NewArray(), vb.NewArray()}, n)})
	}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false)}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.BigIntT}}
	out, _ := types.ArrowSchema(types.Schema{in[0], {Name: "c", Type: calls[0].T}, {Name: "s", Type: calls[1].T}})
	for _, budget := range []int64{0, 16 << 20} {
		b.Run(map[int64]string{0: "unlimited", 16 << 20: "16MB"}[budget], func(b *testing.B) {
			for b.Loop() {
				h := NewHashAggregate([]int{0}, calls, in, out)
				h.SetSpill(SpillConfig{Budget: budget})
				ctx := context.Background()
				if err := h.Open(ctx); err != nil {
					b.Fatal(err)
				}
				c := &collector{}
				for _, bt := range batches {
					if err := h.Process(ctx, bt, c); err != nil {
						b.Fatal(err)
					}
				}
				if err := h.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c); err != nil {
					b.Fatal(err)
				}
				h.Close()
			}
		})
	}
}
