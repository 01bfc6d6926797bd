package ops

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// step is one input of a mini-batch test: rows with kinds, or the end of
// a bundle.
type step struct {
	rows  [][]any
	kinds []changelog.RowKind
	end   bool
}

func runBundles(t *testing.T, op vectorized.Operator, in, out types.Schema, steps []step) []string {
	t.Helper()
	ctx := context.Background()
	c := &collector{}
	require.NoError(t, op.Open(ctx))
	for _, s := range steps {
		if s.end {
			require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfBundle}, c))
			continue
		}
		b := split(t, in, s.rows, 0)[0]
		b.Kinds = s.kinds
		require.NoError(t, op.Process(ctx, b, c))
	}
	require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	require.NoError(t, op.Close())
	var got []string
	for _, b := range c.batches {
		for i, r := range types.RecordRows(b.Rec, out) {
			got = append(got, fmt.Sprintf("%s%v", b.Kind(i), r))
		}
	}
	return got
}

func TestMiniBatchGroupAggregateNetChanges(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.BigIntT}}
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.BigIntT}}
	I, D, UB, UA := changelog.Insert, changelog.Delete, changelog.UpdateBefore, changelog.UpdateAfter
	tests := []struct {
		name    string
		retract bool
		steps   []step
		want    []string
	}{
		{"one change per key and bundle", false, []step{
			{rows: [][]any{{"a", int64(1)}, {"b", int64(2)}, {"a", int64(3)}}},
			{rows: [][]any{{"a", int64(4)}}},
			{end: true},
			{rows: [][]any{{"a", int64(5)}, {"c", int64(1)}}},
		}, []string{"+I[a 3 8]", "+I[b 1 2]", "-U[a 3 8]", "+U[a 4 13]", "+I[c 1 1]"}},
		{"retractions: delete, unchanged, re-insert", true, []step{
			{rows: [][]any{{"a", int64(1)}, {"b", int64(2)}, {"c", int64(5)}}},
			{end: true},
			{rows: [][]any{{"a", int64(1)}, {"b", int64(2)}, {"b", int64(2)}, {"c", int64(5)}, {"c", int64(5)}}, kinds: []changelog.RowKind{D, UB, UA, D, I}},
			{end: true},
			{rows: [][]any{{"a", int64(7)}, {"d", int64(1)}, {"d", int64(1)}}, kinds: []changelog.RowKind{I, I, D}},
		}, []string{"+I[a 1 1]", "+I[b 1 2]", "+I[c 1 5]", "-D[a 1 1]", "+I[a 1 7]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := NewMiniBatchGroupAggregate([]int{0}, calls, in, mustArrow(t, out), GroupAggregateOptions{Retract: tt.retract}, 0)
			require.Equal(t, tt.want, runBundles(t, op, in, out, tt.steps))
		})
	}
	// Two phases give the same net changes for insert-only input.
	local := types.Schema{{Name: "k", Type: types.StringT}, {Name: "count1$0", Type: types.BigIntT.WithNullable(false)}, {Name: "sum$1", Type: types.BigIntT}}
	lo := NewLocalGroupAggregate([]int{0}, calls, in, mustArrow(t, local), 0)
	gl := NewGlobalGroupAggregate([]int{0}, calls, [][]int{{1}, {2}}, in, mustArrow(t, local), mustArrow(t, out), GroupAggregateOptions{}, 0)
	got := runBundles(t, &testChain{lo, gl}, in, out, tests[0].steps)
	require.Equal(t, tests[0].want, got)
}

// testChain runs a then b.
type testChain struct{ a, b vectorized.Operator }

func (c *testChain) Open(ctx context.Context) error {
	if err := c.a.Open(ctx); err != nil {
		return err
	}
	return c.b.Open(ctx)
}

func (c *testChain) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	return c.a.Process(ctx, b, &chainCollector{op: c.b, next: out})
}

func (c *testChain) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return c.a.OnMarker(ctx, m, &chainCollector{op: c.b, next: out})
}

func (c *testChain) Close() error { _ = c.a.Close(); return c.b.Close() }

func TestMiniBatchAssigner(t *testing.T) {
	in := types.Schema{{Name: "x", Type: types.BigIntT}}
	rows := func(n int) [][]any {
		r := make([][]any, n)
		for i := range r {
			r[i] = []any{int64(i)}
		}
		return r
	}
	tests := []struct {
		name     string
		interval time.Duration
		size     int64
		batches  []int
		tick     time.Duration
		bundles  int
	}{
		{"size", time.Hour, 5, []int{3, 3, 3, 1, 6}, 0, 2},
		{"latency", time.Second, 0, []int{1, 1, 1, 1}, 600 * time.Millisecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			a := NewMiniBatchAssigner(tt.interval, tt.size)
			now := time.Unix(0, 0)
			a.now = func() time.Time { return now }
			c := &collector{}
			require.NoError(t, a.Open(ctx))
			for _, n := range tt.batches {
				require.NoError(t, a.Process(ctx, split(t, in, rows(n), 0)[0], c))
				now = now.Add(tt.tick)
			}
			require.Len(t, c.markers, tt.bundles)
			require.Len(t, c.batches, len(tt.batches))
		})
	}
}
