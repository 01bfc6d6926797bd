package expr

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestDateFormatKernel(t *testing.T) {
	for _, tt := range []types.Type{types.TimestampOf(3), types.TimestampOf(9)} {
		schema := types.Schema{{Name: "ts", Type: tt}}
		per := types.TimestampUnitsPerSecond(tt)
		var rows [][]any
		for _, s := range []int64{0, 1, 59, 60, 3599, 3600, 86399, 86400, 1_700_000_000, -1, -86401} {
			rows = append(rows, []any{s * per}, []any{s*per + per/3})
		}
		rows = append(rows, []any{nil})
		rec := buildRec(t, schema, rows)
		ts := &logical.ColumnRef{Index: 0, Name: "ts", T: tt}
		for _, p := range []string{"yyyy-MM-dd", "HH:mm", "yyyy-MM-dd HH:mm:ss", "HH:mm:ss.SSS", "EEE, d MMM yyyy h a", "'T'HH"} {
			e := mustCall(t, "DATE_FORMAT", ts, lit(p, types.StringT.WithNullable(false)))
			checkAgainstOracle(t, e, schema, rec)
			ev, err := Compile(e, schema, testReg, testCtx)
			require.NoError(t, err)
			_, ok := ev.(*compiled).root.(*dateFormatNode)
			require.True(t, ok, p)
		}
		// an invalid pattern stays with the generic adapter and its error
		bad := mustCall(t, "DATE_FORMAT", ts, lit("yyyy-qq", types.StringT.WithNullable(false)))
		checkAgainstOracle(t, bad, schema, rec)
		rec.Release()
	}
}
