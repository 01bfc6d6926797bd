package build

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
)

// batchFactory serves prebuilt batches, zero-copy.
type batchFactory struct{ batches []vectorized.Batch }

func (f *batchFactory) Identifier() string        { return "batches" }
func (f *batchFactory) RequiredOptions() []string { return nil }
func (f *batchFactory) OptionalOptions() []string { return nil }
func (f *batchFactory) CreateSource(*connectors.Context, connectors.SourceSpec) (vectorized.Source, error) {
	return &batchSource{f.batches}, nil
}
func (f *batchFactory) CreateSink(*connectors.Context, connectors.SinkSpec) (connectors.Sink, error) {
	return nil, fmt.Errorf("batches: no sink")
}

type batchSource struct{ batches []vectorized.Batch }

func (s *batchSource) Open(context.Context) error { return nil }
func (s *batchSource) Run(ctx context.Context, out vectorized.Collector) error {
	for _, b := range s.batches {
		if err := out.Emit(ctx, b); err != nil {
			return err
		}
	}
	return nil
}
func (s *batchSource) Close() error { return nil }

// BenchmarkRunGroupBySum is SELECT k, SUM(v) FROM t GROUP BY k over 10 M
// in-memory rows, through the driver (scan → HashAggregate).
func BenchmarkRunGroupBySum(b *testing.B) {
	const rows = 10_000_000
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.DoubleT}}
	as := types.MustArrowSchema(in)
	for _, card := range []int{1_000, 1_000_000} {
		var batches []vectorized.Batch
		for lo := 0; lo < rows; lo += vectorized.DefaultBatchSize {
			n := min(vectorized.DefaultBatchSize, rows-lo)
			ks := make([]int64, n)
			vs := make([]float64, n)
			for i := range ks {
				ks[i] = int64(uint64(lo+i) * 2654435761 % uint64(card))
				vs[i] = float64(i%1000) / 10
			}
			kb := array.NewInt64Builder(vectorized.Mem)
			kb.AppendValues(ks, nil)
			vb := array.NewFloat64Builder(vectorized.Mem)
			vb.AppendValues(vs, nil)
			batches = append(batches, vectorized.Batch{Rec: array.NewRecordBatch(as, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(n))})
		}
		reg := connectors.NewRegistry()
		reg.Register(&batchFactory{batches: batches})
		tab := &catalog.ResolvedTable{Table: &catalog.Table{
			Columns: []catalog.Column{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.DoubleT}},
			Options: map[string]string{"connector": "batches"}}}
		plan := &physical.HashAggregate{
			Input:     &physical.TableSourceScan{Table: tab, Out: in},
			GroupKeys: []int{0},
			Aggs:      []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1, T: types.DoubleT, Alias: "s"}},
			Out:       types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.DoubleT}},
		}
		env := &Env{Connectors: reg}
		b.Run(fmt.Sprintf("keys=%d", card), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				err := Run(context.Background(), plan, env, func(bt vectorized.Batch) error {
					n += bt.NumRows()
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if n != card {
					b.Fatalf("%d groups, want %d", n, card)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
