package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TestStructFieldKernel checks r.f on a sliced batch whose rows are NULL,
// have NULL fields or hold values: a NULL row yields NULL, and the kernel
// (not the generic adapter) is used.
func TestStructFieldKernel(t *testing.T) {
	rowT := types.RowOf(types.Field{Name: "a", Type: types.BigIntT}, types.Field{Name: "b", Type: types.StringT})
	schema := types.Schema{{Name: "r", Type: rowT}}
	rows := [][]any{
		{[]any{int64(1), "x"}},
		{nil},
		{[]any{nil, "y"}},
		{[]any{int64(4), nil}},
		{nil},
		{[]any{int64(6), "z"}},
	}
	rec, err := types.BuildRecord(memory.DefaultAllocator, schema, rows)
	require.NoError(t, err)
	sliced := rec.NewSlice(1, 6) // an offset exercises the bitmap placement

	reg := function.Builtins()
	for field, want := range map[int32][]any{
		0: {nil, nil, int64(4), nil, int64(6)},
		1: {nil, "y", nil, nil, "z"},
	} {
		ft := rowT.Fields[field].Type
		e := &logical.Call{Name: "$FIELD", Args: []logical.Expr{
			&logical.ColumnRef{Index: 0, T: rowT},
			&logical.Literal{Value: field, T: types.IntT.WithNullable(false)},
		}, T: ft, Def: function.OpField}
		ev, err := Compile(e, schema, reg, nil)
		require.NoError(t, err)
		require.IsType(t, &structFieldNode{}, ev.(*compiled).root)
		out, err := ev.Eval(sliced)
		require.NoError(t, err)
		got := make([]any, out.Len())
		for i := range got {
			got[i] = types.GetValue(out, i, ft)
		}
		require.Equal(t, want, got, "field %d", field)
		// The reference evaluator agrees row by row.
		for i, r := range rows[1:] {
			v, err := logical.Eval(&function.EvalContext{}, reg, e, r)
			require.NoError(t, err)
			require.Equal(t, want[i], v)
		}
	}
}
