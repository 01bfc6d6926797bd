package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// runOverLog feeds rows in batches of bs (inserts; a row "WM:n" is a
// watermark of n ms) and returns the output as "+I[a, 1]" strings.
func runOverLog(t *testing.T, op vectorized.Operator, in types.Schema, rows [][]any, bs int, out types.Schema) []string {
	t.Helper()
	ctx := context.Background()
	c := &collector{}
	require.NoError(t, op.Open(ctx))
	defer func() { require.NoError(t, op.Close()) }()
	var pending [][]any
	flush := func() {
		for _, b := range split(t, in, pending, bs) {
			require.NoError(t, op.Process(ctx, b, c))
		}
		pending = nil
	}
	for _, r := range rows {
		if wm, ok := r[0].(watermarkRow); ok {
			flush()
			require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: int64(wm)}, c))
			continue
		}
		pending = append(pending, r)
	}
	flush()
	require.NoError(t, op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	var got []string
	for _, b := range c.batches {
		for i, r := range types.RecordRows(b.Rec, out) {
			got = append(got, fmt.Sprintf("%s%v", b.Kind(i), r))
		}
	}
	return got
}

type watermarkRow int64

var overKV = types.Schema{{Name: "k", Type: types.StringT}, {Name: "v", Type: types.BigIntT}}

func TestRankChangelog(t *testing.T) {
	withRank := append(append(types.Schema{}, overKV...), types.Field{Name: "rn", Type: types.BigIntT.WithNullable(false)})
	desc := []logical.SortKey{{Index: 1, Desc: true}}
	in := [][]any{{"a", int64(1)}, {"a", int64(3)}, {"b", int64(2)}, {"a", int64(2)}, {"a", int64(3)}, {"a", int64(5)}}
	tests := []struct {
		name       string
		outputRank bool
		streaming  bool
		want       []string
	}{
		{"top2 without rank number", false, true, []string{
			"+I[a 1]", "+I[a 3]", "+I[b 2]",
			"-D[a 1]", "+I[a 2]", // a 2 enters the top 2 and pushes a 1 out
			"-D[a 2]", "+I[a 3]", // a tie with a 3 ranks after it, still in the top 2
			"-D[a 3]", "+I[a 5]", // a 5 pushes out the later a 3
		}},
		{"top2 with rank number", true, true, []string{
			"+I[a 1 1]",
			"-U[a 1 1]", "+U[a 3 1]", "+I[a 1 2]",
			"+I[b 2 1]",
			"-U[a 1 2]", "+U[a 2 2]",
			"-U[a 2 2]", "+U[a 3 2]",
			"-U[a 3 1]", "+U[a 5 1]", "-U[a 3 2]", "+U[a 3 2]",
		}},
		{"batch final result", true, false, []string{"+I[a 5 1]", "+I[a 3 2]", "+I[b 2 1]"}},
	}
	for _, tc := range tests {
		for _, bs := range batchSizes {
			t.Run(fmt.Sprintf("%s/bs=%d", tc.name, bs), func(t *testing.T) {
				out := overKV
				if tc.outputRank {
					out = withRank
				}
				op := NewRank([]int{0}, desc, 2, tc.outputRank, tc.streaming, false, overKV, out, nil)
				require.Equal(t, tc.want, runOverLog(t, op, overKV, in, bs, out))
			})
		}
	}
}

func TestRankTieLast(t *testing.T) {
	in := [][]any{{"a", int64(1)}, {"a", int64(1)}}
	op := NewRank([]int{0}, []logical.SortKey{{Index: 1, Desc: true}}, 1, false, true, true, overKV, overKV, nil)
	require.Equal(t, []string{"+I[a 1]", "-D[a 1]", "+I[a 1]"}, runOverLog(t, op, overKV, in, 0, overKV))
}

func TestDeduplicateChangelog(t *testing.T) {
	in := [][]any{{"a", int64(5)}, {"b", int64(1)}, {"a", int64(3)}, {"a", int64(7)}, {"a", int64(7)}}
	tests := []struct {
		name              string
		keepLast, rowtime bool
		want              []string
	}{
		{"first row proctime", false, false, []string{"+I[a 5]", "+I[b 1]"}},
		{"last row proctime", true, false, []string{"+I[a 5]", "+I[b 1]", "-U[a 5]", "+U[a 3]", "-U[a 3]", "+U[a 7]", "-U[a 7]", "+U[a 7]"}},
		{"last row rowtime", true, true, []string{"+I[a 5]", "+I[b 1]", "-U[a 5]", "+U[a 7]", "-U[a 7]", "+U[a 7]"}},
		{"first row rowtime", false, true, []string{"+I[a 5]", "+I[b 1]", "-U[a 5]", "+U[a 3]"}},
	}
	for _, tc := range tests {
		for _, bs := range batchSizes {
			t.Run(fmt.Sprintf("%s/bs=%d", tc.name, bs), func(t *testing.T) {
				op := NewDeduplicate([]int{0}, tc.keepLast, tc.rowtime, 1, overKV, nil)
				require.Equal(t, tc.want, runOverLog(t, op, overKV, in, bs, overKV))
			})
		}
	}
}

