package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// timeJoinEnv returns an environment with two event-time tables l and r
// (k, v, ts with WATERMARK ts - 2 s; rows are at most 2 s out of order),
// a bounded dimension table dim (k, name) and the given settings.
func timeJoinEnv(t *testing.T, streaming bool, sets ...string) *TableEnvironment {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, rows []string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o644))
		return p
	}
	var l, r []string
	for i := range 40 {
		sec := i + (i%3)*1 // a little disorder
		l = append(l, fmt.Sprintf("%d,l%d,2024-01-01 00:00:%02d", i%4, i, sec))
		if i%3 != 0 {
			r = append(r, fmt.Sprintf("%d,r%d,2024-01-01 00:00:%02d.500", i%5, i, min(sec+1, 59)))
		}
	}
	lp, rp := write("l.csv", l), write("r.csv", r)
	dp := write("dim.csv", []string{"0,zero", "1,one", "2,two"})
	settings := InBatchMode()
	if streaming {
		settings = InStreamingMode()
	}
	e := NewTableEnvironment(settings)
	for _, s := range sets {
		exec(t, e, s)
	}
	for name, p := range map[string]string{"l": lp, "r": rp} {
		exec(t, e, `CREATE TABLE `+name+` (k INT, v STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = '`+p+`', 'format' = 'csv')`)
	}
	exec(t, e, `CREATE TABLE dim (k INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '`+dp+`', 'format' = 'csv')`)
	return e
}

// appendOnlyRows runs a query and returns its rows sorted; a streaming
// result must be append-only.
func appendOnlyRows(t *testing.T, e *TableEnvironment, sql string) []string {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), sql)
	require.NoError(t, err, sql)
	var out []string
	for k, row := range res.Changes() {
		require.False(t, k.IsRetraction(), "%s: %s%v", sql, k, row)
		out = append(out, fmt.Sprintf("%v", row))
	}
	require.NoError(t, res.Err())
	sort.Strings(out)
	return out
}

// TestTimeJoinsMatchBatch runs interval joins, window joins and
// processing-time temporal joins in streaming mode (batch sizes 1 and default,
// parallelism 1 and 2) and checks them against batch mode, where they are
// regular joins.
func TestTimeJoinsMatchBatch(t *testing.T) {
	queries := []struct{ name, sql, plan string }{
		{"inner between", `SELECT l.v, r.v, l.ts, r.ts FROM l JOIN r ON l.k = r.k
AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '1' SECOND`,
			"IntervalJoin(joinType=[InnerJoin], windowBounds=[isRowTime=true, leftLowerBound=-3000, leftUpperBound=1000, leftTimeIndex=2, rightTimeIndex=2]"},
		{"left join in WHERE style bounds", `SELECT l.v, r.v FROM l LEFT JOIN r ON l.k = r.k
AND r.ts >= l.ts AND r.ts < l.ts + INTERVAL '2' SECOND`,
			"IntervalJoin(joinType=[LeftOuterJoin], windowBounds=[isRowTime=true, leftLowerBound=-1999, leftUpperBound=0, leftTimeIndex=2, rightTimeIndex=2]"},
		{"right join", `SELECT l.v, r.v FROM l RIGHT JOIN r ON l.k = r.k
AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts`, "IntervalJoin(joinType=[RightOuterJoin]"},
		{"full join with an extra condition", `SELECT l.v, r.v FROM l FULL JOIN r ON l.k = r.k AND l.v < r.v
AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '2' SECOND`, "IntervalJoin(joinType=[FullOuterJoin]"},
		{"cross product in WHERE", `SELECT l.v, r.v FROM l, r WHERE l.k = r.k
AND l.ts > r.ts - INTERVAL '1' SECOND AND l.ts < r.ts + INTERVAL '1' SECOND`, "IntervalJoin(joinType=[InnerJoin]"},
		{"window join", `SELECT L.v, R.v, L.window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k`,
			"WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 s])], rightWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[5 s])], joinType=[InnerJoin], where=[=(k, k0)]"},
		{"full hopping window join with a condition", `SELECT L.v, R.v, L.window_end, R.window_end FROM (SELECT * FROM TABLE(HOP(TABLE l, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))) L
FULL JOIN (SELECT * FROM TABLE(HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k AND L.v < R.v`,
			"WindowJoin(leftWindow=[HOP(win_start=[window_start], win_end=[window_end], size=[6 s], slide=[2 s])]"},
		{"temporal join", `SELECT l.v, d.name FROM (SELECT *, PROCTIME() AS pt FROM l) AS l
JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k`,
			"LookupJoin(table=[default_catalog.default_database.dim], joinType=[InnerJoin], lookup=[k=k]"},
		{"left temporal join", `SELECT l.v, d.name FROM (SELECT *, PROCTIME() AS pt FROM l) AS l
LEFT JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k AND d.name <> 'one'`,
			"LookupJoin(table=[default_catalog.default_database.dim], joinType=[LeftOuterJoin], lookup=[k=k], where=[<>(name, _UTF-16LE'one'"},
	}
	settings := map[string][]string{
		"default":       nil,
		"batch size 1":  {"SET 'tablerun.exec.batch-size' = '1'"},
		"parallelism 2": {"SET 'table.exec.resource.default-parallelism' = '2'"},
	}
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			want := appendOnlyRows(t, timeJoinEnv(t, false), q.sql)
			require.NotEmpty(t, want)
			res, err := timeJoinEnv(t, true).ExecuteSQL(context.Background(), "EXPLAIN "+q.sql)
			require.NoError(t, err)
			require.Contains(t, fmt.Sprint(res.Rows()), q.plan)
			for name, sets := range settings {
				require.Equal(t, want, appendOnlyRows(t, timeJoinEnv(t, true, sets...), q.sql), name)
			}
		})
	}
}

