package expr

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestStrCastKernel(t *testing.T) {
	rows := make([][]any, len(nexmarkURLs))
	for i, u := range nexmarkURLs {
		rows[i] = []any{u, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	for _, n := range []int{1, 2, 5, 100, types.MaxLength} {
		e := &logical.Cast{Arg: url, T: types.VarCharOf(n)}
		t.Run(e.String(), func(t *testing.T) {
			checkAgainstOracle(t, e, nexmarkSchema, rec)
			ev, err := Compile(e, nexmarkSchema, testReg, testCtx)
			require.NoError(t, err)
			root := ev.(*compiled).root
			_, ok := root.(*strCastNode)
			require.True(t, ok || n == types.MaxLength, "%T", root)
			require.False(t, root.canFail())
		})
	}
	// short values fit: the input column comes back unchanged
	short := &logical.Cast{Arg: mustCall(t, "LOWER", url), T: types.VarCharOf(1000)}
	checkAgainstOracle(t, short, nexmarkSchema, rec)
}
