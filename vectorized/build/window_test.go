package build

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// TestWindowAggregateLateRowsInStats runs VALUES (two batches, one after
// the other) → WatermarkAssigner(ts) → WindowAggregate(TUMBLE 10 ms):
// the second batch's row at 5 ms arrives after the watermark reached
// 12 ms, so it is dropped and counted in the operator's stats.
func TestWindowAggregateLateRowsInStats(t *testing.T) {
	ts := types.Type{Kind: types.Timestamp, Precision: 3}
	in := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "ts", Type: ts}}
	ms := func(v int64) int64 { return v * 1000 } // micros
	v1 := &physical.Values{Rows: [][]any{{int64(1), ms(1)}, {int64(1), ms(12)}}, Out: in}
	v2 := &physical.Values{Rows: [][]any{{int64(1), ms(5)}, {int64(2), ms(15)}}, Out: in}
	u := &physical.StreamUnion{Inputs: []physical.Node{v1, v2}, Out: in}
	wa := &physical.WatermarkAssigner{Input: u, Rowtime: 1, Expr: &logical.ColumnRef{Index: 1, Name: "ts", T: ts}}
	wcols := logical.WindowColumns(ts)
	cnt := types.BigIntT.WithNullable(false)
	agg := &physical.WindowAggregate{
		Input: wa, GroupKeys: []int{0},
		Aggs:   []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt, Alias: "c"}},
		Window: logical.WindowSpec{Kind: logical.Tumble, TimeCol: 1, TimeName: "ts", Size: 10},
		Out:    types.Schema{in[0], {Name: "c", Type: cnt}, wcols[0], wcols[1]},
	}
	st := NewStats()
	batches, err := Collect(context.Background(), agg, &Env{Stats: st, Functions: function.Builtins()})
	require.NoError(t, err)
	var rows [][]any
	for _, b := range batches {
		rows = append(rows, types.RecordRows(b.Rec, agg.Out)...)
	}
	require.Equal(t, [][]any{
		{int64(1), int64(1), ms(0), ms(10)},
		{int64(1), int64(1), ms(10), ms(20)}, {int64(2), int64(1), ms(10), ms(20)},
	}, rows)
	require.Equal(t, int64(1), st.Node(agg).Op.LateRows)
	require.Contains(t, st.Node(agg).String(), "late rows dropped=1")
}