func TestTemporalJoinErrors(t *testing.T) {
	cases := []struct{ sql, err string }{
		{"SELECT * FROM l JOIN dim FOR SYSTEM_TIME AS OF l.ts AS d ON l.k = d.k",
			"Temporal Table Join requires primary key in versioned table, but no primary key can be found."},
		{"SELECT * FROM (SELECT *, CAST(ts AS TIMESTAMP(3)) AS t2 FROM l) l JOIN dim FOR SYSTEM_TIME AS OF l.t2 AS d ON l.k = d.k",
			"Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field"},
		{"SELECT * FROM (SELECT *, PROCTIME() AS pt FROM l) l FULL JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k",
			"not supported yet: temporal table joins other than INNER JOIN and LEFT JOIN"},
		{"SELECT * FROM (SELECT *, PROCTIME() AS pt FROM l) l JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k > d.k",
			"Temporal table join requires an equality condition on fields of table [default_catalog.default_database.dim]."},
	}
	for _, tc := range cases {
		_, err := timeJoinEnv(t, true).ExecuteSQL(context.Background(), tc.sql)
		require.ErrorContains(t, err, tc.err, tc.sql)
	}
}

// TestNexmarkQ8WindowJoin runs Nexmark q8 (two window aggregations
// joined on the key and the window bounds), planned as Flink's
// WindowJoin, and checks it against batch mode.
func TestNexmarkQ8WindowJoin(t *testing.T) {
	stmts := nexmarkScript(t, "q8", 5000)
	e := NewTableEnvironment(InStreamingMode())
	query := runNexmark(t, e, stmts)
	res, err := e.ExecuteSQL(context.Background(), "EXPLAIN "+query)
	require.NoError(t, err)
	require.Contains(t, fmt.Sprint(res.Rows()), "WindowJoin(leftWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])], "+
		"rightWindow=[TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])], joinType=[InnerJoin], where=[=(id, seller)]")
	want := compareNexmarkStreamingBatch(t, "q8", 5000)
	require.NotEmpty(t, want)
}

// TestTimeJoinSavepoint stops a job of an interval join followed by a
// lookup join with a savepoint and restores it at parallelism 2: the
// committed output equals a run without the stop.
func TestTimeJoinSavepoint(t *testing.T) {
	dir := t.TempDir()
	dim := filepath.Join(dir, "dim.csv")
	require.NoError(t, os.WriteFile(dim, []byte("0,zero\n1,one\n2,two\n3,three\n4,four\n5,five\n6,six\n"), 0o644))
	tables := func(out string) []string {
		var s []string
		for name, shift := range map[string]int{"l": 0, "r": 5} {
			s = append(s, fmt.Sprintf(`CREATE TABLE %s (id BIGINT, k AS MOD(id, 7), ts AS TO_TIMESTAMP_LTZ(1700000000000 + id * 10 + %d, 3),
				WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen',
				'rows-per-second' = '10000', 'number-of-rows' = '6000',
				'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6000')`, name, shift))
		}
		return append(s,
			`CREATE TABLE dim (k BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '`+dim+`', 'format' = 'csv')`,
			`CREATE TABLE snk (lid BIGINT, rid BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '`+out+`', 'format' = 'csv')`)
	}
	const insert = `INSERT INTO snk SELECT j.lid, j.rid, d.name FROM (
  SELECT l.id AS lid, r.id AS rid, l.k, PROCTIME() AS pt FROM l JOIN r
  ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '0.02' SECOND AND r.ts + INTERVAL '0.02' SECOND) j
JOIN dim FOR SYSTEM_TIME AS OF j.pt AS d ON j.k = d.k`

	ref := NewTableEnvironment(InStreamingMode())
	for _, s := range tables(filepath.Join(dir, "ref")) {
		exec(t, ref, s)
	}
	exec(t, ref, insert)
	want := visibleLines(t, filepath.Join(dir, "ref"))
	require.Len(t, want, 6000)

	out := filepath.Join(dir, "out")
	env := NewTableEnvironment(InStreamingMode())
	for _, s := range append(throttled(tables(out), "10000", "2000"),
		"SET 'table.dml-sync' = 'false'",
		"SET 'execution.checkpointing.interval' = '50 ms'",
		"SET 'execution.checkpointing.dir' = '"+filepath.Join(dir, "chk")+"'",
		"SET 'execution.checkpointing.savepoint-dir' = '"+filepath.Join(dir, "sp")+"'") {
		exec(t, env, s)
	}
	res := exec(t, env, insert)
	require.True(t, res.Submitted())
	waitUntil(t, "two checkpoints and committed output", jobProgressed(t, env, 2, out))
	stopped := exec(t, env, "STOP JOB '"+res.JobID()+"' WITH SAVEPOINT")
	path := strings.TrimPrefix(fmt.Sprint(stopped.Rows()[0][0]), "file:")
	require.Less(t, len(visibleLines(t, out)), len(want), "the job was stopped before its end")

	again := NewTableEnvironment(InStreamingMode())
	for _, s := range append(tables(out),
		"SET 'table.exec.resource.default-parallelism' = '2'",
		"SET 'execution.savepoint.path' = '"+path+"'") {
		exec(t, again, s)
	}
	exec(t, again, insert)
	require.Equal(t, want, visibleLines(t, out))
}

