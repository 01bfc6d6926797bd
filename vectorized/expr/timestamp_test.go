package expr

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TestNanoTimestampKernels checks the kernels on TIMESTAMP(9) (nanosecond
// values) against the reference evaluator, plus a few hand-computed values.
func TestNanoTimestampKernels(t *testing.T) {
	s := types.Schema{{Name: "ts9", Type: types.TimestampOf(9)}, {Name: "ts3", Type: types.TimestampOf(3)}, {Name: "ltz9", Type: types.TimestampLTZOf(9)}}
	var rows [][]any
	// Days across the nanosecond range (1678..2261), odd nanoseconds.
	for d := int64(-106_000); d <= 106_000; d += 997 {
		ns := d*86_400_000_000_000 + (d*7919_000_013)%86_400_000_000_000
		rows = append(rows, []any{ns, ns / 1_000_000 * 1000, ns})
	}
	rows = append(rows,
		[]any{int64(-1), int64(-1000), int64(-1)},
		[]any{int64(1_704_164_645_123_456_789), int64(1_704_164_645_123_000), int64(1)},
		[]any{int64(math.MaxInt64), int64(0), int64(math.MinInt64)},
		[]any{nil, nil, nil})
	rec := buildRec(t, s, rows)
	defer rec.Release()
	ts9 := &logical.ColumnRef{Index: 0, Name: "ts9", T: s[0].Type}
	ts3 := &logical.ColumnRef{Index: 1, Name: "ts3", T: s[1].Type}
	ltz9 := &logical.ColumnRef{Index: 2, Name: "ltz9", T: s[2].Type}
	for _, name := range []string{"YEAR", "QUARTER", "MONTH", "DAYOFMONTH", "DAYOFYEAR", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND"} {
		t.Run(name, func(t *testing.T) { checkAgainstOracle(t, mustCall(t, name, ts9), s, rec) })
	}
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		t.Run("ts9 "+op+" ts3", func(t *testing.T) { checkAgainstOracle(t, mustCall(t, op, ts9, ts3), s, rec) })
		t.Run("ts9 "+op+" ts9", func(t *testing.T) { checkAgainstOracle(t, mustCall(t, op, ts9, ltz9), s, rec) })
	}
	// Hand-computed: 2024-01-02 03:04:05.123456789 is after its millisecond
	// truncation, and its SECOND is 5.
	one := buildRec(t, s, [][]any{{int64(1_704_164_645_123_456_789), int64(1_704_164_645_123_000), nil}})
	defer one.Release()
	cases := []struct {
		e    logical.Expr
		want any
	}{
		{mustCall(t, ">", ts9, ts3), true},
		{mustCall(t, "=", ts9, ts3), false},
		{mustCall(t, "=", &logical.Cast{Arg: ts9, T: types.TimestampOf(3)}, ts3), true},
		{mustCall(t, "SECOND", ts9), int64(5)},
		{mustCall(t, "HOUR", ts9), int64(3)},
		{mustCall(t, "YEAR", ts9), int64(2024)},
	}
	for _, c := range cases {
		ev, err := Compile(c.e, s, testReg, testCtx)
		require.NoError(t, err)
		out, err := ev.Eval(one)
		require.NoError(t, err)
		require.Equal(t, c.want, types.GetValue(out, 0, c.e.Type()), "%s", c.e)
		out.Release()
	}
}
