package core

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/physical"
)

const seqTable = `CREATE TEMPORARY TABLE g (k BIGINT) WITH (
  'connector' = 'datagen', 'fields.k.kind' = 'sequence',
  'fields.k.start' = '1', 'fields.k.end' = '10000')`

func TestExplainAnalyze(t *testing.T) {
	e := newEnv(t)
	exec(t, e, seqTable)
	exec(t, e, "SET 'tablerun.exec.batch-size' = '1000'")
	text := printed(t, exec(t, e, "EXPLAIN ANALYZE SELECT k % 100 AS m, COUNT(*) AS c FROM g GROUP BY k % 100"))
	require.Contains(t, text, "== Physical Plan With Runtime Statistics ==")
	lines := strings.Split(text, "\n")
	find := func(prefix string) string {
		for _, l := range lines {
			if strings.Contains(l, prefix) {
				return l
			}
		}
		t.Fatalf("no %q line in\n%s", prefix, text)
		return ""
	}
	require.Contains(t, find("HashAggregate("), "[rows in=10000 out=100, batches in=10 out=1,")
	require.Contains(t, find("HashAggregate("), "state=")
	require.Contains(t, find("TableSourceScan("), "[rows out=10000, batches out=10")
	require.Contains(t, find("+- Calc("), "rows in=10000 out=10000")
	t.Log(text)

	_, err := e.ExecuteSQL(context.Background(), "EXPLAIN ANALYZE PLAN FOR SELECT 1")
	require.ErrorContains(t, err, "not supported yet")
}

func TestExecuteWithStatsSpill(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	exec(t, e, seqTable)
	exec(t, e, "SET 'tablerun.exec.spill.memory-budget' = '32kb'")
	exec(t, e, "SET 'io.tmp.dirs' = '"+dir+"'")
	tbl, err := e.SQLQuery("SELECT m, c FROM (SELECT k % 5000 AS m, COUNT(*) AS c FROM g GROUP BY k % 5000) ORDER BY c, m LIMIT 3")
	require.NoError(t, err)
	res, an, err := tbl.ExecuteWithStats(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(0), int64(2)}, {int32(1), int64(2)}, {int32(2), int64(2)}}, res.Rows())
	var agg physical.Node
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		if n.Name() == "HashAggregate" {
			agg = n
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(an.Plan)
	require.NotNil(t, agg)
	st := an.Stats.Node(agg)
	require.Equal(t, int64(10000), st.RowsIn)
	require.Equal(t, int64(5000), st.RowsOut)
	require.Positive(t, st.Op.SpillCount)
	require.Positive(t, st.Op.SpillBytes)
	require.Contains(t, an.String(), "spilled=")
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, es, "spill files left behind")

	// The same query without a budget gives the same rows.
	exec(t, e, "RESET 'tablerun.exec.spill.memory-budget'")
	res2, err := tbl.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, res.Rows(), res2.Rows())
}

// TestExplainAnalyzeStreaming runs a bounded streaming aggregation with
// statistics: the streaming nodes print Flink's attributes and their
// counts, and the Go API returns the changelog.
func TestExplainAnalyzeStreaming(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, strings.Replace(seqTable, "'connector' = 'datagen',", "'connector' = 'datagen', 'rows-per-second' = '10000000',", 1))
	exec(t, e, "SET 'tablerun.exec.batch-size' = '1000'")
	exec(t, e, "SET 'table.exec.resource.default-parallelism' = '2'")
	text := printed(t, exec(t, e, "EXPLAIN ANALYZE SELECT k % 3 AS m, COUNT(*) AS c FROM g GROUP BY k % 3"))
	require.Contains(t, text, "GroupAggregate(groupBy=[$f0], select=[$f0, COUNT(*) AS c])  [rows in=10000 out=19997")
	require.Contains(t, text, "Exchange(distribution=[hash[$f0]])  [rows in=10000 out=10000")

	tbl, err := e.SQLQuery("SELECT k % 3 AS m, COUNT(*) AS c FROM g GROUP BY k % 3")
	require.NoError(t, err)
	res, an, err := tbl.ExecuteWithStats(context.Background())
	require.NoError(t, err)
	require.True(t, res.IsStreaming())
	require.Equal(t, []string{"[0 3333]", "[1 3334]", "[2 3333]"}, materializeChanges(t, "stats", res))
	require.NotNil(t, an.Stats)
}
