package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Flink's stream SetOperatorsTest plans: INTERSECT / EXCEPT as a semi /
// anti Join on IS NOT DISTINCT FROM under a GroupAggregate, the ALL forms
// as a Union with markers, a GroupAggregate, and a Correlate of
// ReplicateRows; NOT IN as an anti Join on OR(=, IS NULL(=)). (tablerun's
// validator names the right side's columns after the left's — f AS c —
// where Flink keeps f.)
func TestSetOpsExplainStream(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, "CREATE TABLE T1 (a INT, b BIGINT, c STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	exec(t, e, "CREATE TABLE T2 (d INT, e BIGINT, f STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
	plan := execPlan(t, e, "SELECT c FROM T1 INTERSECT SELECT f FROM T2")
	require.Contains(t, plan, "GroupAggregate(groupBy=[c], select=[c])\n+- Exchange(distribution=[hash[c]])\n"+
		"   +- Join(joinType=[LeftSemiJoin], where=[IS NOT DISTINCT FROM(c, c0)], select=[c], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])", plan)
	plan = execPlan(t, e, "SELECT a, b FROM T1 EXCEPT SELECT d, e FROM T2")
	require.Contains(t, plan, "Join(joinType=[LeftAntiJoin], where=[(((a = a0) OR (a IS NULL AND a0 IS NULL)) AND ((b = b0) OR (b IS NULL AND b0 IS NULL)))], select=[a, b]", plan)
	plan = execPlan(t, e, "SELECT c FROM T1 INTERSECT ALL SELECT f FROM T2")
	for _, line := range []string{
		"Calc(select=[c0 AS c])",
		"Calc(select=[IF((vcol_left_cnt > vcol_right_cnt), vcol_right_cnt, vcol_left_cnt) AS $f0, c], where=[((vcol_left_cnt >= 1) AND (vcol_right_cnt >= 1))])",
		"GroupAggregate(groupBy=[c], select=[c, COUNT(vcol_left_marker) AS vcol_left_cnt, COUNT(vcol_right_marker) AS vcol_right_cnt])",
		"Union(all=[true], union=[c, vcol_left_marker, vcol_right_marker])",
		"Calc(select=[c, true AS vcol_left_marker, null:BOOLEAN AS vcol_right_marker])",
		"Calc(select=[f AS c, null:BOOLEAN AS vcol_left_marker, true AS vcol_right_marker])",
	} {
		require.Contains(t, plan, line, plan)
	}
	plan = execPlan(t, e, "SELECT c FROM T1 EXCEPT ALL SELECT f FROM T2")
	for _, line := range []string{
		"Calc(select=[sum_vcol_marker, c], where=[(sum_vcol_marker > 0)])",
		"GroupAggregate(groupBy=[c], select=[c, SUM(vcol_marker) AS sum_vcol_marker])",
		"Calc(select=[c, 1 AS vcol_marker])",
		"Calc(select=[f AS c, -1 AS vcol_marker])",
	} {
		require.Contains(t, plan, line, plan)
	}
	plan = execPlan(t, e, "SELECT a FROM T1 WHERE a NOT IN (SELECT d FROM T2)")
	require.Contains(t, plan, "Join(joinType=[LeftAntiJoin], where=[((a = d) OR (a = d) IS NULL)], select=[a]", plan)
	require.Contains(t, plan, "Exchange(distribution=[single])", plan)
}
