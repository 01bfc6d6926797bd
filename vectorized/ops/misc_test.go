package ops

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

func intRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i)}
	}
	return rows
}

func TestLimit(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}}
	rows := intRows(100)
	tests := []struct{ offset, fetch int64 }{{0, -1}, {0, 10}, {5, 10}, {99, 10}, {100, 5}, {0, 0}, {3, -1}, {0, 100}}
	for _, tc := range tests {
		for _, bs := range batchSizes {
			ctx := context.Background()
			l := NewLimit(tc.offset, tc.fetch)
			c := &collector{}
			require.NoError(t, l.Open(ctx))
			stopped := false
			for _, b := range split(t, s, rows, bs) {
				err := l.Process(ctx, b, c)
				if err != nil {
					require.True(t, IsLimitReached(err, l), "%v", err)
					require.False(t, IsLimitReached(err, NewLimit(0, 1)))
					stopped = true
					break
				}
			}
			require.NoError(t, l.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
			require.NoError(t, l.Close())
			hi := int64(len(rows))
			if tc.fetch >= 0 {
				hi = min(hi, tc.offset+tc.fetch)
				require.True(t, stopped || tc.offset+tc.fetch >= int64(len(rows)))
			}
			want := rows[min(tc.offset, int64(len(rows))):max(hi, min(tc.offset, int64(len(rows))))]
			got := c.rows(t, s, 100)
			if len(want) == 0 {
				want = nil
			}
			require.Equal(t, want, got, "offset %d fetch %d batch size %d", tc.offset, tc.fetch, bs)
		}
	}
}

func TestUnion(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}}
	other := types.Schema{{Name: "other", Type: types.BigIntT.WithNullable(false)}}
	ctx := context.Background()
	u := NewUnion(2, mustArrow(t, s))
	c := &collector{}
	require.NoError(t, u.Open(ctx))
	for _, b := range split(t, s, intRows(3), 2) {
		require.NoError(t, u.Process(ctx, b, c))
	}
	require.NoError(t, u.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	require.Empty(t, c.markers)
	for _, b := range split(t, other, intRows(2), 0) {
		require.NoError(t, u.Process(ctx, b, c))
	}
	require.NoError(t, u.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
	require.Len(t, c.markers, 1)
	require.NoError(t, u.Close())
	require.Equal(t, [][]any{{int64(0)}, {int64(1)}, {int64(2)}, {int64(0)}, {int64(1)}}, c.rows(t, s, 0))
	for _, b := range c.batches {
		require.Equal(t, "i", b.Rec.Schema().Field(0).Name)
	}
	bad := types.Schema{{Name: "x", Type: types.StringT}}
	require.Error(t, u.Process(ctx, split(t, bad, [][]any{{"a"}}, 0)[0], c))
}

// refSetOp computes INTERSECT/EXCEPT [ALL] on printed rows.
func refSetOp(kind logical.SetOpKind, all bool, left, right [][]any) [][]any {
	count := map[string]int{}
	for _, r := range right {
		count[fmt.Sprint(r)]++
	}
	seen := map[string]int{}
	var out [][]any
	for _, l := range left {
		k := fmt.Sprint(l)
		n := seen[k]
		seen[k]++
		var keep bool
		switch {
		case kind == logical.Intersect && all:
			keep = n < count[k]
		case kind == logical.Intersect:
			keep = n == 0 && count[k] > 0
		case all:
			keep = n >= count[k]
		default:
			keep = n == 0 && count[k] == 0
		}
		if keep {
			out = append(out, l)
		}
	}
	return out
}

func TestSetOp(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	r := rand.New(rand.NewPCG(11, 12))
	gen := func(n int) [][]any {
		var rows [][]any
		for i := 0; i < n; i++ {
			rows = append(rows, []any{randInt64(r, 5, 0.2), randString(r, 3, 0.2)})
		}
		return rows
	}
	left, right := gen(400), gen(150)
	for _, kind := range []logical.SetOpKind{logical.Intersect, logical.Except} {
		for _, all := range []bool{false, true} {
			for _, in := range []struct{ l, r [][]any }{{left, right}, {left, nil}, {nil, right}} {
				want := refSetOp(kind, all, in.l, in.r)
				for _, bs := range batchSizes {
					got, err := runBinary(t, NewSetOp(kind, all, mustArrow(t, s)), s, in.l, s, in.r, bs, s)
					require.NoError(t, err)
					require.Equal(t, canonRows(want), canonRows(got), "kind %d all %v batch size %d", kind, all, bs)
				}
			}
		}
	}
}

func TestValues(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	var rows [][]any
	for i := 0; i < 5000; i++ {
		rows = append(rows, []any{int64(i), fmt.Sprint(i)})
	}
	rows[7][1] = nil
	ctx := context.Background()
	for _, tc := range [][][]any{rows, nil} {
		v := NewValues(s, tc)
		c := &collector{}
		require.NoError(t, v.Open(ctx))
		require.NoError(t, v.Run(ctx, c))
		require.NoError(t, v.Close())
		got := c.rows(t, s, 0)
		if tc == nil {
			require.Empty(t, got)
			continue
		}
		require.Equal(t, tc, got)
		require.Len(t, c.batches, 2)
	}
	v := NewValues(s, [][]any{{int64(1)}})
	require.ErrorContains(t, v.Open(ctx), "has 1 fields")
	v = NewValues(s, [][]any{{"x", "y"}})
	require.NoError(t, v.Open(ctx))
	require.Error(t, v.Run(ctx, &collector{}))
}

type fakeSink struct {
	calls []string
	rows  int
	fail  string
}

func (f *fakeSink) step(name string) error {
	f.calls = append(f.calls, name)
	if name == f.fail {
		return errors.New(name + " failed")
	}
	return nil
}
func (f *fakeSink) Open(context.Context) error { return f.step("open") }
func (f *fakeSink) Write(_ context.Context, b vectorized.Batch) error {
	f.rows += b.NumRows()
	return f.step("write")
}
func (f *fakeSink) Finish(context.Context) error { return f.step("finish") }
func (f *fakeSink) Close() error                 { return f.step("close") }

func TestSink(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.BigIntT}}
	fs := &fakeSink{}
	got, err := runUnary(t, NewSink(fs), s, intRows(10), 4, s)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Equal(t, 10, fs.rows)
	require.Equal(t, []string{"open", "write", "write", "write", "finish", "close"}, fs.calls)

	fs = &fakeSink{fail: "open"}
	op := NewSink(fs)
	require.ErrorContains(t, op.Open(context.Background()), "open failed")
	require.NoError(t, op.Close())
	require.Equal(t, []string{"open", "close"}, fs.calls)
}

