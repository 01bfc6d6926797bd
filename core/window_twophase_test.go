package core

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWindowTwoPhaseExplain(t *testing.T) {
	mb := []string{
		"'table.exec.mini-batch.enabled' = 'true'",
		"'table.exec.mini-batch.allow-latency' = '1 s'",
		"'table.exec.mini-batch.size' = '1000'",
	}
	const q = `EXPLAIN SELECT window_start, window_end, k, COUNT(*) AS c, SUM(v) AS s, AVG(v) AS a, MAX(v) AS m
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, k`
	tests := []struct {
		name  string
		sets  []string
		query string
		want  string
	}{
		{"mini-batch auto", mb, q, `Calc(select=[window_start, window_end, k, c, s, a, m])
+- GlobalWindowAggregate(groupBy=[k], window=[TUMBLE(slice_end=[$slice_end], size=[10 s])], select=[k, COUNT(count1$0) AS c, SUM(sum$1) AS s, AVG((sum$2, count$3)) AS a, MAX(max$4) AS m, start('w$) AS window_start, end('w$) AS window_end])
   +- Exchange(distribution=[hash[k]])
      +- LocalWindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[ts], size=[10 s])], select=[k, COUNT(*) AS count1$0, SUM(v) AS sum$1, AVG(v) AS (sum$2, count$3), MAX(v) AS max$4, slice_end('w$) AS $slice_end])
         +- MiniBatchAssigner(interval=[1000ms], mode=[RowTime])
            +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
               +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])`},
		{"mini-batch one phase", append(append([]string{}, mb...), "'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'"), q, `Calc(select=[window_start, window_end, k, c, s, a, m])
+- WindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[ts], size=[10 s])], select=[k, COUNT(*) AS c, SUM(v) AS s, AVG(v) AS a, MAX(v) AS m, start('w$) AS window_start, end('w$) AS window_end])
   +- Exchange(distribution=[hash[k]])
      +- MiniBatchAssigner(interval=[1000ms], mode=[RowTime])
         +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
            +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])`},
		{"two phase without mini-batch", []string{"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'"},
			"EXPLAIN SELECT window_start, window_end, MIN(v) AS lo, window_time FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, window_time",
			`Calc(select=[window_start, window_end, lo, window_time])
+- GlobalWindowAggregate(window=[HOP(slice_end=[$slice_end], size=[10 s], slide=[5 s])], select=[MIN(min$0) AS lo, start('w$) AS window_start, end('w$) AS window_end, rowtime('w$) AS window_time])
   +- Exchange(distribution=[single])
      +- LocalWindowAggregate(window=[HOP(time_col=[ts], size=[10 s], slide=[5 s])], select=[MIN(v) AS min$0, slice_end('w$) AS $slice_end])
         +- Calc(select=[v, ts])
            +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
               +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])`},
		{"auto without mini-batch stays one phase", nil, q, `Calc(select=[window_start, window_end, k, c, s, a, m])
+- WindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[ts], size=[10 s])], select=[k, COUNT(*) AS c, SUM(v) AS s, AVG(v) AS a, MAX(v) AS m, start('w$) AS window_start, end('w$) AS window_end])
   +- Exchange(distribution=[hash[k]])
      +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
         +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])`},
		{"distinct", mb, `EXPLAIN SELECT window_start, window_end, k, COUNT(DISTINCT v) AS d
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end, k`, `Calc(select=[window_start, window_end, k, d])
+- GlobalWindowAggregate(groupBy=[k], window=[CUMULATE(slice_end=[$slice_end], max_size=[20 s], step=[5 s])], select=[k, COUNT(distinct$0 count$0) AS d, start('w$) AS window_start, end('w$) AS window_end])
   +- Exchange(distribution=[hash[k]])
      +- LocalWindowAggregate(groupBy=[k], window=[CUMULATE(time_col=[ts], max_size=[20 s], step=[5 s])], select=[k, COUNT(distinct$0 v) AS count$0, DISTINCT(v) AS distinct$0, slice_end('w$) AS $slice_end])
         +- MiniBatchAssigner(interval=[1000ms], mode=[RowTime])
            +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
               +- TableSourceScan(table=[[default_catalog, default_database, t]], fields=[k, v, ts])`},
		{"group aggregate over a watermarked table", mb, "EXPLAIN SELECT k, COUNT(*) AS c FROM t GROUP BY k", `GlobalGroupAggregate(groupBy=[k], select=[k, COUNT(count1$0) AS c])
+- Exchange(distribution=[hash[k]])
   +- LocalGroupAggregate(groupBy=[k], select=[k, COUNT(*) AS count1$0])
      +- Calc(select=[k])
         +- MiniBatchAssigner(interval=[1000ms], mode=[ProcTime])
            +- WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])
               +- TableSourceScan(table=[[default_catalog, default_database, t, project=[k, ts]]], fields=[k, ts])`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := windowEnv(t, true)
			for _, s := range tt.sets {
				exec(t, e, "SET "+s)
			}
			require.Equal(t, tt.want, explainPhysical(t, exec(t, e, tt.query)))
		})
	}
	// a regular GROUP BY over an event-time window table function: its
	// bundles close on watermarks too (Flink's requireWatermark)
	e := windowEnv(t, true)
	for _, s := range mb {
		exec(t, e, "SET "+s)
	}
	plan := explainPhysical(t, exec(t, e, "EXPLAIN SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start"))
	require.Contains(t, plan, "+- WindowTableFunction(window=[TUMBLE(time_col=[ts], size=[10 s])])\n", plan)
	require.Contains(t, plan, "MiniBatchAssigner(interval=[1000ms], mode=[RowTime])\n", plan)
}

