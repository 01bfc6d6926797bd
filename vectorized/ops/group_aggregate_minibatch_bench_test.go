package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// chainCollector feeds the output of one operator into the next.
type chainCollector struct {
	op   vectorized.Operator
	next vectorized.Collector
}

func (c *chainCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	return c.op.Process(ctx, b, c.next)
}

func (c *chainCollector) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return c.op.OnMarker(ctx, m, c.next)
}

// zipfBatches builds n rows of (k BIGINT, v BIGINT) whose keys follow a
// Zipf distribution over card keys (hot keys, as Nexmark's skew).
func zipfBatches(n, card int) []vectorized.Batch {
	r := rand.New(rand.NewPCG(7, uint64(card)))
	z := rand.NewZipf(r, 1.1, 1, uint64(card-1))
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var out []vectorized.Batch
	for lo := 0; lo < n; lo += vectorized.DefaultBatchSize {
		m := min(vectorized.DefaultBatchSize, n-lo)
		ks := make([]int64, m)
		vs := make([]int64, m)
		for i := range ks {
			ks[i] = int64(z.Uint64())
			vs[i] = int64(r.IntN(1000))
		}
		kb := array.NewInt64Builder(vectorized.Mem)
		kb.AppendValues(ks, nil)
		vb := array.NewInt64Builder(vectorized.Mem)
		vb.AppendValues(vs, nil)
		out = append(out, vectorized.Batch{Rec: array.NewRecordBatch(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(m))})
	}
	return out
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMiniBatchGroupAggregate is the streaming SELECT k, COUNT(*),
// SUM(v) GROUP BY k over 10 M insert-only rows with 1,000 Zipf-skewed
// keys: per record (no mini-batch), mini-batch one phase and two phases
// (local → global) with bundles of 4,096 and 50,000 rows. It reports
// events/s (wall) and events/s per core (CPU time of the process).
func BenchmarkMiniBatchGroupAggregate(b *testing.B) {
	const rows, card = 10_000_000, 1_000
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	local := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "count1$0", Type: types.BigIntT.WithNullable(false)}, {Name: "sum$1", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false)}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.BigIntT}}
	as, err := types.ArrowSchema(out)
	if err != nil {
		b.Fatal(err)
	}
	ls, err := types.ArrowSchema(local)
	if err != nil {
		b.Fatal(err)
	}
	batches := zipfBatches(rows, card)
	type config struct {
		name string
		ops  func() []vectorized.Operator
	}
	configs := []config{{"per-record", func() []vectorized.Operator {
		return []vectorized.Operator{NewGroupAggregate([]int{0}, calls, in, as, GroupAggregateOptions{})}
	}}}
	for _, size := range []int64{4096, 50_000} {
		// one-phase: what the builder runs for a mini-batch GroupAggregate
		// over an insert-only input (local and global fused, no Exchange);
		// two-phase: LocalGroupAggregate → Exchange (pass-through at
		// parallelism 1) → GlobalGroupAggregate; stepper: the mini-batch
		// path for updating inputs (per-row Stepper over the bundle, net
		// changes only), here over the same insert-only rows.
		configs = append(configs, config{fmt.Sprintf("minibatch-%d/one-phase", size), func() []vectorized.Operator {
			return []vectorized.Operator{NewMiniBatchAssigner(time.Second, size), NewLocalGroupAggregate([]int{0}, calls, in, ls, size),
				NewGlobalGroupAggregate([]int{0}, calls, [][]int{{1}, {2}}, in, ls, as, GroupAggregateOptions{}, 0)}
		}}, config{fmt.Sprintf("minibatch-%d/two-phase", size), func() []vectorized.Operator {
			return []vectorized.Operator{NewMiniBatchAssigner(time.Second, size), NewLocalGroupAggregate([]int{0}, calls, in, ls, 0), Forward{},
				NewGlobalGroupAggregate([]int{0}, calls, [][]int{{1}, {2}}, in, ls, as, GroupAggregateOptions{}, 0)}
		}}, config{fmt.Sprintf("minibatch-%d/stepper", size), func() []vectorized.Operator {
			return []vectorized.Operator{NewMiniBatchAssigner(time.Second, size), NewMiniBatchGroupAggregate([]int{0}, calls, in, as, GroupAggregateOptions{}, size)}
		}})
	}
	ctx := context.Background()
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			var changes int
			cpu0 := cpuTime()
			for b.Loop() {
				chain := c.ops()
				d := &discard{}
				var next vectorized.Collector = d
				for i := len(chain) - 1; i >= 0; i-- {
					if err := chain[i].Open(ctx); err != nil {
						b.Fatal(err)
					}
					next = &chainCollector{op: chain[i], next: next}
				}
				for _, bt := range batches {
					if err := next.Emit(ctx, bt); err != nil {
						b.Fatal(err)
					}
				}
				if err := next.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}); err != nil {
					b.Fatal(err)
				}
				for _, op := range chain {
					_ = op.Close()
				}
				changes = d.rows
			}
			cpu := (cpuTime() - cpu0).Seconds()
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
			if cpu > 0 {
				b.ReportMetric(float64(rows)*float64(b.N)/cpu/1e6, "Mevents/s/core")
			}
			b.ReportMetric(float64(changes), "changes")
		})
	}
}
