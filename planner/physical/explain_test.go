package physical

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestExplainDetails(t *testing.T) {
	p, err := Translate(&logical.Filter{Input: orders, Cond: call(">", types.BooleanT, ref(0, "a", intT), i32(1))})
	require.NoError(t, err)
	require.Equal(t,
		"Calc(select=[a, b, c], where=[>(a, 1)], changelogMode=[I]): rowcount = 2.5E7, cumulative cost = {1.25E8 rows, 1.25E8 cpu, 0.0 io, 0.0 network, 0.0 memory}\n"+
			"+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c], changelogMode=[I]): rowcount = 1.0E8, cumulative cost = {1.0E8 rows, 1.0E8 cpu, 0.0 io, 0.0 network, 0.0 memory}\n",
		ExplainWith(p, ExplainOptions{ChangelogMode: true, EstimatedCost: true}))
}

func TestJavaDouble(t *testing.T) {
	for in, want := range map[float64]string{0: "0.0", 1: "1.0", 100: "100.0", 1e8: "1.0E8", 2.5e7: "2.5E7", 0.25: "0.25", 1.25e-5: "1.25E-5"} {
		require.Equal(t, want, javaDouble(in))
	}
}

func TestExprStrings(t *testing.T) {
	names := []string{"a", "b"}
	a, b := ref(0, "a", intT), ref(1, "b", intT)
	cond := call("AND", types.BooleanT, call(">", types.BooleanT, a, i32(1)), call("IS NULL", types.BooleanT, b),
		call("<", types.BooleanT, call("NEGATE", intT, b), &logical.Cast{Arg: a, T: types.BigIntT}))
	require.Equal(t, "AND(>(a, 1), IS NULL(b), <(NEGATE(b), CAST(a AS BIGINT)))", ExprString(cond, names))
	require.Equal(t, "((a > 1) AND b IS NULL AND (-(b) < CAST(a AS BIGINT)))", ExecExprString(cond, names))
	require.Equal(t, "UPPER($5)", ExprString(call("UPPER", strT, ref(5, "x", strT)), names))
}

func TestLiteralStrings(t *testing.T) {
	cases := []struct {
		lit        *logical.Literal
		phys, exec string
	}{
		{lit(int32(10), intT), "10", "10"},
		{lit(int64(123), types.BigIntT.WithNullable(false)), "123:BIGINT", "123"},
		{lit("a", types.CharOf(1)), "_UTF-16LE'a'", "'a'"},
		{lit("it's", strT), `_UTF-16LE'it''s':VARCHAR(2147483647) CHARACTER SET "UTF-16LE"`, "'it''s'"},
		{lit(nil, types.BigIntT), "null:BIGINT", "null:BIGINT"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.phys, ExprString(tc.lit, nil))
		require.Equal(t, tc.exec, ExecExprString(tc.lit, nil))
	}
}