// TestWindowTwoPhaseVerification runs window aggregations (TUMBLE, HOP,
// CUMULATE, with and without keys) one-phase and two-phase, with and
// without mini-batch, at parallelism 1 and 2 and batch sizes 1 and the
// default: the results agree.
func TestWindowTwoPhaseVerification(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	var b strings.Builder
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1500; i++ {
		k := int(r.ExpFloat64()*4) % 20 // skewed keys
		// out of order by up to 3 s; the watermark waits 5 s: nothing is late
		ts := base.Add(time.Duration(i*60+r.IntN(3000)) * time.Millisecond)
		fmt.Fprintf(&b, "%d,%d,s%d,%d.%02d,%s\n", k, r.IntN(1000)-200, r.IntN(30), r.IntN(100), r.IntN(100), ts.Format("2006-01-02 15:04:05.000"))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644))
	setup := []string{
		fmt.Sprintf(`CREATE TABLE raw (k INT, v INT, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3),
WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, dir),
		"CREATE VIEW t AS SELECT k, CASE WHEN MOD(v, 7) = 0 THEN CAST(NULL AS INT) ELSE v END AS v, s, d, CAST(v AS DOUBLE) / 4 AS f, ts FROM raw",
	}
	queries := []string{
		`SELECT window_start, window_end, k, COUNT(*) AS c, COUNT(v) AS cv, SUM(v) AS sv, AVG(v) AS av, MIN(v) AS lo, MAX(v) AS hi
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k`,
		`SELECT window_start, window_end, COUNT(*) AS c, SUM(d) AS sd, AVG(d) AS ad, MAX(s) AS ms, MIN(s) AS mn
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY window_start, window_end`,
		`SELECT window_start, window_end, window_time, k, s, SUM(f) AS sf, AVG(f) AS af, COUNT(*) AS c
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end, window_time, k, s`,
		`SELECT window_start, window_end, k, COUNT(DISTINCT s) AS ds, SUM(v) FILTER (WHERE v > 100) AS sv
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k`,
		`SELECT k, window_end, COUNT(*) FILTER (WHERE s > 's5') AS c, MAX(v) FILTER (WHERE k > 3) AS m, MIN(d) AS md
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY k, window_start, window_end`,
		`SELECT window_start, window_end, COUNT(*) AS c, MAX(k) AS mk
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '1' SECOND)) GROUP BY window_start, window_end`,
		// DISTINCT calls sharing a distinct column under FILTERs, over HOP
		`SELECT window_start, window_end, COUNT(DISTINCT k) AS dk, COUNT(DISTINCT k) FILTER (WHERE v > 0) AS dkp, SUM(DISTINCT v) AS sv, AVG(DISTINCT d) AS ad
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY window_start, window_end`,
	}
	type mode struct {
		name string
		sets []string
	}
	modes := []mode{{name: "one-phase"}, {name: "two-phase/p2", sets: []string{
		"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'", "'table.exec.resource.default-parallelism' = '2'"}}}
	for _, phase := range []string{"ONE_PHASE", "TWO_PHASE"} {
		for _, par := range []string{"1", "2"} {
			for _, bs := range []string{"1", "4096"} {
				modes = append(modes, mode{name: phase + "/p" + par + "/batch-" + bs, sets: []string{
					"'table.exec.mini-batch.enabled' = 'true'",
					"'table.exec.mini-batch.allow-latency' = '1 s'",
					"'table.exec.mini-batch.size' = '100'",
					"'table.optimizer.agg-phase-strategy' = '" + phase + "'",
					"'table.exec.resource.default-parallelism' = '" + par + "'",
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
			plan := explainPhysical(t, exec(t, e, "EXPLAIN "+q))
			split := strings.Contains(m.name, "TWO_PHASE") || strings.HasPrefix(m.name, "two-phase")
			require.Equal(t, split, strings.Contains(plan, "LocalWindowAggregate"), plan)
			got, _ := materialize(t, exec(t, e, q))
			if mi == 0 {
				want = got
				require.NotEmpty(t, want, q)
				continue
			}
			require.Equal(t, want, got, "query %d in mode %s: %s", qi, m.name, q)
		}
		t.Logf("query %d: %d rows", qi, len(want))
	}
}

// TestWindowTwoPhaseSavepoint stops a two-phase window aggregation (with
// event-time mini-batch) with a savepoint at parallelism 1 and restores it
// at parallelism 2: the committed output equals a one-phase run.
func TestWindowTwoPhaseSavepoint(t *testing.T) {
	dir := t.TempDir()
	twoPhase := []string{
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '200 ms'",
		"SET 'table.exec.mini-batch.size' = '500'",
		"SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
	}
	ref := NewTableEnvironment(InStreamingMode())
	for _, s := range jobTables(filepath.Join(dir, "ref")) {
		exec(t, ref, s)
	}
	exec(t, ref, jobInsert)
	want := visibleLines(t, filepath.Join(dir, "ref"))
	require.NotEmpty(t, want)

	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range append(append(throttled(jobTables(out), "20000", "4000"), twoPhase...),
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	require.Contains(t, explainPhysical(t, exec(t, env, "EXPLAIN "+jobInsert)), "LocalWindowAggregate")
	res := exec(t, env, jobInsert)
	require.True(t, res.Submitted())
	waitUntil(t, "two checkpoints and committed output", jobProgressed(t, env, 2, out))
	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")
	require.Less(t, len(visibleLines(t, out)), len(want), "the job was stopped before its end")

	again := NewTableEnvironment(InStreamingMode())
	for _, s := range append(append(jobTables(out), twoPhase...),
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, again, s)
	}
	exec(t, again, jobInsert)
	require.Equal(t, want, visibleLines(t, out))
}

// TestNexmarkWindowsTwoPhaseMatchesBatch runs the Nexmark window queries
// with event-time mini-batch and two-phase window aggregation at
// parallelism 1 and 2: the materialized changelog equals the batch result.
func TestNexmarkWindowsTwoPhaseMatchesBatch(t *testing.T) {
	for _, q := range []string{"q5", "q7", "q8"} {
		t.Run(q, func(t *testing.T) {
			stmts := nexmarkScript(t, q, 5000)
			for i, s := range stmts {
				stmts[i] = strings.ReplaceAll(s, "'10000000'", "'100'") // 50 s of event time
			}
			batch := NewTableEnvironment(InBatchMode())
			query := runNexmark(t, batch, stmts)
			want := canon(exec(t, batch, query).Rows())
			for _, par := range []string{"1", "2"} {
				stream := NewTableEnvironment(InStreamingMode())
				for _, s := range []string{
					"'tablerun.exec.batch-size' = '50'",
					"'table.exec.mini-batch.enabled' = 'true'",
					"'table.exec.mini-batch.allow-latency' = '2 s'",
					"'table.exec.mini-batch.size' = '300'",
					"'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'",
					"'table.exec.resource.default-parallelism' = '" + par + "'",
				} {
					exec(t, stream, "SET "+s)
				}
				runNexmark(t, stream, stmts)
				plan := explainPhysical(t, exec(t, stream, "EXPLAIN "+query))
				require.Contains(t, plan, "LocalWindowAggregate(")
				require.Contains(t, plan, "MiniBatchAssigner(interval=[2000ms], mode=[RowTime])")
				streamMatches(t, q+"/p"+par, exec(t, stream, query), want)
			}
		})
	}
}
