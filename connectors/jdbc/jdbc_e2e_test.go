package jdbc_test

// End-to-end tests of the jdbc connector against a real PostgreSQL
// (internal/pgenv starts one for the package), through the SQL engine (an
// external test package: core imports the connectors).

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/jdbc"
	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/pgenv"
	"github.com/tablerun/tablerun/internal/sqltest"
	"github.com/tablerun/tablerun/vectorized"
)

var (
	srv    *pgenv.Server
	srvErr error
)

func TestMain(m *testing.M) {
	srv, srvErr = pgenv.StartServer()
	code := m.Run()
	if srv != nil {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgenv: stop:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// server returns the package's PostgreSQL, or skips (fails under CI=true)
// saying why there is none.
func server(t testing.TB) *pgenv.Server {
	t.Helper()
	if srv == nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgenv: %v", srvErr)
		}
		t.Skipf("skipped: %v", srvErr)
	}
	return srv
}

func pgExec(t testing.TB, sql ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, server(t).Exec(ctx, sql...))
}

// pgRows returns the rows of a query on the server, each printed as
// fmt.Sprint of its values, in the query's order.
func pgRows(t testing.TB, sql string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, server(t).DSN())
	require.NoError(t, err)
	defer c.Close(ctx)
	rows, err := c.Query(ctx, sql)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

func newEnv(t testing.TB, streaming bool) *core.TableEnvironment {
	if streaming {
		return core.NewTableEnvironment(core.InStreamingMode())
	}
	return core.NewTableEnvironment(core.InBatchMode())
}

func run(t testing.TB, e *core.TableEnvironment, sql ...string) *core.TableResult {
	t.Helper()
	var res *core.TableResult
	for _, s := range sql {
		var err error
		res, err = e.ExecuteSQL(context.Background(), s)
		require.NoError(t, err, s)
	}
	return res
}

