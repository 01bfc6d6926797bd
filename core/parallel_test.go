package core

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parallelModes are the execution modes every streaming operator must
// agree in: one and two instances of each parallel node, with batches of
// one row and of the default size. The mini-batch modes add bundles and
// the local/global split on top.
var parallelModes = []struct {
	name string
	sets []string
}{
	{"p1-default", []string{"SET 'table.exec.resource.default-parallelism' = '1'"}},
	{"p2-default", []string{"SET 'table.exec.resource.default-parallelism' = '2'"}},
	{"p1-batch1", []string{"SET 'table.exec.resource.default-parallelism' = '1'", "SET 'tablerun.exec.batch-size' = '1'"}},
	{"p2-batch1", []string{"SET 'table.exec.resource.default-parallelism' = '2'", "SET 'tablerun.exec.batch-size' = '1'"}},
	{"p2-minibatch-two-phase", []string{
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '1 s'",
		"SET 'table.exec.mini-batch.size' = '100'",
		"SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
	}},
}

// operatorQueries exercise every streaming operator over two bounded
// tables with event time: group aggregation (with and without keys, with
// DISTINCT and over an updating input), joins of every kind, Top-N,
// deduplication, OVER, the four window TVFs with window aggregation,
// legacy group windows, UNION ALL and a UNNEST.
var operatorQueries = map[string]string{
	"group":           "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM a GROUP BY k",
	"group-global":    "SELECT COUNT(*), SUM(v) FROM a",
	"group-distinct":  "SELECT k, COUNT(DISTINCT v), SUM(DISTINCT v) FROM a GROUP BY k",
	"group-updating":  "SELECT c, COUNT(*) FROM (SELECT k, COUNT(*) AS c FROM a GROUP BY k) GROUP BY c",
	"group-minmax-rt": "SELECT c, MIN(k), MAX(k) FROM (SELECT k, COUNT(*) AS c FROM a GROUP BY k) GROUP BY c",
	"join-inner":      "SELECT a.k, a.v, b.w FROM a JOIN b ON a.k = b.k",
	"join-left":       "SELECT a.k, a.v, b.w FROM a LEFT JOIN b ON a.k = b.k AND b.w > 3",
	"join-full":       "SELECT a.k, b.k, a.v, b.w FROM a FULL JOIN b ON a.k = b.k AND a.v < b.w",
	"join-agg":        "SELECT x.k, x.c, y.s FROM (SELECT k, COUNT(*) AS c FROM a GROUP BY k) x JOIN (SELECT k, SUM(w) AS s FROM b GROUP BY k) y ON x.k = y.k",
	"join-nokeys":     "SELECT COUNT(*) FROM a JOIN b ON a.v < b.w",
	"topn":            `SELECT * FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, ts) AS rn FROM a) WHERE rn <= 2`,
	"dedup":           `SELECT k, v, ts FROM (SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM a) WHERE rn = 1`,
	"over":            `SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM a`,
	"tumble":          `SELECT k, window_start, window_end, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
	"hop":             `SELECT k, window_start, COUNT(*) FROM TABLE(HOP(TABLE a, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end`,
	"cumulate":        `SELECT window_start, window_end, SUM(v) FROM TABLE(CUMULATE(TABLE a, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end`,
	"session":         `SELECT k, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE a PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end`,
	"legacy-tumble":   `SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND), COUNT(*) FROM a GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)`,
	"union":           `SELECT k, COUNT(*) FROM (SELECT k FROM a UNION ALL SELECT k FROM b) GROUP BY k`,
}

// operatorTables returns the DDL of the two tables: a of n rows (keys
// 0..12, event time one second apart with some disorder), b of n/2.
func operatorTables(n int) []string {
	return []string{
		fmt.Sprintf(`CREATE TABLE a (k INT, v INT, tags STRING, ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 1000 - MOD(id * 7, 5) * 1000, 3), id BIGINT,
			WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '%d',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
			'fields.k.min' = '0', 'fields.k.max' = '12', 'fields.v.min' = '0', 'fields.v.max' = '9', 'fields.tags.length' = '3')`, n, n),
		fmt.Sprintf(`CREATE TABLE b (k INT, w INT) WITH ('connector' = 'datagen', 'number-of-rows' = '%d',
			'fields.k.min' = '0', 'fields.k.max' = '15', 'fields.w.min' = '0', 'fields.w.max' = '9')`, n/2),
	}
}

// TestStreamingOperatorsAgreeAcrossParallelism runs every streaming
// operator in every parallel mode and checks that the materialized
// results are identical.
func TestStreamingOperatorsAgreeAcrossParallelism(t *testing.T) {
	ddl := operatorTables(400)
	for name, q := range operatorQueries {
		t.Run(name, func(t *testing.T) {
			var want []string
			for _, m := range parallelModes {
				env := NewTableEnvironment(InStreamingMode())
				for _, s := range append(append([]string{}, ddl...), m.sets...) {
					exec(t, env, s)
				}
				res, err := env.ExecuteSQL(context.Background(), q)
				require.NoError(t, err, m.name)
				got := materializeChanges(t, m.name, res)
				require.NotEmpty(t, got, m.name)
				if want == nil {
					want = got
					continue
				}
				require.Equal(t, want, got, "%s differs from %s", m.name, parallelModes[0].name)
			}
		})
	}
}

// TestParallelPlanRunsInstances checks that parallelism 2 really runs two
// instances: the print sink prefixes its lines with the subtask, and both
// subtasks receive keys.
func TestParallelPlanRunsInstances(t *testing.T) {
	var out strings.Builder
	env := NewTableEnvironment(InStreamingMode())
	env.SetOutput(&out, &out)
	for _, s := range append(operatorTables(200),
		"CREATE TABLE p (k INT, c BIGINT) WITH ('connector' = 'print')",
		"SET 'table.exec.resource.default-parallelism' = '2'") {
		exec(t, env, s)
	}
	_, err := env.ExecuteSQL(context.Background(), "INSERT INTO p SELECT k, COUNT(*) FROM a GROUP BY k")
	require.NoError(t, err)
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		prefix, _, ok := strings.Cut(line, "> ")
		require.True(t, ok, line)
		seen[prefix]++
	}
	require.Len(t, seen, 2, "both subtasks print")
	require.Positive(t, seen["1"])
	require.Positive(t, seen["2"])
}

// TestNexmarkParallelMatchesBatch runs the Nexmark queries at parallelism
// 2 and checks the materialized changelog against batch mode.
func TestNexmarkParallelMatchesBatch(t *testing.T) {
	for _, q := range []string{"q1", "q3", "q4", "q5", "q7", "q8", "q9", "q11", "q15", "q16", "q17", "q18", "q19", "q20", "q23"} {
		t.Run(q, func(t *testing.T) {
			stmts := nexmarkScript(t, q, 3000)
			for i, s := range stmts {
				stmts[i] = strings.ReplaceAll(s, "'10000000'", "'100'") // 30 s of event time
			}
			batch := NewTableEnvironment(InBatchMode())
			query := runNexmark(t, batch, stmts)
			res, err := batch.ExecuteSQL(context.Background(), query)
			require.NoError(t, err)
			want := canon(res.Rows())
			for _, bs := range []string{"4096", "7"} {
				stream := NewTableEnvironment(InStreamingMode())
				exec(t, stream, "SET 'table.exec.resource.default-parallelism' = '2'")
				exec(t, stream, "SET 'tablerun.exec.batch-size' = '"+bs+"'")
				runNexmark(t, stream, stmts)
				res, err = stream.ExecuteSQL(context.Background(), query)
				require.NoError(t, err)
				if len(want) == 0 {
					require.Empty(t, materializeChanges(t, q, res))
					continue
				}
				streamMatches(t, q+"/p2/batch-size="+bs, res, want)
			}
		})
	}
}

// materializeChanges applies a changelog and returns the live rows, sorted; a
// retraction of a row that is not there fails the test.
func materializeChanges(t *testing.T, mode string, res *TableResult) []string {
	t.Helper()
	live := map[string]int{}
	for k, row := range res.Changes() {
		key := fmt.Sprintf("%v", row)
		if k.IsRetraction() {
			require.Positive(t, live[key], "%s: retracting a row that is not there: %s", mode, key)
			live[key]--
		} else {
			live[key]++
		}
	}
	require.NoError(t, res.Err(), mode)
	var got []string
	for k, c := range live {
		for range c {
			got = append(got, k)
		}
	}
	return canon1(got)
}

func canon1(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
