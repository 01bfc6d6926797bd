package expr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestTimestampIntervalKernel(t *testing.T) {
	for _, tt := range []types.Type{types.TimestampOf(3), types.TimestampOf(9), {Kind: types.TimestampLTZ, Precision: 3}} {
		tt = tt.WithNullable(true)
		schema := types.Schema{{Name: "ts", Type: tt}}
		rec := buildRec(t, schema, [][]any{{int64(0)}, {nil}, {int64(1_700_000_000_000_000)}, {int64(-5)}})
		ts := &logical.ColumnRef{Index: 0, Name: "ts", T: tt}
		iv := lit(int64(4000), types.IntervalDT.WithNullable(false))
		for _, e := range []logical.Expr{mustCall(t, "-", ts, iv), mustCall(t, "+", ts, iv), mustCall(t, "+", iv, ts)} {
			checkAgainstOracle(t, e, schema, rec)
			ev, err := Compile(e, schema, testReg, testCtx)
			require.NoError(t, err)
			_, ok := ev.(*compiled).root.(*tsIntervalNode)
			require.True(t, ok, e.String())
		}
		rec.Release()
		// overflow: the generic adapter reports the error
		big := buildRec(t, schema, [][]any{{int64(math.MaxInt64 - 10)}})
		checkAgainstOracle(t, mustCall(t, "+", ts, lit(int64(4000), types.IntervalDT.WithNullable(false))), schema, big)
		big.Release()
	}
}