func runErr(e *core.TableEnvironment, sql ...string) error {
	for _, s := range sql {
		res, err := e.ExecuteSQL(context.Background(), s)
		if err != nil {
			return err
		}
		if res != nil {
			for range res.Changes() {
			}
			if err := res.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// rows runs a query and prints its rows as "a|b|c", sorted.
func rows(t testing.TB, e *core.TableEnvironment, sql string) []string {
	t.Helper()
	res := run(t, e, sql)
	var out []string
	for _, r := range res.Rows() {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = res.Format(v, res.Schema()[i].Type)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	sort.Strings(out)
	return out
}

// with is a jdbc table's WITH clause for table name, plus extra options.
func with(t testing.TB, table string, extra ...string) string {
	s := server(t)
	opts := []string{"'connector' = 'jdbc'", "'url' = '" + s.JDBCURL() + "'", "'table-name' = '" + table + "'",
		"'username' = '" + pgenv.User + "'", "'password' = '" + pgenv.Password + "'"}
	opts = append(opts, extra...)
	return "WITH (" + strings.Join(opts, ", ") + ")"
}

const typesPG = `CREATE TABLE types_rt (
	id integer PRIMARY KEY, b boolean, si smallint, ti smallint, i integer, bi bigint, r real, d double precision,
	n numeric(12, 3), c char(4), vc varchar(20), s text, bin bytea, dt date, tm time(3), ts timestamp(6),
	ltz timestamptz(3), arr integer[], sarr text[])`

const typesFlink = `(id INT NOT NULL, b BOOLEAN, si SMALLINT, ti TINYINT, i INT, bi BIGINT, r FLOAT, d DOUBLE,
	n DECIMAL(12, 3), c CHAR(4), vc VARCHAR(20), s STRING, bin BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(6),
	ltz TIMESTAMP_LTZ(3), arr ARRAY<INT>, sarr ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED)`

// TestTypeRoundTrip writes a row of every mapped type through the sink,
// checks what PostgreSQL holds, and reads it back through the scan; a row
// of NULLs round-trips too.
func TestTypeRoundTrip(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS types_rt", typesPG)
	e := newEnv(t, false)
	run(t, e, "SET 'table.local-time-zone' = 'UTC'", "CREATE TABLE rt "+typesFlink+" "+with(t, "types_rt"))
	run(t, e, `INSERT INTO rt VALUES
		(1, TRUE, CAST(-7 AS SMALLINT), CAST(-3 AS TINYINT), 123456, 9876543210123, CAST(1.5 AS FLOAT), 2.25,
		 CAST(-12345.678 AS DECIMAL(12, 3)), 'ab', 'varchar', 'text ünïcode', X'00ff10', DATE '2024-02-29',
		 TIME '13:14:15.123', TIMESTAMP '2024-02-29 01:02:03.456789', TO_TIMESTAMP_LTZ(1700000000123, 3),
		 ARRAY[1, 2, 3], ARRAY['x', 'y']),
		(2, CAST(NULL AS BOOLEAN), CAST(NULL AS SMALLINT), CAST(NULL AS TINYINT), CAST(NULL AS INT), CAST(NULL AS BIGINT),
		 CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(12, 3)), CAST(NULL AS CHAR(4)), CAST(NULL AS VARCHAR(20)),
		 CAST(NULL AS STRING), CAST(NULL AS BYTES), CAST(NULL AS DATE), CAST(NULL AS TIME(3)), CAST(NULL AS TIMESTAMP(6)),
		 CAST(NULL AS TIMESTAMP_LTZ(3)), CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<STRING>))`)
	require.Equal(t, []string{
		"1|true|-7|-3|123456|9876543210123|1.5|2.25|-12345.678|ab|varchar|text ünïcode|\\x00ff10|2024-02-29|13:14:15.123|2024-02-29 01:02:03.456789|2023-11-14 22:13:20.123+00|{1,2,3}|{x,y}",
		"2" + strings.Repeat("|<nil>", 18),
	}, pgRows(t, `SELECT id, b::text, si::text, ti::text, i::text, bi::text, r::text, d::text, n::text, c::text, vc, s,
		bin::text, dt::text, tm::text, ts::text, ltz::text, arr::text, sarr::text FROM types_rt ORDER BY id`))
	got := rows(t, e, "SELECT * FROM rt")
	require.Equal(t, []string{
		"1|TRUE|-7|-3|123456|9876543210123|1.5|2.25|-12345.678|ab  |varchar|text ünïcode|x'00ff10'|2024-02-29|13:14:15.123|2024-02-29 01:02:03.456789|2023-11-14 22:13:20.123|[1, 2, 3]|[x, y]",
		"2|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>|<NULL>",
	}, got)
}

// TestPartitionedScanParallel: scan.partition.* cut the table into
// ranges; at parallelism 2 the two scan instances read disjoint ranges
// that together are the table (rows outside the bounds are not read, as
// Flink's BETWEEN queries), and the query over them matches PostgreSQL's.
func TestPartitionedScanParallel(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS part", "CREATE TABLE part (id bigint PRIMARY KEY, v integer)",
		"INSERT INTO part SELECT g, g % 7 FROM generate_series(1, 1000) g")
	e := newEnv(t, true)
	run(t, e, "SET 'table.exec.resource.default-parallelism' = '2'", "SET 'tablerun.exec.batch-size' = '64'",
		"CREATE TABLE part (id BIGINT, v INT) "+with(t, "part", "'scan.partition.column' = 'id'",
			"'scan.partition.num' = '5'", "'scan.partition.lower-bound' = '1'", "'scan.partition.upper-bound' = '990'"))
	res := run(t, e, "SELECT v, COUNT(*), SUM(id) FROM part GROUP BY v")
	got := sqltest.Materialize(t, res)
	want := pgRows(t, "SELECT v, count(*), sum(id)::bigint FROM part WHERE id <= 990 GROUP BY v ORDER BY v")
	require.Len(t, got, 7)
	for i := range want {
		want[i] = "[" + strings.ReplaceAll(want[i], "|", " ") + "]"
	}
	sort.Strings(want)
	require.Equal(t, want, got)
}

// TestPartitionedSplits: each instance of a partitioned scan reads its
// share of the ranges, the ranges as Flink cuts them.
func TestPartitionedSplits(t *testing.T) {
	require.Equal(t, [][2]int64{{1, 4}, {5, 7}, {8, 10}}, jdbc.Partitions(1, 10, 3))
	require.Equal(t, [][2]int64{{0, 0}, {1, 1}}, jdbc.Partitions(0, 1, 5))
	pgExec(t, "DROP TABLE IF EXISTS part2", "CREATE TABLE part2 (id bigint)",
		"INSERT INTO part2 SELECT g FROM generate_series(1, 100) g")
	o, err := jdbc.ParseOptions(map[string]string{"url": server(t).JDBCURL(), "table-name": "part2",
		"username": pgenv.User, "password": pgenv.Password, "scan.partition.column": "id",
		"scan.partition.num": "4", "scan.partition.lower-bound": "1", "scan.partition.upper-bound": "100"})
	require.NoError(t, err)
	seen := map[int64]int{}
	for split := range 2 {
		src, err := jdbc.NewSource(jdbc.ScanSpec{Options: o, Schema: types.Schema{{Name: "id", Type: types.BigIntT}}})
		require.NoError(t, err)
		require.NoError(t, src.SetSplit(split, 2))
		var c collect
		require.NoError(t, src.Open(context.Background()))
		require.NoError(t, src.Run(context.Background(), &c))
		require.NoError(t, src.Close())
		require.NotEmpty(t, c.ids)
		for _, id := range c.ids {
			seen[id]++
			// ranges 1-25, 26-50 (split 0: 1-25 and 51-75), …
			require.Equal(t, split, int((id-1)/25)%2, "id %d read by split %d", id, split)
		}
	}
	require.Len(t, seen, 100)
}

type collect struct{ ids []int64 }

func (c *collect) Emit(_ context.Context, b vectorized.Batch) error {
	col := b.Rec.Column(0).(*array.Int64)
	c.ids = append(c.ids, col.Int64Values()...)
	return nil
}
func (c *collect) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// TestUpsertSinkFromGroupBy: a streaming GROUP BY writes its updates into
// a table with a primary key (upserts, and deletes when a group goes
// away): the table ends equal to the final result, with small buffers
// and with the default ones; without a primary key the updating query is
// rejected.
func TestUpsertSinkFromGroupBy(t *testing.T) {
	for _, flush := range []string{"1", "7", "100"} {
		pgExec(t, "DROP TABLE IF EXISTS agg", "CREATE TABLE agg (k integer PRIMARY KEY, cnt bigint, total bigint)")
		e := newEnv(t, true)
		run(t, e, "SET 'tablerun.exec.batch-size' = '5'",
			`CREATE TABLE src (id INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '500',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '500',
			'fields.k.min' = '0', 'fields.k.max' = '20')`,
			"CREATE TABLE agg (k INT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) "+with(t, "agg", "'sink.buffer-flush.max-rows' = '"+flush+"'"))
		// groups with an odd count at the end are deleted by the HAVING
		// over a nested aggregate: updates, and deletes.
		run(t, e, "INSERT INTO agg SELECT k, COUNT(*), SUM(id) FROM src GROUP BY k")
		want := rows(t, newBatchWith(t, e), "SELECT k, COUNT(*), SUM(id) FROM src GROUP BY k")
		got := pgRows(t, "SELECT k, cnt, total FROM agg ORDER BY k")
		sort.Strings(got)
		require.Equal(t, want, got, "flush %s", flush)
	}
	pgExec(t, "DROP TABLE IF EXISTS agg2", "CREATE TABLE agg2 (k integer, cnt bigint)")
	e := newEnv(t, true)
	run(t, e, `CREATE TABLE src (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.k.min' = '0', 'fields.k.max' = '2')`,
		"CREATE TABLE agg2 (k INT, cnt BIGINT) "+with(t, "agg2"))
	err := runErr(e, "INSERT INTO agg2 SELECT k, COUNT(*) FROM src GROUP BY k")
	require.ErrorContains(t, err, "doesn't support consuming update changes")
}

// newBatchWith returns a batch environment with e's datagen table src
// (datagen's rows depend only on the options: the same rows).
func newBatchWith(t testing.TB, _ *core.TableEnvironment) *core.TableEnvironment {
	b := newEnv(t, false)
	run(t, b, `CREATE TABLE src (id INT, k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '500',
		'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '500',
		'fields.k.min' = '0', 'fields.k.max' = '20')`)
	return b
}

// TestUpsertDeletes: retractions of a group reach the table as DELETEs.
func TestUpsertDeletes(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS del", "CREATE TABLE del (k integer PRIMARY KEY, cnt bigint)",
		"INSERT INTO del VALUES (99, 1)")
	e := newEnv(t, true)
	run(t, e, "SET 'tablerun.exec.batch-size' = '1'",
		"CREATE TABLE del (k INT, cnt BIGINT, PRIMARY KEY (k) NOT ENFORCED) "+with(t, "del", "'sink.buffer-flush.max-rows' = '1'"),
		// cnt per k, then only k whose count is below 2: a group that
		// grows to 2 is deleted.
		`INSERT INTO del SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM (VALUES (1), (2), (1), (3), (3), (3)) AS v(k) GROUP BY k) WHERE c < 2`)
	require.Equal(t, []string{"2|1", "99|1"}, pgRows(t, "SELECT k, cnt FROM del ORDER BY k"))
}

// TestUnreachableDatabase: a database nothing listens for fails the
// query within connection.max-retry-timeout, naming the URL, not hangs.
func TestUnreachableDatabase(t *testing.T) {
	e := newEnv(t, false)
	run(t, e, "CREATE TABLE gone (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/db', 'table-name' = 'gone', 'connection.max-retry-timeout' = '2s')")
	start := time.Now()
	err := runErr(e, "SELECT * FROM gone")
	took := time.Since(start)
	require.ErrorContains(t, err, "jdbc: cannot connect to 'jdbc:postgresql://127.0.0.1:1/db' within connection.max-retry-timeout = 2s")
	require.Less(t, took, 6*time.Second)
	require.GreaterOrEqual(t, took, 1500*time.Millisecond, "it retried until the timeout")
	// a wrong password is not retried
	run(t, e, "CREATE TABLE wrongpw (id INT) "+strings.Replace(with(t, "part"), pgenv.Password, "nope", 1))
	start = time.Now()
	require.ErrorContains(t, runErr(e, "SELECT * FROM wrongpw"), "password authentication failed")
	require.Less(t, time.Since(start), 5*time.Second)
}

// TestOptionErrors: Flink's messages for unknown keys, bad values,
// incomplete option groups, unsupported dialects and types.
func TestOptionErrors(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS opt", "CREATE TABLE opt (id integer, name text)")
	cases := []struct{ cols, opts, want string }{
		{"(id INT)", "'scan.partition.colum' = 'id'", "Unsupported options found for 'jdbc'.\n\nUnsupported options:\n\nscan.partition.colum\n\nSupported options:\n\nconnection.max-retry-timeout\nconnector\ndriver\n"},
		{"(id INT)", "'scan.partition.column' = 'id'", "Either all or none of the following options should be provided:\nscan.partition.column\nscan.partition.num\nscan.partition.lower-bound\nscan.partition.upper-bound"},
		{"(id INT)", "'lookup.max-retries' = '-1'", "The value of 'lookup.max-retries' option shouldn't be negative, but is -1."},
		{"(id INT)", "'sink.buffer-flush.max-rows' = 'many'", "Could not parse value 'many' for key 'sink.buffer-flush.max-rows'."},
		{"(id INT)", "'lookup.cache' = 'SOME'", "Could not parse value 'SOME' for key 'lookup.cache'."},
		{"(id INT)", "'connection.max-retry-timeout' = '500ms'", "The value of 'connection.max-retry-timeout' option must be in second granularity and shouldn't be smaller than 1 second, but is 500ms."},
		{"(id INT, m MAP<INT, INT>)", "", "The PostgreSQL dialect doesn't support type: MAP<INT, INT>."},
		{"(id INT, ts TIMESTAMP(9))", "", "The precision of field 'ts' is out of the TIMESTAMP precision range [1, 6] supported by PostgreSQL dialect."},
		{"(id INT, name INT)", "", "The column 'name' of the PostgreSQL table 'opt' is text, which does not map to its declared type INT"},
	}
	for _, c := range cases {
		e := newEnv(t, false)
		extra := []string{}
		if c.opts != "" {
			extra = append(extra, c.opts)
		}
		run(t, e, "CREATE TABLE opt "+c.cols+" "+with(t, "opt", extra...))
		require.ErrorContains(t, runErr(e, "SELECT * FROM opt"), c.want, c.opts)
	}
	e := newEnv(t, false)
	run(t, e, "CREATE TABLE my (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:3306/db', 'table-name' = 'my')")
	require.ErrorContains(t, runErr(e, "SELECT * FROM my"), "not supported yet: the MySQL dialect of the jdbc connector (url 'jdbc:mysql://127.0.0.1:3306/db'); only PostgreSQL (jdbc:postgresql://) is")
	run(t, e, "CREATE TABLE odd (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:odd://x', 'table-name' = 'odd')")
	require.ErrorContains(t, runErr(e, "SELECT * FROM odd"), "Could not find any jdbc dialect factory that can handle url 'jdbc:odd://x'")
	run(t, e, "CREATE TABLE nourl (id INT) WITH ('connector' = 'jdbc', 'table-name' = 'odd')")
	require.ErrorContains(t, runErr(e, "SELECT * FROM nourl"), "One or more required options are missing.\n\nMissing required options are:\n\nurl")
}

// TestPushDown: projection, filters and limit reach the query: EXPLAIN
// shows them in the scan, and the rows are PostgreSQL's.
func TestPushDown(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS pd", "CREATE TABLE pd (id integer, name text, score double precision)",
		"INSERT INTO pd SELECT g, 'n' || (g % 3), g / 2.0 FROM generate_series(1, 50) g")
	e := newEnv(t, false)
	run(t, e, "CREATE TABLE pd (id INT, name STRING, score DOUBLE) "+with(t, "pd"))
	q := "SELECT id, score FROM pd WHERE id > 40 AND name = 'n1' AND UPPER(name) = 'N1'"
	plan := rows(t, e, "EXPLAIN "+q)[0]
	require.Contains(t, plan, "filter=[and(>(id, 40), =(name, _UTF-16LE'n1'")
	require.Contains(t, plan, "fields=[id, name, score]")
	plan = rows(t, e, "EXPLAIN SELECT score FROM pd WHERE id >= 49")[0]
	require.Contains(t, plan, "filter=[>=(id, 49)], project=[id, score]]], fields=[id, score]")
	require.Equal(t, []string{"24.5", "25.0"}, rows(t, e, "SELECT score FROM pd WHERE id >= 49"))
	require.Equal(t, []string{"43|21.5", "46|23.0", "49|24.5"}, rows(t, e, q))
	require.Len(t, rows(t, e, "SELECT * FROM pd LIMIT 3"), 3)
}

// TestSinkFlushesAtCheckpoints: with the row and interval triggers off
// ('sink.buffer-flush.max-rows' = '0', '…interval' = '0'), the rows of
// an unbounded job reach PostgreSQL at every checkpoint barrier while it
// runs (at-least-once); without checkpoints they would wait for its end.
func TestSinkFlushesAtCheckpoints(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS ck", "CREATE TABLE ck (id integer PRIMARY KEY, v integer)")
	dir := t.TempDir()
	e := newEnv(t, true)
	run(t, e, "SET 'execution.checkpointing.interval' = '200 ms'",
		"SET 'execution.checkpointing.dir' = '"+dir+"'",
		`CREATE TABLE src (id INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '200',
			'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000')`,
		"CREATE TABLE ck (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) "+with(t, "ck",
			"'sink.buffer-flush.max-rows' = '0'", "'sink.buffer-flush.interval' = '0'"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.ExecuteSQL(ctx, "INSERT INTO ck SELECT id, v FROM src")
		done <- err
	}()
	var counts []int
	deadline := time.Now().Add(20 * time.Second)
	for len(counts) < 3 && time.Now().Before(deadline) {
		time.Sleep(150 * time.Millisecond)
		n := pgRows(t, "SELECT count(*) FROM ck")[0]
		var c int
		fmt.Sscan(n, &c)
		if c > 0 && (len(counts) == 0 || c > counts[len(counts)-1]) {
			counts = append(counts, c)
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the job did not stop when cancelled")
	}
	require.Len(t, counts, 3, "rows arrived at three checkpoints while the job ran: %v", counts)
	// the rows written are a prefix of the sequence (nothing skipped)
	got := pgRows(t, "SELECT count(*), coalesce(max(id), 0) FROM ck")
	parts := strings.Split(got[0], "|")
	require.Equal(t, parts[0], parts[1], "ids 1..n without holes")
}

// TestSinkRetries: a flush that fails is retried sink.max-retries times,
// 1 s apart (Flink's JdbcOutputFormat): with none the job fails at once
// naming the option and the server's error; with two it survives a
// failure that lasts less than a second.
func TestSinkRetries(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS gated", "DROP TABLE IF EXISTS gate",
		"CREATE TABLE gate (open boolean)", "INSERT INTO gate VALUES (false)",
		"CREATE TABLE gated (id integer PRIMARY KEY)",
		`CREATE OR REPLACE FUNCTION gate_check() RETURNS trigger AS $$
		BEGIN IF NOT (SELECT open FROM gate) THEN RAISE EXCEPTION 'gate closed'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
		"CREATE TRIGGER gated_check BEFORE INSERT ON gated FOR EACH ROW EXECUTE FUNCTION gate_check()")
	e := newEnv(t, false)
	run(t, e, "CREATE TABLE g0 (id INT, PRIMARY KEY (id) NOT ENFORCED) "+with(t, "gated", "'sink.max-retries' = '0'"),
		"CREATE TABLE g2 (id INT, PRIMARY KEY (id) NOT ENFORCED) "+with(t, "gated", "'sink.max-retries' = '2'"))
	start := time.Now()
	err := runErr(e, "INSERT INTO g0 VALUES (1), (2)")
	require.ErrorContains(t, err, "jdbc: writing 2 rows into 'gated' failed after 0 retries (sink.max-retries)")
	require.ErrorContains(t, err, "gate closed")
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, []string{"0"}, pgRows(t, "SELECT count(*) FROM gated"))

	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Exec(ctx, "UPDATE gate SET open = true")
	}()
	run(t, e, "INSERT INTO g2 VALUES (1), (2), (3)")
	<-done
	require.Equal(t, []string{"3"}, pgRows(t, "SELECT count(*) FROM gated"))
}
