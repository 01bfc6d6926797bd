package ops

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

func TestLookupJoin(t *testing.T) {
	in := types.Schema{{Name: "id", Type: types.IntT}, {Name: "k", Type: types.BigIntT}}
	dim := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, in...), dim...)
	row := func(side int, a, b any) ijStep { return ijStep{side: side, row: []any{a, b}} }
	dimRows := []ijStep{row(1, int64(1), "one"), row(1, int64(2), "two"), row(1, int64(2), "deux"), row(1, nil, "null")}
	tests := []struct {
		name  string
		kind  logical.JoinKind
		cond  Selector
		steps []ijStep
		want  []string
	}{
		{
			name: "the stream waits for the temporal table", kind: logical.InnerJoin,
			steps: append(append([]ijStep{row(0, int32(1), int64(2)), ijWM(0, 1), ijWM(1, 5)}, dimRows...),
				ijEnd(1), row(0, int32(2), int64(1)), row(0, int32(3), int64(9)), row(0, int32(4), nil), ijWM(0, 2), ijEnd(0)),
			want: []string{"+I[1 2 2 two]", "+I[1 2 2 deux]", "wm=1000", "+I[2 1 1 one]", "wm=2000", "end"},
		},
		{
			name: "left join with a condition", kind: logical.LeftJoin,
			cond: &rowSelector{s: out, fn: func(r []any) bool { return r[3].(string) != "two" }},
			steps: append(append([]ijStep{}, dimRows...), ijEnd(1),
				row(0, int32(1), int64(2)), row(0, int32(2), int64(9)), row(0, int32(3), nil), ijEnd(0)),
			want: []string{"+I[1 2 2 deux]", "+I[2 9 <nil> <nil>]", "+I[3 <nil> <nil> <nil>]", "end"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := NewLookupJoin(LookupJoinSpec{Kind: tc.kind, InputKeys: []int{1}, TemporalKeys: []int{0},
				Input: in, Temporal: dim, Out: out, Cond: tc.cond})
			require.NoError(t, op.Open(context.Background()))
			require.Equal(t, tc.want, runTwoInput(t, op, [2]types.Schema{in, dim}, out, tc.steps))
			require.NoError(t, op.Close())
		})
	}
}

func TestLookupJoinKeepsKinds(t *testing.T) {
	ctx := context.Background()
	in := types.Schema{{Name: "k", Type: types.IntT}}
	dim := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, in...), dim...)
	op := NewLookupJoin(LookupJoinSpec{Kind: logical.InnerJoin, InputKeys: []int{0}, TemporalKeys: []int{0}, Input: in, Temporal: dim, Out: out})
	require.NoError(t, op.Open(ctx))
	c := &collector{}
	d, err := types.BuildRecord(vectorized.Mem, dim, [][]any{{int32(1), "a"}})
	require.NoError(t, err)
	require.NoError(t, op.Process(ctx, 1, vectorized.Batch{Rec: d}, c))
	require.NoError(t, op.OnMarker(ctx, 1, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	r, err := types.BuildRecord(vectorized.Mem, in, [][]any{{int32(1)}, {int32(2)}, {int32(1)}})
	require.NoError(t, err)
	require.NoError(t, op.Process(ctx, 0, vectorized.Batch{Rec: r, Kinds: []changelog.RowKind{changelog.Insert, changelog.Insert, changelog.Delete}}, c))
	require.Len(t, c.batches, 1)
	require.Equal(t, []changelog.RowKind{changelog.Insert, changelog.Delete}, c.batches[0].Kinds)

	// Updates of the temporal table are not supported.
	op = NewLookupJoin(LookupJoinSpec{Kind: logical.InnerJoin, InputKeys: []int{0}, TemporalKeys: []int{0}, Input: in, Temporal: dim, Out: out})
	require.NoError(t, op.Open(ctx))
	err = op.Process(ctx, 1, vectorized.Batch{Rec: d, Kinds: []changelog.RowKind{changelog.Delete}}, c)
	require.ErrorContains(t, err, "not supported yet: ")
}

func TestTemporalJoin(t *testing.T) {
	ts := types.TimestampOf(3)
	ls := types.Schema{{Name: "id", Type: types.IntT}, {Name: "cur", Type: types.StringT}, {Name: "ts", Type: ts}}
	rs := types.Schema{{Name: "cur", Type: types.StringT}, {Name: "rate", Type: types.IntT}, {Name: "ts", Type: ts}}
	out := append(append(types.Schema{}, ls...), rs...)
	L := func(id int32, cur any, sec float64) ijStep {
		return ijStep{side: 0, row: []any{id, cur, int64(sec * 1e6)}}
	}
	R := func(cur string, rate int32, sec float64) ijStep {
		return ijStep{side: 1, row: []any{cur, rate, int64(sec * 1e6)}}
	}
	steps := []ijStep{
		R("EUR", 2, 0), L(1, "EUR", 1), L(2, "EUR", 6), R("EUR", 5, 5), L(3, "USD", 3), L(4, nil, 2),
		ijWM(0, 4), ijWM(1, 4), // 1, 3 and 4 are due; EUR 2 (at 0 s) stays: it is the latest before 4 s
		R("EUR", 7, 10), L(5, "EUR", 5.5),
		ijWM(0, 8), ijWM(1, 8), // 5.5 s and 6 s see the rate of 5 s
		L(6, "EUR", 11), L(7, "EUR", 4.5), // at the end: 11 s sees 7; 4.5 s sees nothing any more (2 was dropped)
		ijEnd(0), ijEnd(1),
	}
	tests := []struct {
		name string
		kind logical.JoinKind
		cond Selector
		want []string
	}{
		{name: "inner", kind: logical.InnerJoin, want: []string{
			"+I[1 EUR 1000000 EUR 2 0]", "wm=4000",
			"+I[5 EUR 5500000 EUR 5 5000000]", "+I[2 EUR 6000000 EUR 5 5000000]", "wm=8000",
			"+I[6 EUR 11000000 EUR 7 10000000]", "end",
		}},
		{name: "left with a condition", kind: logical.LeftJoin,
			cond: &rowSelector{s: out, fn: func(r []any) bool { v, ok := r[4].(int32); return ok && v != 5 }},
			want: []string{
				"+I[1 EUR 1000000 EUR 2 0]", "+I[4 <nil> 2000000 <nil> <nil> <nil>]", "+I[3 USD 3000000 <nil> <nil> <nil>]", "wm=4000",
				"+I[5 EUR 5500000 <nil> <nil> <nil>]", "+I[2 EUR 6000000 <nil> <nil> <nil>]", "wm=8000",
				"+I[7 EUR 4500000 <nil> <nil> <nil>]", "+I[6 EUR 11000000 EUR 7 10000000]", "end",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := NewTemporalJoin(TemporalJoinSpec{Kind: tc.kind, LeftKeys: []int{1}, RightKeys: []int{0},
				Left: ls, Right: rs, Out: out, Cond: tc.cond, LeftTime: 2, RightTime: 2})
			require.NoError(t, op.Open(context.Background()))
			require.Equal(t, tc.want, runTwoInput(t, op, [2]types.Schema{ls, rs}, out, steps))
			require.Empty(t, op.waiting)
			require.NoError(t, op.Close())
		})
	}
}
