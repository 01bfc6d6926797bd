package build

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func TestRunStats(t *testing.T) {
	cnt := types.BigIntT.WithNullable(false)
	aggOut := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "c", Type: cnt}}
	joinOut := append(append(types.Schema{}, kvSchema...), kvSchema...)
	left, right := values(kvRows), values(kvRows[:2])
	join := &physical.HashJoin{Left: left, Right: right, Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Out: joinOut}
	u1, u2 := values(kvRows[:3]), values(kvRows)
	union := &physical.Union{Inputs: []physical.Node{u1, u2}, Out: kvSchema}
	agg := &physical.HashAggregate{Input: union, GroupKeys: []int{0}, Aggs: []logical.AggCall{{Name: "COUNT", Filter: -1, T: cnt}}, Out: aggOut}
	sort := &physical.Sort{Input: agg, Keys: []logical.SortKey{{Index: 0}}}
	type counts struct{ in, out, bin, bout int64 }
	tests := []struct {
		name string
		plan physical.Node
		want map[physical.Node]counts
	}{
		{"join", join, map[physical.Node]counts{
			left: {0, 5, 0, 1}, right: {0, 2, 0, 1}, join: {7, 3, 2, 1}}},
		{"union, aggregate, sort", sort, map[physical.Node]counts{
			u1: {0, 3, 0, 1}, u2: {0, 5, 0, 1}, union: {8, 8, 2, 2}, agg: {8, 4, 2, 1}, sort: {4, 4, 1, 1}}},
	}
	for _, tc := range tests {
		st := NewStats()
		_, err := Collect(context.Background(), tc.plan, &Env{Stats: st})
		require.NoError(t, err, tc.name)
		for n, w := range tc.want {
			ns := st.Node(n)
			require.NotNil(t, ns, "%s: %s", tc.name, n.Name())
			require.Equal(t, w, counts{ns.RowsIn, ns.RowsOut, ns.BatchesIn, ns.BatchesOut}, "%s: %s", tc.name, n.Name())
			require.GreaterOrEqual(t, ns.Busy, int64(0))
		}
		if tc.plan == join {
			require.Positive(t, st.Node(join).Op.PeakStateBytes, "hash join build side")
		}
		text := ExplainAnalyze(tc.plan, st)
		require.Equal(t, len(strings.Split(strings.TrimSpace(physical.Explain(tc.plan)), "\n")), len(strings.Split(strings.TrimSpace(text), "\n")))
		require.Contains(t, text, "rows out=5")
	}
	require.Nil(t, NewStats().Node(agg))
}

func TestRunStatsSpill(t *testing.T) {
	// The budget reaches the operators, whose spill figures show up.
	var rows [][]any
	for i := 0; i < 5000; i++ {
		rows = append(rows, []any{int64(i * 7919 % 5003), "x"})
	}
	v := values(rows)
	sort := &physical.Sort{Input: v, Keys: []logical.SortKey{{Index: 0}}}
	st := NewStats()
	got, err := collectRows(t, sort, &Env{Stats: st, Spill: ops.SpillConfig{Budget: 1, Dir: t.TempDir()}})
	require.NoError(t, err)
	require.Len(t, got, 5000)
	for i := 1; i < len(got); i++ {
		require.LessOrEqual(t, got[i-1][0].(int64), got[i][0].(int64))
	}
	ns := st.Node(sort)
	require.Equal(t, int64(2), ns.Op.SpillCount) // Values emits 4096 + 904 rows
	require.Positive(t, ns.Op.SpillBytes)
	require.Contains(t, ns.String(), "spilled=2x")
}

func TestFormatStats(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{512, "512B"}, {62464, "61.0KB"}, {3 << 20, "3.0MB"}, {5 << 30, "5.0GB"}} {
		require.Equal(t, tc.want, FormatBytes(tc.n))
	}
	require.Equal(t, "123ms", FormatDuration(123_400_000))
	require.Equal(t, "1.23s", FormatDuration(1_234_000_000))
	require.Equal(t, "0.012ms", FormatDuration(12_000))
}
