package ops

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

func TestCalc(t *testing.T) {
	in := types.Schema{{Name: "a", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	out := types.Schema{{Name: "s", Type: types.StringT}, {Name: "a2", Type: types.BigIntT}}
	r := rand.New(rand.NewPCG(1, 2))
	var rows [][]any
	for i := 0; i < 5000; i++ {
		rows = append(rows, []any{randInt64(r, 100, 0.1), randString(r, 50, 0.1)})
	}
	gt := func(row []any) bool { return row[0] != nil && row[0].(int64) > 40 }
	double := func(row []any) any {
		if row[0] == nil {
			return nil
		}
		return row[0].(int64) * 2
	}
	tests := []struct {
		name string
		cond Selector
		keep func([]any) bool
	}{
		{"no condition", nil, func([]any) bool { return true }},
		{"a > 40", &rowSelector{s: in, fn: gt}, gt},
		{"none", &rowSelector{s: in, fn: func([]any) bool { return false }}, func([]any) bool { return false }},
	}
	for _, tc := range tests {
		var want [][]any
		for _, row := range rows {
			if tc.keep(row) {
				want = append(want, []any{row[1], double(row)})
			}
		}
		for _, bs := range batchSizes {
			projs := []Projection{{Column: 1}, {Eval: &rowEvaluator{s: in, t: types.BigIntT, fn: double}}}
			got, err := runUnary(t, NewCalc(tc.cond, projs, mustArrow(t, out)), in, rows, bs, out)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s, batch size %d", tc.name, bs)
		}
	}
}

func TestCalcWrongProjectionType(t *testing.T) {
	in := types.Schema{{Name: "a", Type: types.BigIntT}}
	out := types.Schema{{Name: "a", Type: types.StringT}}
	_, err := runUnary(t, NewCalc(nil, []Projection{{Column: 0}}, mustArrow(t, out)), in, [][]any{{int64(1)}}, 0, out)
	require.ErrorContains(t, err, "has type int64, want utf8")
}

func TestCalcKeepsRowKinds(t *testing.T) {
	in := types.Schema{{Name: "a", Type: types.BigIntT}}
	b := split(t, in, [][]any{{int64(1)}, {int64(5)}, {int64(7)}}, 0)[0]
	b.Kinds = []changelog.RowKind{changelog.Insert, changelog.UpdateBefore, changelog.Delete}
	c := NewCalc(&rowSelector{s: in, fn: func(r []any) bool { return r[0].(int64) > 1 }}, []Projection{{Column: 0}}, mustArrow(t, in))
	out := &collector{}
	require.NoError(t, c.Process(context.Background(), b, out))
	require.Len(t, out.batches, 1)
	require.Equal(t, []changelog.RowKind{changelog.UpdateBefore, changelog.Delete}, out.batches[0].Kinds)
	require.Equal(t, [][]any{{int64(5)}, {int64(7)}}, out.rows(t, in, 0))
}
