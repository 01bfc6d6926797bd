package core

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBatchTwoPhaseExplain(t *testing.T) {
	tests := []struct {
		phase, query, want string
	}{
		{"TWO_PHASE", "EXPLAIN SELECT k, COUNT(*) AS c, SUM(v) AS s, AVG(v) AS a, MAX(v) AS m FROM src GROUP BY k",
			`HashAggregate(isMerge=[true], groupBy=[k], select=[k, Final_COUNT(count1$0) AS c, Final_SUM(sum$1) AS s, Final_AVG(sum$2, count$3) AS a, Final_MAX(max$4) AS m])
+- Exchange(distribution=[hash[k]])
   +- LocalHashAggregate(groupBy=[k], select=[k, Partial_COUNT(*) AS count1$0, Partial_SUM(v) AS sum$1, Partial_AVG(v) AS (sum$2, count$3), Partial_MAX(v) AS max$4])
      +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
		{"TWO_PHASE", "EXPLAIN SELECT DISTINCT k FROM src",
			`HashAggregate(isMerge=[true], groupBy=[k], select=[k])
+- Exchange(distribution=[hash[k]])
   +- LocalHashAggregate(groupBy=[k], select=[k])
      +- Calc(select=[k])
         +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
		{"TWO_PHASE", "EXPLAIN SELECT k, COUNT(DISTINCT v) AS c FROM src GROUP BY k",
			`HashAggregate(isMerge=[false], groupBy=[k], select=[k, COUNT(DISTINCT v) AS c])
+- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
		{"AUTO", "EXPLAIN SELECT k, COUNT(*) AS c FROM src GROUP BY k",
			`HashAggregate(isMerge=[false], groupBy=[k], select=[k, COUNT(*) AS c])
+- Calc(select=[k])
   +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])`},
	}
	for _, tt := range tests {
		e := NewTableEnvironment(InBatchMode())
		exec(t, e, "CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')")
		exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = '"+tt.phase+"'")
		require.Equal(t, tt.want, explainPhysical(t, exec(t, e, tt.query)), tt.query)
	}
}

// TestBatchTwoPhaseResults: two-phase batch aggregation gives the
// one-phase results.
func TestBatchTwoPhaseResults(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%d,%d,s%d,%d.%02d\n", int(r.ExpFloat64()*5)%40, r.IntN(1000)-200, r.IntN(30), r.IntN(100), r.IntN(100))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644))
	setup := []string{
		fmt.Sprintf("CREATE TABLE raw (k INT, v INT, s STRING, d DECIMAL(10, 2)) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", dir),
		"CREATE VIEW t AS SELECT k, CASE WHEN MOD(v, 7) = 0 THEN CAST(NULL AS INT) ELSE v END AS v, s, d, CAST(v AS DOUBLE) / 4 AS f FROM raw",
	}
	queries := []string{
		"SELECT k, COUNT(*) AS c, COUNT(v) AS cv, SUM(v) AS sv, AVG(v) AS av, MIN(v) AS lo, MAX(v) AS hi FROM t GROUP BY k",
		"SELECT k, s, MIN(s) AS lo, MAX(d) AS hi, SUM(f) AS sf, AVG(f) AS af, AVG(d) AS ad FROM t GROUP BY k, s",
		"SELECT k, COUNT(*) FILTER (WHERE s > 's5') AS c, MAX(v) FILTER (WHERE k > 3) AS m FROM t GROUP BY k",
		"SELECT DISTINCT k FROM t",
		"SELECT c, COUNT(*) AS n FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) GROUP BY c",
		"SELECT k FROM t WHERE v > 2000 GROUP BY k",
	}
	for _, q := range queries {
		var want []string
		for i, phase := range []string{"ONE_PHASE", "TWO_PHASE"} {
			for _, bs := range []string{"7", "4096"} {
				e := NewTableEnvironment(InBatchMode())
				exec(t, e, "SET 'table.exec.resource.default-parallelism' = '2'")
				for _, s := range setup {
					exec(t, e, s)
				}
				exec(t, e, "SET 'table.optimizer.agg-phase-strategy' = '"+phase+"'")
				exec(t, e, "SET 'tablerun.exec.batch-size' = '"+bs+"'")
				if phase == "TWO_PHASE" {
					require.Contains(t, explainPhysical(t, exec(t, e, "EXPLAIN "+q)), "LocalHashAggregate", q)
				}
				got := canon(exec(t, e, q).Rows())
				if i == 0 && want == nil {
					want = got
					continue
				}
				require.Equal(t, want, got, "%s %s: %s", phase, bs, q)
			}
		}
	}
}