func TestGatherNested(t *testing.T) {
	s := types.Schema{
		{Name: "a", Type: types.ArrayOf(types.IntT)},
		{Name: "m", Type: types.MapOf(types.StringT, types.BigIntT)},
		{Name: "r", Type: types.RowOf(types.Field{Name: "x", Type: types.IntT}, types.Field{Name: "y", Type: types.StringT})},
		{Name: "d", Type: types.DecimalOf(10, 2)},
		{Name: "b", Type: types.BytesT},
		{Name: "t", Type: types.BooleanT},
	}
	rows := [][]any{
		{[]any{int32(1), nil}, &types.MapValue{Keys: []any{"k"}, Values: []any{int64(1)}}, []any{int32(1), "a"}, nil, []byte("x"), true},
		{nil, nil, nil, nil, nil, nil},
		{[]any{}, &types.MapValue{}, []any{nil, nil}, nil, []byte{}, false},
		{[]any{int32(3)}, &types.MapValue{Keys: []any{"a", "b"}, Values: []any{nil, int64(2)}}, []any{int32(3), "c"}, nil, []byte("zz"), nil},
	}
	rows[2][3] = decimal128.FromI64(-12345)
	rec, err := types.BuildRecord(vectorized.Mem, s, rows)
	require.NoError(t, err)
	rows = types.RecordRows(rec, s)
	for _, idx := range [][]int32{{3, 2, 1, 0}, {-1, 0, -1, 3, 3}, {}, {2}} {
		g, err := Gather(rec, idx, nil)
		require.NoError(t, err)
		var want [][]any
		for _, i := range idx {
			if i < 0 {
				want = append(want, make([]any, len(s)))
			} else {
				want = append(want, rows[i])
			}
		}
		if len(want) == 0 {
			want = [][]any{}
		}
		require.Equal(t, want, types.RecordRows(g, s), "%v", idx)
	}
	// Slices (non-zero offsets) gather correctly too.
	sl := rec.NewSlice(1, 4)
	g, err := Gather(sl, []int32{2, 0}, nil)
	require.NoError(t, err)
	require.Equal(t, [][]any{rows[3], rows[1]}, types.RecordRows(g, s))
}
