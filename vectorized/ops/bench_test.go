package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

type discard struct{ rows int }

func (d *discard) Emit(_ context.Context, b vectorized.Batch) error {
	d.rows += b.NumRows()
	return nil
}
func (d *discard) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// benchBatches builds n rows of (k BIGINT, v DOUBLE) with card distinct
// keys in batches of vectorized.DefaultBatchSize.
func benchBatches(n, card int) []vectorized.Batch {
	r := rand.New(rand.NewPCG(1, uint64(card)))
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	var out []vectorized.Batch
	for lo := 0; lo < n; lo += batchSize {
		m := min(batchSize, n-lo)
		ks := make([]int64, m)
		vs := make([]float64, m)
		for i := range ks {
			ks[i] = int64(uint64(lo+i) * 2654435761 % uint64(card)) // every key occurs
			vs[i] = float64(r.IntN(1000)) / 10
		}
		kb := array.NewInt64Builder(vectorized.Mem)
		kb.AppendValues(ks, nil)
		vb := array.NewFloat64Builder(vectorized.Mem)
		vb.AppendValues(vs, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(m))
		out = append(out, vectorized.Batch{Rec: rec})
	}
	return out
}

// BenchmarkHashAggregate is SELECT k, SUM(v) GROUP BY k over 10 M rows
// through the operator; BenchmarkAggDirect is the same work calling agg
// directly, to show the operator's overhead.
func BenchmarkHashAggregate(b *testing.B) {
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.DoubleT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.DoubleT}}
	calls := []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1, T: types.DoubleT}}
	as, err := types.ArrowSchema(out)
	if err != nil {
		b.Fatal(err)
	}
	const rows = 10_000_000
	for _, card := range []int{1_000, 1_000_000} {
		batches := benchBatches(rows, card)
		ctx := context.Background()
		b.Run(fmt.Sprintf("operator/keys=%d", card), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				op := NewHashAggregate([]int{0}, calls, in, as)
				d := &discard{}
				if err := op.Open(ctx); err != nil {
					b.Fatal(err)
				}
				for _, bt := range batches {
					if err := op.Process(ctx, bt, d); err != nil {
						b.Fatal(err)
					}
				}
				if err := op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, d); err != nil {
					b.Fatal(err)
				}
				_ = op.Close()
				if d.rows != card {
					b.Fatalf("%d groups, want %d", d.rows, card)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
		b.Run(fmt.Sprintf("agg-direct/keys=%d", card), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, _ := agg.NewGroupTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
				acc, _ := agg.NewAccumulator("SUM", []arrow.DataType{arrow.PrimitiveTypes.Float64}, nil, false)
				ids := make([]uint32, batchSize)
				keys := make([]arrow.Array, 1)
				args := make([]arrow.Array, 1)
				for _, bt := range batches {
					n := bt.NumRows()
					keys[0] = bt.Rec.Column(0)
					if err := t.Insert(keys, n, ids); err != nil {
						b.Fatal(err)
					}
					acc.Resize(t.Len())
					args[0] = bt.Rec.Column(1)
					if err := acc.Update(ids[:n], args, nil); err != nil {
						b.Fatal(err)
					}
				}
				t.Keys(vectorized.Mem)
				if _, err := acc.Evaluate(vectorized.Mem); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}

// BenchmarkSort orders 1 M rows by a BIGINT key.
func BenchmarkSort(b *testing.B) {
	batches := benchBatches(1_000_000, 1_000_000)
	ctx := context.Background()
	schema := batches[0].Rec.Schema()
	for _, fetch := range []int64{-1, 10} {
		b.Run(fmt.Sprintf("fetch=%d", fetch), func(b *testing.B) {
			for b.Loop() {
				op := NewSortLimit([]logical.SortKey{{Index: 0}}, schema, 0, fetch)
				d := &discard{}
				_ = op.Open(ctx)
				for _, bt := range batches {
					if err := op.Process(ctx, bt, d); err != nil {
						b.Fatal(err)
					}
				}
				if err := op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, d); err != nil {
					b.Fatal(err)
				}
				_ = op.Close()
			}
		})
	}
}

// BenchmarkHashJoin probes 1 M rows against 100 K build rows on a BIGINT
// key (every probe row matches once).
func BenchmarkHashJoin(b *testing.B) {
	probe := benchBatches(1_000_000, 100_000)
	build := benchBatches(100_000, 100_000)
	ctx := context.Background()
	s := probe[0].Rec.Schema()
	out := arrow.NewSchema(append(append([]arrow.Field{}, s.Fields()...), s.Fields()...), nil)
	for _, kind := range []logical.JoinKind{logical.InnerJoin, logical.SemiJoin} {
		b.Run(kind.String(), func(b *testing.B) {
			o := out
			if kind == logical.SemiJoin {
				o = s
			}
			for b.Loop() {
				j := NewHashJoin(JoinSpec{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, Left: s, Right: s, Out: o})
				d := &discard{}
				if err := j.Open(ctx); err != nil {
					b.Fatal(err)
				}
				for _, bt := range build {
					_ = j.ProcessBuild(ctx, bt)
				}
				if err := j.FinishBuild(ctx); err != nil {
					b.Fatal(err)
				}
				for _, bt := range probe {
					if err := j.Process(ctx, bt, d); err != nil {
						b.Fatal(err)
					}
				}
				_ = j.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, d)
				_ = j.Close()
				if d.rows != 1_000_000 {
					b.Fatalf("%d rows", d.rows)
				}
			}
			b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
