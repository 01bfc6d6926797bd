package core

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJoinReorderBatchOnly: with table.optimizer.join-reorder-enabled the
// batch plan of a FROM list that starts with a cross join of two small
// tables joins the large one first; off (Flink's default), and in
// streaming mode, the written order stays.
func TestJoinReorderBatchOnly(t *testing.T) {
	const q = "EXPLAIN SELECT d1.n1, f.v FROM d1, d2, f WHERE f.k1 = d1.k1 AND f.k2 = d2.k2"
	setup := func(e *TableEnvironment, reorder string) {
		exec(t, e, "CREATE TABLE f (k1 INT, k2 INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000')")
		exec(t, e, "CREATE TEMPORARY VIEW d1(k1, n1) AS VALUES (1, 'a'), (2, 'b')")
		exec(t, e, "CREATE TEMPORARY VIEW d2(k2) AS VALUES (1), (2), (3)")
		exec(t, e, "SET 'table.optimizer.join-reorder-enabled' = '"+reorder+"'")
	}
	on := NewTableEnvironment(InBatchMode())
	setup(on, "true")
	plan := explainPhysical(t, exec(t, on, q))
	require.NotContains(t, plan, "NestedLoopJoin", plan)
	require.Less(t, strings.Index(plan, "TableSourceScan"), strings.Index(plan, "Values"), "f (no statistics: 10^8 rows) probes first:\n%s", plan)

	off := NewTableEnvironment(InBatchMode())
	setup(off, "false")
	require.Contains(t, explainPhysical(t, exec(t, off, q)), "NestedLoopJoin", "the FROM order joins d1 × d2 first")

	stream := NewTableEnvironment(InStreamingMode())
	setup(stream, "true")
	p := explainPhysical(t, exec(t, stream, q))
	require.Less(t, strings.Index(p, "Values"), strings.Index(p, "TableSourceScan"), "streaming keeps the FROM order:\n%s", p)
}
