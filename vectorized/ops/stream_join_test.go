package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

type sideChange struct {
	side int
	change
}

func TestStreamJoinChangelog(t *testing.T) {
	ls := types.Schema{{Name: "k", Type: types.IntT}, {Name: "a", Type: types.StringT}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "b", Type: types.StringT}}
	out := append(append(types.Schema{}, ls...), rs...)
	L := func(k changelog.RowKind, key any, v string) sideChange {
		return sideChange{0, change{k, []any{key, v}}}
	}
	R := func(k changelog.RowKind, key any, v string) sideChange {
		return sideChange{1, change{k, []any{key, v}}}
	}
	tests := []struct {
		name  string
		kind  logical.JoinKind
		cond  Selector
		input []sideChange
		want  []string
	}{
		{
			name: "left join", kind: logical.LeftJoin,
			input: []sideChange{
				L(ib, int32(1), "a"), R(ib, int32(1), "x"), R(ib, int32(1), "y"),
				R(del, int32(1), "x"), R(del, int32(1), "y"), L(del, int32(1), "a"),
				L(ib, nil, "n"), R(ib, nil, "m"),
			},
			want: []string{
				"+I[1 a <nil> <nil>]",
				"-D[1 a <nil> <nil>]", "+I[1 a 1 x]",
				"+I[1 a 1 y]",
				"-D[1 a 1 x]",
				"-D[1 a 1 y]", "+I[1 a <nil> <nil>]",
				"-D[1 a <nil> <nil>]",
				"+I[<nil> n <nil> <nil>]",
			},
		},
		{
			name: "inner join forwards kinds", kind: logical.InnerJoin,
			input: []sideChange{
				L(ib, int32(1), "a"), R(ua, int32(1), "x"), L(ub, int32(1), "a"), R(ib, int32(2), "q"),
			},
			want: []string{"+U[1 a 1 x]", "-U[1 a 1 x]"},
		},
		{
			name: "full join", kind: logical.FullJoin,
			input: []sideChange{R(ib, int32(2), "z"), L(ib, int32(2), "c"), L(ib, int32(2), "d"), R(del, int32(2), "z")},
			want: []string{
				"+I[<nil> <nil> 2 z]",
				"-D[<nil> <nil> 2 z]", "+I[2 c 2 z]",
				"+I[2 d 2 z]",
				"-D[2 c 2 z]", "-D[2 d 2 z]", "+I[2 c <nil> <nil>]", "+I[2 d <nil> <nil>]",
			},
		},
		{
			name: "right join with a condition", kind: logical.RightJoin,
			cond:  &rowSelector{s: out, fn: func(row []any) bool { return row[1].(string) < row[3].(string) }},
			input: []sideChange{L(ib, int32(1), "m"), R(ib, int32(1), "a"), R(ib, int32(1), "z")},
			want:  []string{"+I[<nil> <nil> 1 a]", "+I[1 m 1 z]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			op := onTestDisk(t, NewStreamJoin(StreamJoinSpec{Kind: tc.kind, LeftKeys: []int{0}, RightKeys: []int{0}, Left: ls, Right: rs, Out: out, Cond: tc.cond}))
			require.NoError(t, op.Open(ctx))
			c := &collector{}
			for _, in := range tc.input {
				s := ls
				if in.side == 1 {
					s = rs
				}
				rec, err := types.BuildRecord(vectorized.Mem, s, [][]any{in.row})
				require.NoError(t, err)
				require.NoError(t, op.Process(ctx, in.side, vectorized.Batch{Rec: rec, Kinds: []changelog.RowKind{in.kind}}, c))
			}
			require.NoError(t, op.OnMarker(ctx, 0, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
			require.Empty(t, c.markers)
			require.NoError(t, op.OnMarker(ctx, 1, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
			require.Len(t, c.markers, 1)
			var got []string
			for _, b := range c.batches {
				for i, r := range types.RecordRows(b.Rec, out) {
					got = append(got, change{b.Kind(i), r}.String())
				}
			}
			require.Equal(t, tc.want, got)
			require.NoError(t, op.Close())
		})
	}
}

func TestStreamUnionMarkers(t *testing.T) {
	ctx := context.Background()
	s := types.Schema{{Name: "x", Type: types.IntT}}
	u := NewStreamUnion(2, mustArrow(t, s))
	require.NoError(t, u.Open(ctx))
	c := &collector{}
	wm := func(side int, w int64) {
		require.NoError(t, u.OnMarker(ctx, side, vectorized.Marker{Kind: vectorized.Watermark, Watermark: w}, c))
	}
	end := func(side int) {
		require.NoError(t, u.OnMarker(ctx, side, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	}
	wm(0, 10) // side 1 has no watermark yet: nothing
	wm(1, 5)  // min 5
	wm(1, 20) // min 10
	wm(0, 8)  // watermarks never go back
	end(0)    // side 0 ended: side 1's 20
	wm(1, 30)
	end(1)
	var got []string
	for _, m := range c.markers {
		if m.Kind == vectorized.Watermark {
			got = append(got, fmt.Sprint(m.Watermark))
		} else {
			got = append(got, "end")
		}
	}
	require.Equal(t, []string{"5", "10", "20", "30", "end"}, got)
	rec, err := types.BuildRecord(vectorized.Mem, s, [][]any{{int32(1)}})
	require.NoError(t, err)
	require.NoError(t, u.Process(ctx, 1, vectorized.Batch{Rec: rec, Kinds: []changelog.RowKind{changelog.Delete}}, c))
	require.Equal(t, []changelog.RowKind{changelog.Delete}, c.batches[0].Kinds)
	require.NoError(t, u.Close())
}

func TestGatherRefs(t *testing.T) {
	s := types.Schema{
		{Name: "i", Type: types.IntT}, {Name: "s", Type: types.StringT}, {Name: "b", Type: types.BooleanT},
		{Name: "d", Type: types.DoubleT}, {Name: "a", Type: types.Type{Kind: types.Array, Elem: &types.IntT}},
		{Name: "y", Type: types.BytesT},
	}
	b1, err := types.BuildRecord(vectorized.Mem, s, [][]any{
		{int32(1), "x", true, 1.5, []any{int32(1)}, []byte("p")},
		{nil, nil, nil, nil, nil, nil},
	})
	require.NoError(t, err)
	b2, err := types.BuildRecord(vectorized.Mem, s, [][]any{{int32(3), "z", false, 2.5, []any{int32(2), nil}, []byte("q")}})
	require.NoError(t, err)
	batches := []arrow.RecordBatch{b1, b2}
	for _, refs := range [][]rowRef{
		{{1, 0}, noRef, {0, 1}, {0, 0}}, // several batches
		{{0, 0}, noRef, {0, 1}},         // one batch
		{noRef, noRef},                  // none
	} {
		for c, f := range s {
			dt, err := types.ArrowType(f.Type)
			require.NoError(t, err)
			a, err := gatherRefs(batches, c, f.Type, dt, refs)
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(dt, a.DataType()), f.Name)
			require.Equal(t, len(refs), a.Len())
			for k, r := range refs {
				var want any
				if r.batch >= 0 {
					want = types.GetValue(batches[r.batch].Column(c), int(r.row), f.Type)
				}
				require.Equal(t, want, types.GetValue(a, k, f.Type), "%s row %d", f.Name, k)
			}
		}
	}
}