func TestOverAggregate(t *testing.T) {
	calls := []logical.OverCall{
		{Name: "ROW_NUMBER", T: types.BigIntT.WithNullable(false)},
		{Name: "RANK", T: types.BigIntT.WithNullable(false)},
		{Name: "DENSE_RANK", T: types.BigIntT.WithNullable(false)},
		{Name: "SUM", Args: []int{1}, T: types.BigIntT},
		{Name: "COUNT_STAR", T: types.BigIntT.WithNullable(false)},
		{Name: "MAX", Args: []int{1}, T: types.BigIntT},
	}
	out := append(types.Schema{}, overKV...)
	for i, c := range calls {
		out = append(out, types.Field{Name: fmt.Sprintf("w%d", i), Type: c.T})
	}
	in := [][]any{{"a", int64(2)}, {"b", int64(1)}, {"a", int64(1)}, {"a", int64(2)}, {"a", nil}, {"a", int64(4)}}
	asc := []logical.SortKey{{Index: 1, NullsFirst: true}}
	tests := []struct {
		name string
		spec OverSpec
		want []string
	}{
		{"batch RANGE", OverSpec{Partition: []int{0}, Order: asc, Calls: calls}, []string{
			"+I[a <nil> 1 1 1 <nil> 1 <nil>]",
			"+I[a 1 2 2 2 1 2 1]",
			"+I[a 2 3 3 3 5 4 2]", // peers share SUM/COUNT/MAX
			"+I[a 2 4 3 3 5 4 2]",
			"+I[a 4 5 5 4 9 5 4]",
			"+I[b 1 1 1 1 1 1 1]",
		}},
		{"batch ROWS", OverSpec{Partition: []int{0}, Order: asc, Rows: true, Calls: calls}, []string{
			"+I[a <nil> 1 1 1 <nil> 1 <nil>]",
			"+I[a 1 2 2 2 1 2 1]",
			"+I[a 2 3 3 3 3 3 2]",
			"+I[a 2 4 3 3 5 4 2]",
			"+I[a 4 5 5 4 9 5 4]",
			"+I[b 1 1 1 1 1 1 1]",
		}},
		{"streaming arrival order", OverSpec{Partition: []int{0}, Order: asc, Rows: true, Calls: calls, Streaming: true}, []string{
			"+I[a 2 1 1 1 2 1 2]",
			"+I[b 1 1 1 1 1 1 1]",
			"+I[a 1 2 2 2 3 2 2]",
			"+I[a 2 3 3 3 5 3 2]",
			"+I[a <nil> 4 4 4 5 4 2]",
			"+I[a 4 5 5 5 9 5 4]",
		}},
	}
	for _, tc := range tests {
		for _, bs := range batchSizes {
			t.Run(fmt.Sprintf("%s/bs=%d", tc.name, bs), func(t *testing.T) {
				spec := tc.spec
				spec.In, spec.Out = overKV, out
				op, err := NewOverAggregate(spec)
				require.NoError(t, err)
				require.Equal(t, tc.want, runOverLog(t, op, overKV, in, bs, out))
			})
		}
	}
}

func TestOverAggregateRowtime(t *testing.T) {
	ts := types.Schema{{Name: "k", Type: types.StringT}, {Name: "ts", Type: types.TimestampOf(3)}}
	out := append(append(types.Schema{}, ts...), types.Field{Name: "c", Type: types.BigIntT.WithNullable(false)})
	ms := func(n int64) any { return n * 1000 } // canonical TIMESTAMP is micros
	in := [][]any{
		{"a", ms(20)}, {"a", ms(10)}, {"a", ms(20)},
		{watermarkRow(15)},
		{"a", ms(5)}, // late: dropped
		{"a", ms(30)},
	}
	spec := OverSpec{Partition: []int{0}, Order: []logical.SortKey{{Index: 1}}, Calls: []logical.OverCall{{Name: "COUNT_STAR", T: types.BigIntT.WithNullable(false)}},
		In: ts, Out: out, Streaming: true, Rowtime: true}
	for _, rows := range []bool{false, true} {
		spec.Rows = rows
		op, err := NewOverAggregate(spec)
		require.NoError(t, err)
		got := runOverLog(t, op, ts, in, 0, out)
		want := []string{"+I[a 10000 1]", "+I[a 20000 3]", "+I[a 20000 3]", "+I[a 30000 4]"}
		if rows {
			want = []string{"+I[a 10000 1]", "+I[a 20000 2]", "+I[a 20000 3]", "+I[a 30000 4]"}
		}
		require.Equal(t, want, got, "rows=%v", rows)
	}
}

func TestOverAggregateUnsupported(t *testing.T) {
	_, err := NewOverAggregate(OverSpec{Calls: []logical.OverCall{{Name: "LAG"}}})
	require.ErrorContains(t, err, "not supported yet")
}
