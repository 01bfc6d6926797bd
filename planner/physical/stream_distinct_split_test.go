package physical

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestDistinctSplit(t *testing.T) {
	bigint := types.BigIntT.WithNullable(false)
	cntB := logical.AggCall{Name: "COUNT", Args: []int{1}, Distinct: true, Filter: -1, T: bigint, Alias: "db"}
	cntA := logical.AggCall{Name: "COUNT", Args: []int{0}, Distinct: true, Filter: -1, T: bigint, Alias: "da"}
	sumB := logical.AggCall{Name: "SUM", Args: []int{1}, Filter: -1, T: intT, Alias: "sb"}
	avgB := logical.AggCall{Name: "AVG", Args: []int{1}, Filter: -1, T: intT, Alias: "ab"}
	cntC := logical.AggCall{Name: "COUNT", Args: []int{2}, Distinct: true, Filter: -1, T: bigint, Alias: "dc"}
	agg := func(keys []int, calls ...logical.AggCall) *logical.Aggregate {
		var out types.Schema
		for _, k := range keys {
			out = append(out, ordersT.PhysicalSchema()[k])
		}
		for _, c := range calls {
			out = append(out, field(c.Alias, c.T))
		}
		return &logical.Aggregate{Input: orders, GroupKeys: keys, Aggs: calls, Out: out}
	}
	on := StreamOptions{DistinctSplit: DistinctSplitOptions{Enabled: true, BucketNum: 16}}
	cases := []struct {
		name string
		in   *logical.Aggregate
		opts StreamOptions
		want string
	}{
		{"off", agg([]int{2}, cntB), StreamOptions{}, "GroupAggregate(groupBy=[c], select=[c, COUNT(DISTINCT b) AS db])\n" +
			"+- Exchange(distribution=[hash[c]])\n" +
			"   +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
		{"one distinct key", agg([]int{2}, cntB, sumB), on, "GroupAggregate(groupBy=[c], partialFinalType=[FINAL], select=[c, $SUM0_RETRACT($f3_0) AS db, SUM_RETRACT($f3_1) AS sb])\n" +
			"+- Exchange(distribution=[hash[c]])\n" +
			"   +- GroupAggregate(groupBy=[c, $f3], partialFinalType=[PARTIAL], select=[c, $f3, COUNT(DISTINCT b) AS $f3_0, SUM(b) AS $f3_1])\n" +
			"      +- Exchange(distribution=[hash[c, $f3]])\n" +
			"         +- Calc(select=[a, b, c, MOD(HASH_CODE(b), 16) AS $f3])\n" +
			"            +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
		{"two distinct keys", agg(nil, cntB, cntA), on, "GroupAggregate(partialFinalType=[FINAL], select=[$SUM0_RETRACT($f3_0) AS db, $SUM0_RETRACT($f4_1) AS da])\n" +
			"+- Exchange(distribution=[single])\n" +
			"   +- GroupAggregate(groupBy=[$f3, $f4, $e], partialFinalType=[PARTIAL], select=[$f3, $f4, $e, COUNT(DISTINCT b) FILTER $g_0 AS $f3_0, COUNT(DISTINCT a) FILTER $g_1 AS $f4_1])\n" +
			"      +- Exchange(distribution=[hash[$f3, $f4, $e]])\n" +
			"         +- Expand(projects=[{a, b, c, $f3, null AS $f4, 1 AS $e, true AS $g_0, false AS $g_1}, {a, b, c, null AS $f3, $f4, 2 AS $e, false AS $g_0, true AS $g_1}])\n" +
			"            +- Calc(select=[a, b, c, MOD(HASH_CODE(b), 16) AS $f3, MOD(HASH_CODE(a), 16) AS $f4])\n" +
			"               +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
		{"AVG does not split", agg([]int{2}, cntB, avgB), on, "GroupAggregate(groupBy=[c], select=[c, COUNT(DISTINCT b) AS db, AVG(b) AS ab])\n" +
			"+- Exchange(distribution=[hash[c]])\n" +
			"   +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
		{"a string distinct key splits by HASH_CODE", agg([]int{0}, cntC), on, "GroupAggregate(groupBy=[a], partialFinalType=[FINAL], select=[a, $SUM0_RETRACT($f3_0) AS dc])\n" +
			"+- Exchange(distribution=[hash[a]])\n" +
			"   +- GroupAggregate(groupBy=[a, $f3], partialFinalType=[PARTIAL], select=[a, $f3, COUNT(DISTINCT c) AS $f3_0])\n" +
			"      +- Exchange(distribution=[hash[a, $f3]])\n" +
			"         +- Calc(select=[a, b, c, MOD(HASH_CODE(c), 16) AS $f3])\n" +
			"            +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
		{"string and integer distinct keys", agg(nil, cntC, cntB), on, "GroupAggregate(partialFinalType=[FINAL], select=[$SUM0_RETRACT($f3_0) AS dc, $SUM0_RETRACT($f4_1) AS db])\n" +
			"+- Exchange(distribution=[single])\n" +
			"   +- GroupAggregate(groupBy=[$f3, $f4, $e], partialFinalType=[PARTIAL], select=[$f3, $f4, $e, COUNT(DISTINCT c) FILTER $g_0 AS $f3_0, COUNT(DISTINCT b) FILTER $g_1 AS $f4_1])\n" +
			"      +- Exchange(distribution=[hash[$f3, $f4, $e]])\n" +
			"         +- Expand(projects=[{a, b, c, $f3, null AS $f4, 1 AS $e, true AS $g_0, false AS $g_1}, {a, b, c, null AS $f3, $f4, 2 AS $e, false AS $g_0, true AS $g_1}])\n" +
			"            +- Calc(select=[a, b, c, MOD(HASH_CODE(c), 16) AS $f3, MOD(HASH_CODE(b), 16) AS $f4])\n" +
			"               +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := TranslateStream(tc.in, testEnv(), tc.opts)
			require.NoError(t, err)
			require.Equal(t, tc.want, ExplainStream(p, ExplainOptions{}))
			require.Equal(t, tc.in.Out, p.Schema())
			checkSchemas(t, p)
		})
	}
}

// checkSchemas verifies that every column a node reads exists in its
// input: group keys, call arguments and filters, exchange keys, and the
// width of an Expand's projections.
func checkSchemas(t *testing.T, n Node) {
	t.Helper()
	switch x := n.(type) {
	case *GroupAggregate:
		in := len(x.Input.Schema())
		for _, k := range x.GroupKeys {
			require.Less(t, k, in)
		}
		for _, a := range x.Aggs {
			for _, c := range a.Args {
				require.Less(t, c, in)
			}
			require.Less(t, a.Filter, in)
		}
		require.Len(t, x.Out, len(x.GroupKeys)+len(x.Aggs))
	case *Exchange:
		for _, k := range x.Keys {
			require.Less(t, k, len(x.Input.Schema()))
		}
	case *Expand:
		for _, p := range x.Projects {
			require.Len(t, p, len(x.Out))
			for i, e := range p {
				require.Equal(t, x.Out[i].Type.Kind, e.Type().Kind)
			}
		}
	}
	for _, c := range n.Children() {
		checkSchemas(t, c)
	}
}
