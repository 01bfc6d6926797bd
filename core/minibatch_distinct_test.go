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

// TestDistinctTwoPhaseVerification runs DISTINCT aggregates — several
// calls sharing a distinct column under different FILTERs, several
// arguments, strings (encoded values) and fixed-width keys, DECIMAL and
// DOUBLE, NULLs — in two phases (LocalGroupAggregate ships the bundle's
// distinct values, GlobalGroupAggregate merges them) at parallelism 1 and
// 2 with several bundle and batch sizes: the final results equal
// per-record aggregation.
func TestDistinctTwoPhaseVerification(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 4))
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		k := int(r.ExpFloat64()*4) % 30 // skewed keys
		fmt.Fprintf(&b, "%d,%d,s%d,%d.%d\n", k, r.IntN(60)-10, r.IntN(40), r.IntN(20), r.IntN(10))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644))
	setup := []string{
		fmt.Sprintf("CREATE TABLE raw (k INT, v INT, s STRING, d DECIMAL(10, 1)) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", dir),
		"CREATE VIEW t AS SELECT k, CASE WHEN MOD(v, 9) = 0 THEN CAST(NULL AS INT) ELSE v END AS v, CASE WHEN MOD(v, 11) = 0 THEN CAST(NULL AS STRING) ELSE s END AS s, d, CAST(v AS DOUBLE) / 4 AS f FROM raw",
	}
	queries := []string{
		"SELECT k, COUNT(DISTINCT s) AS a, COUNT(DISTINCT s) FILTER (WHERE v > 20) AS b, SUM(DISTINCT v) AS c, SUM(DISTINCT v) FILTER (WHERE s < 's2') AS e, COUNT(*) AS n FROM t GROUP BY k",
		"SELECT k, AVG(DISTINCT d) AS a, MIN(DISTINCT f) AS lo, MAX(DISTINCT s) AS hi, COUNT(DISTINCT v, s) AS vs, SUM(v) AS sv FROM t GROUP BY k",
		"SELECT COUNT(DISTINCT v) AS a, COUNT(DISTINCT s) FILTER (WHERE k < 5) AS b, AVG(DISTINCT f) AS c FROM t",
		"SELECT a, COUNT(*) AS n FROM (SELECT k, COUNT(DISTINCT v) AS a FROM t GROUP BY k) GROUP BY a",
	}
	type mode struct {
		name string
		sets []string
	}
	modes := []mode{{name: "per-record"}}
	for _, size := range []string{"1", "64", "100000"} {
		for _, p := range []string{"1", "2"} {
			for _, bs := range []string{"7", "4096"} {
				modes = append(modes, mode{name: "size-" + size + "/p" + p + "/batch-" + bs, sets: []string{
					"'table.exec.mini-batch.enabled' = 'true'",
					"'table.exec.mini-batch.allow-latency' = '10 s'",
					"'table.exec.mini-batch.size' = '" + size + "'",
					"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
					"'table.exec.resource.default-parallelism' = '" + p + "'",
					"'tablerun.exec.batch-size' = '" + bs + "'",
				}})
			}
		}
	}
	for qi, q := range queries {
		var want []string
		for mi, m := range modes {
			e, _ := newStreamEnv(t)
			for _, s := range setup {
				exec(t, e, s)
			}
			for _, s := range m.sets {
				exec(t, e, "SET "+s)
			}
			if mi > 0 {
				plan := fmt.Sprint(exec(t, e, "EXPLAIN "+q).Rows()[0][0])
				require.Contains(t, plan, "DISTINCT(", "the DISTINCT calls run in two phases: %s", q)
			}
			got, _ := materialize(t, exec(t, e, q))
			if mi == 0 {
				want = got
				require.NotEmpty(t, want, q)
				continue
			}
			require.Equal(t, want, got, "query %d in mode %s: %s", qi, m.name, q)
		}
	}
}