// TestEventTimeTemporalJoin joins orders with the version of a rates
// table valid at each order's time (Flink's TemporalJoin).
func TestEventTimeTemporalJoin(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	orders := write("orders.csv", "1,EUR,10,2024-01-01 00:00:01\n2,USD,10,2024-01-01 00:00:03\n3,EUR,10,2024-01-01 00:00:06\n"+
		"4,EUR,10,2024-01-01 00:00:11\n5,JPY,10,2024-01-01 00:00:12\n6,USD,10,2024-01-01 00:00:01\n")
	rates := write("rates.csv", "EUR,2,2024-01-01 00:00:00\nUSD,4,2024-01-01 00:00:02\nUSD,3,2024-01-01 00:00:04\n"+
		"EUR,5,2024-01-01 00:00:05\nEUR,7,2024-01-01 00:00:10\n")
	ddl := []string{
		`CREATE TABLE orders (id INT, cur STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '` + orders + `', 'format' = 'csv')`,
		`CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '` + rates + `', 'format' = 'csv')`,
		`CREATE TABLE plain (cur STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '` + rates + `', 'format' = 'csv')`,
		`CREATE TABLE nowm (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '` + rates + `', 'format' = 'csv')`,
		`CREATE TABLE byrate (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (rate) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '` + rates + `', 'format' = 'csv')`,
	}
	env := func(streaming bool, sets ...string) *TableEnvironment {
		settings := InBatchMode()
		if streaming {
			settings = InStreamingMode()
		}
		e := NewTableEnvironment(settings)
		for _, s := range append(sets, ddl...) {
			exec(t, e, s)
		}
		return e
	}
	const inner = `SELECT o.id, o.amount * r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`
	const left = `SELECT o.id, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur AND r.rate < 7`
	for _, sets := range [][]string{nil, {"SET 'tablerun.exec.batch-size' = '1'"}, {"SET 'table.exec.resource.default-parallelism' = '2'"}} {
		require.Equal(t, []string{"[1 20]", "[2 40]", "[3 50]", "[4 70]"}, appendOnlyRows(t, env(true, sets...), inner), sets)
		require.Equal(t, []string{"[1 2]", "[2 4]", "[3 5]", "[4 <nil>]", "[5 <nil>]", "[6 <nil>]"}, appendOnlyRows(t, env(true, sets...), left), sets)
		// A filter on the versioned side applies to the version each order sees.
		require.Equal(t, []string{"[1 20]", "[2 40]", "[3 50]"}, appendOnlyRows(t, env(true, sets...), inner+" WHERE r.rate < 7"), sets)
	}
	res, err := env(true).ExecuteSQL(context.Background(), "EXPLAIN "+inner)
	require.NoError(t, err)
	require.Contains(t, fmt.Sprint(res.Rows()), "TemporalJoin(joinType=[InnerJoin], where=[AND(=(cur, cur0), __TEMPORAL_JOIN_CONDITION(ts, ts0, "+
		"__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(cur0), __TEMPORAL_JOIN_LEFT_KEY(cur), __TEMPORAL_JOIN_RIGHT_KEY(cur0)))], select=[id, cur, amount, ts, cur0, rate, ts0])")

	for _, tc := range []struct {
		streaming bool
		sql, err  string
	}{
		{true, "SELECT * FROM orders o JOIN plain FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur",
			"Temporal Table Join requires primary key in versioned table, but no primary key can be found."},
		{true, "SELECT * FROM orders o JOIN nowm FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur",
			"Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found."},
		{true, "SELECT * FROM orders o JOIN byrate FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur",
			"Temporal table's primary key [rate] must be included in the equivalence condition of temporal join"},
		{false, inner, "not supported yet: event-time temporal table joins"},
	} {
		_, err := env(tc.streaming).ExecuteSQL(context.Background(), tc.sql)
		require.ErrorContains(t, err, tc.err, tc.sql)
	}
}
