package jdbc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/jdbc"
	"github.com/tablerun/tablerun/internal/sqltest"
)

// lookupSrc is a stream of 2000 rows whose key k cycles through 0..49.
const lookupSrc = `CREATE TABLE src (id INT, k AS MOD(id, 50), pt AS PROCTIME()) WITH ('connector' = 'datagen',
	'number-of-rows' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2000')`

func lookupDim(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS dim", "CREATE TABLE dim (id integer PRIMARY KEY, name text, grp integer)",
		// keys 1..40 exist (0 and 41..49 do not); id 7 has grp 3
		"INSERT INTO dim SELECT g, 'name' || g, g % 4 FROM generate_series(1, 40) g")
}

// joined runs q in streaming mode with the given dim options and batch
// size and returns the materialized rows and the keys looked up.
func joined(t *testing.T, q, batch string, opts ...string) ([]string, int64, int64) {
	e := newEnv(t, true)
	run(t, e, "SET 'tablerun.exec.batch-size' = '"+batch+"'", lookupSrc,
		"CREATE TABLE dim (id INT, name STRING, grp INT) "+with(t, "dim", opts...))
	q0, k0 := jdbc.LookupCounts()
	got := sqltest.Materialize(t, run(t, e, q))
	q1, k1 := jdbc.LookupCounts()
	return got, q1 - q0, k1 - k0
}

// oracle runs q in batch mode, where the temporal join is a regular join
// over the jdbc scan.
func oracle(t *testing.T, q string) []string {
	e := newEnv(t, false)
	run(t, e, lookupSrc, "CREATE TABLE dim (id INT, name STRING, grp INT) "+with(t, "dim"))
	return sqltest.Materialize(t, run(t, e, q))
}

// TestLookupJoin: a processing-time temporal join over a jdbc table
// looks each batch's keys up in one query, gives the rows of the batch
// join, and with 'lookup.cache' = 'PARTIAL' asks for every key once (the
// queries the cache saves are counted); a key without rows is asked
// again when cache-missing-key is off.
func TestLookupJoin(t *testing.T) {
	lookupDim(t)
	q := "SELECT s.id, s.k, d.name FROM src AS s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id"
	want := oracle(t, q)
	require.Len(t, want, 2000*40/50)

	got, queries, keys := joined(t, q, "7")
	require.Equal(t, want, got)
	require.Equal(t, int64(2000), keys, "no cache: every row's key (7 distinct per batch)")
	require.Equal(t, int64((2000+6)/7), queries, "one query per batch")

	got, queries, keys = joined(t, q, "7", "'lookup.cache' = 'PARTIAL'", "'lookup.partial-cache.max-rows' = '1000'")
	require.Equal(t, want, got)
	require.Equal(t, int64(50), keys, "cache: every key once")
	require.Equal(t, int64((50+6)/7), queries, "the first 50 rows' batches")

	got, _, keys = joined(t, q, "7", "'lookup.cache' = 'PARTIAL'", "'lookup.partial-cache.cache-missing-key' = 'false'")
	require.Equal(t, want, got)
	require.Equal(t, int64(40+2000*10/50), keys, "keys without rows: asked at each of their rows")

	got, _, keys = joined(t, q, "100", "'lookup.cache' = 'PARTIAL'", "'lookup.partial-cache.max-rows' = '10'")
	require.Equal(t, want, got)
	require.Greater(t, keys, int64(50), "a cache of 10 keys evicts")

	// LEFT JOIN with a condition on the temporal table (a Calc over the
	// looked-up rows) and one across both sides.
	q = "SELECT s.id, d.name, d.grp FROM src AS s LEFT JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id AND d.grp <> 3 AND s.id > d.id + 100"
	want = oracle(t, q)
	require.Len(t, want, 2000)
	got, _, _ = joined(t, q, "64", "'lookup.cache' = 'PARTIAL'")
	require.Equal(t, want, got)
}

// TestLookupJoinExplain: EXPLAIN shows Flink's LookupJoin over the
// stream only.
func TestLookupJoinExplain(t *testing.T) {
	lookupDim(t)
	e := newEnv(t, true)
	run(t, e, lookupSrc, "CREATE TABLE dim (id INT, name STRING, grp INT) "+with(t, "dim", "'lookup.cache' = 'PARTIAL'"))
	plan := rows(t, e, "EXPLAIN SELECT s.id, d.name FROM src AS s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id")[0]
	require.Contains(t, plan, "LookupJoin(table=[default_catalog.default_database.dim], joinType=[InnerJoin], lookup=[id=k], select=[id, k, id0, name])\n")
	require.NotContains(t, plan, "TableSourceScan(table=[[default_catalog, default_database, dim")
}

// TestLookupRetries: a failing lookup query is retried lookup.max-retries
// times (reconnecting, 1 s apart, as Flink): with none it fails at once,
// naming the option; with two it survives a table that appears within
// the second.
func TestLookupRetries(t *testing.T) {
	pgExec(t, "DROP TABLE IF EXISTS flaky")
	q := "SELECT s.id, d.name FROM src AS s JOIN flaky FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id"
	e := newEnv(t, true)
	run(t, e, lookupSrc, "CREATE TABLE flaky (id INT, name STRING) "+with(t, "flaky", "'lookup.max-retries' = '0'"))
	start := time.Now()
	err := runErr(e, q)
	require.ErrorContains(t, err, "failed after 0 retries (lookup.max-retries)")
	require.ErrorContains(t, err, `relation "flaky" does not exist`)
	require.Less(t, time.Since(start), 5*time.Second)

	e = newEnv(t, true)
	run(t, e, lookupSrc, "CREATE TABLE flaky (id INT, name STRING) "+with(t, "flaky", "'lookup.max-retries' = '2'"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Exec(ctx, "CREATE TABLE flaky (id integer, name text)", "INSERT INTO flaky VALUES (1, 'one')")
	}()
	got := sqltest.Materialize(t, run(t, e, q))
	<-done
	require.Len(t, got, 40)
	require.True(t, strings.HasSuffix(got[0], " one]"), got[0])
}

// TestLookupTypeMismatch: a lookup over a column whose PostgreSQL type
// does not map to the declared one fails naming both.
func TestLookupTypeMismatch(t *testing.T) {
	lookupDim(t)
	e := newEnv(t, true)
	run(t, e, lookupSrc, "CREATE TABLE dim (id INT, name INT) "+with(t, "dim"))
	err := runErr(e, "SELECT s.id, d.name FROM src AS s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id")
	require.ErrorContains(t, err, "The column 'name' of the PostgreSQL table 'dim' is text, which does not map to its declared type INT")
}

// TestLookupJoinParallel: at parallelism 2 the lookup join runs as two
// instances over the two datagen splits, each with its own cache, and
// gives the rows of the batch join.
func TestLookupJoinParallel(t *testing.T) {
	lookupDim(t)
	q := "SELECT s.id, s.k, d.name FROM src AS s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id"
	want := oracle(t, q)
	e := newEnv(t, true)
	run(t, e, "SET 'tablerun.exec.batch-size' = '64'", "SET 'table.exec.resource.default-parallelism' = '2'", lookupSrc,
		"CREATE TABLE dim (id INT, name STRING, grp INT) "+with(t, "dim", "'lookup.cache' = 'PARTIAL'"))
	_, k0 := jdbc.LookupCounts()
	got := sqltest.Materialize(t, run(t, e, q))
	_, k1 := jdbc.LookupCounts()
	require.Equal(t, want, got)
	require.Greater(t, k1-k0, int64(50), "two caches: some keys are looked up by both instances")
	require.LessOrEqual(t, k1-k0, int64(100))
}
