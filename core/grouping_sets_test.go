package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// execPlan returns the Optimized Execution Plan of EXPLAIN sql.
func execPlan(t *testing.T, e *TableEnvironment, sql string) string {
	t.Helper()
	plan := fmt.Sprint(exec(t, e, "EXPLAIN "+sql).Rows()[0][0])
	i := strings.Index(plan, "== Optimized Execution Plan ==")
	require.GreaterOrEqual(t, i, 0, plan)
	return plan[i:]
}

// Flink's GroupingSetsTest.testCube: the Expand with $e numbered by the
// keys a set leaves out, the aggregate grouped by the keys and $e, and
// GROUPING / GROUPING_ID as CASE over $e (simplified as Calcite does).
func TestGroupingSetsExplainBatch(t *testing.T) {
	e := NewTableEnvironment(InBatchMode())
	exec(t, e, "CREATE TABLE MyTable (a INT, b BIGINT, c STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	plan := execPlan(t, e, `SELECT b, c, AVG(a) AS a, GROUP_ID() AS g, GROUPING(b) AS gb, GROUPING(c) AS gc,
    GROUPING_ID(b) AS gib, GROUPING_ID(c) AS gic, GROUPING_ID(b, c) AS gid
FROM MyTable GROUP BY CUBE (b, c)`)
	require.Contains(t, plan, "Calc(select=[b, c, a, 0 AS g, CASE(SEARCH($e, Sarg[0, 1]), 0, 1) AS gb, CASE(($e = 0), 0, ($e = 1), 1, ($e = 2), 0, 1) AS gc, "+
		"CASE(SEARCH($e, Sarg[0, 1]), 0, 1) AS gib, CASE(($e = 0), 0, ($e = 1), 1, ($e = 2), 0, 1) AS gic, CASE(($e = 0), 0, ($e = 1), 1, ($e = 2), 2, 3) AS gid])", plan)
	require.Contains(t, plan, "groupBy=[b, c, $e]", plan)
	// Flink's AggregateProjectMergeRule drops the Calc that puts the keys
	// first, so its Expand reads {a, b, c, …}; tablerun keeps that Calc
	require.Contains(t, plan, "Expand(projects=[{b, c, a, 0 AS $e}, {b, null AS c, a, 1 AS $e}, {null AS b, c, a, 2 AS $e}, {null AS b, null AS c, a, 3 AS $e}])", plan)

	// one grouping set is a plain aggregate; GROUPING is the constant 0
	plan = execPlan(t, e, "SELECT b, AVG(a) AS a, GROUPING(b) AS gb FROM MyTable GROUP BY GROUPING SETS (b)")
	require.NotContains(t, plan, "Expand", plan)
	require.Contains(t, plan, "0 AS gb", plan)
}

// Flink's WindowAggregateTest.testHop_Rollup shape: the window function is
// merged into the WindowAggregate and the Expand sits below it, over the
// window function's input, with the time column last.
func TestGroupingSetsExplainWindow(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, "CREATE TABLE MyTable (a INT, b BIGINT, c STRING, rowtime TIMESTAMP(3), WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	plan := execPlan(t, e, `SELECT a, b, COUNT(DISTINCT c) AS uv
FROM TABLE(HOP(TABLE MyTable, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
GROUP BY ROLLUP (a, b), window_start, window_end`)
	require.Contains(t, plan, "WindowAggregate(groupBy=[a, b, $e], window=[HOP(time_col=[rowtime], size=[10 min], slide=[5 min])], select=[a, b, $e, COUNT(DISTINCT c) AS uv, start('w$) AS window_start, end('w$) AS window_end])", plan)
	require.Contains(t, plan, "Exchange(distribution=[hash[a, b, $e]])", plan)
	require.Contains(t, plan, "Expand(projects=[{a, b, c, 0 AS $e, rowtime}, {a, null AS b, c, 4 AS $e, rowtime}, {null AS a, null AS b, c, 12 AS $e, rowtime}])", plan)

	// a set without window_end is not a window aggregation
	plan = execPlan(t, e, `SELECT a, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE MyTable, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE))
GROUP BY window_start, GROUPING SETS ((a, window_end), (a))`)
	require.Contains(t, plan, "GroupAggregate(", plan)
	require.NotContains(t, plan, "WindowAggregate(", plan)
}
