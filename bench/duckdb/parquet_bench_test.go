package duckdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tablerun/tablerun/core"
)

// ParquetRows is the row count of the Parquet file benchmark.
const ParquetRows = 10_000_000

var (
	parquetMu    sync.Mutex
	parquetFiles = map[string]string{}
)

// parquetFile returns a Parquet file of rows (k BIGINT: 1000 keys, v
// DOUBLE) that DuckDB writes once per process with codec.
func parquetFile(tb testing.TB, rows int, codec string) string {
	tb.Helper()
	parquetMu.Lock()
	defer parquetMu.Unlock()
	key := fmt.Sprintf("%d-%s", rows, codec)
	if p, ok := parquetFiles[key]; ok {
		return p
	}
	dir, err := osTempDir()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, "groupby-"+key+".parquet")
	db := openDuckDB(tb)
	q := fmt.Sprintf("COPY (SELECT (hash(i) %% 1000)::BIGINT AS k, ((hash(i * 31) %% 100000) / 100.0)::DOUBLE AS v FROM range(%d) r(i)) TO '%s' (FORMAT parquet, COMPRESSION %s)", rows, p, codec)
	if _, err := db.Exec(q); err != nil {
		tb.Fatal(err)
	}
	parquetFiles[key] = p
	return p
}

// engineParquetTable declares a Parquet file as a filesystem table and
// returns the planned GROUP BY query over it.
func engineParquetTable(tb testing.TB, path string) *core.Table {
	tb.Helper()
	env := core.NewTableEnvironment(core.InBatchMode())
	ddl := fmt.Sprintf("CREATE TABLE t (k BIGINT, v DOUBLE) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'parquet')", path)
	if _, err := env.ExecuteSQL(context.Background(), ddl); err != nil {
		tb.Fatal(err)
	}
	q, err := env.SQLQuery(groupBySumQuery)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

const parquetQuery = "SELECT k, SUM(v) FROM read_parquet('%s') GROUP BY k"

// BenchmarkSideBySideParquet alternates DuckDB's read_parquet (threads=1)
// and tablerun's parquet format over the same DuckDB-written 10 M-row file,
// snappy and zstd, checking they agree.
func BenchmarkSideBySideParquet(b *testing.B) {
	for _, codec := range []string{"snappy", "zstd"} {
		b.Run(codec, func(b *testing.B) {
			path := parquetFile(b, ParquetRows, codec)
			db := openDuckDB(b)
			q := engineParquetTable(b, path)
			query := fmt.Sprintf(parquetQuery, path)
			sideBySide(b, ParquetRows, func() (int, float64) { return consumeGroupBySum(b, db, query) },
				func() (int, float64) { return runEngine(b, q) })
		})
	}
}

// TestEngineMatchesDuckDBParquet: tablerun reads DuckDB-written Parquet
// files correctly: the GROUP BY agrees with DuckDB's over the same file,
// and a file of many types holds, read by tablerun, the values DuckDB was
// given.
func TestEngineMatchesDuckDBParquet(t *testing.T) {
	for _, codec := range []string{"snappy", "zstd", "uncompressed"} {
		path := parquetFile(t, 50_000, codec)
		db := openDuckDB(t)
		dn, dsum := consumeGroupBySum(t, db, fmt.Sprintf(parquetQuery, path))
		en, esum := runEngine(t, engineParquetTable(t, path))
		if dn != en || !closeEnough(dsum, esum) {
			t.Fatalf("%s: duckdb %d groups, checksum %v; tablerun %d groups, checksum %v", codec, dn, dsum, en, esum)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "types.parquet")
	db := openDuckDB(t)
	_, err := db.Exec(`COPY (SELECT * FROM (VALUES
		(1, true, -5::TINYINT, 300::SMALLINT, 9000000000::BIGINT, 1.5::FLOAT, 2.25::DOUBLE, 123.45::DECIMAL(5,2),
		 12345678901234567890.123456789::DECIMAL(38,9), 'héllo', '\xAA\xBB'::BLOB, DATE '2024-02-29', TIME '12:34:56.789',
		 TIMESTAMP '2024-01-02 03:04:05.123456', TIMESTAMP_NS '2024-01-02 03:04:05.123456789', [1, NULL, 3],
		 {'x': 7, 'y': 'seven'}, MAP {'a': 1, 'b': 2}, 42::UINTEGER),
		(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
		) v(id, b, ti, si, bi, f, d, dec1, dec2, s, bl, dt, tm, ts, tsn, arr, r, m, u)) TO '` + path + `' (FORMAT parquet)`)
	if err != nil {
		t.Fatal(err)
	}
	env := core.NewTableEnvironment(core.InBatchMode())
	ddl := "CREATE TABLE p (id INT, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, dec1 DECIMAL(5, 2), " +
		"dec2 DECIMAL(38, 9), s STRING, bl BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(6), tsn TIMESTAMP(9), arr ARRAY<INT>, " +
		"r ROW<x INT, y STRING>, m MAP<STRING, INT>, u BIGINT) WITH ('connector' = 'filesystem', 'path' = '" + path + "', 'format' = 'parquet')"
	if _, err := env.ExecuteSQL(context.Background(), ddl); err != nil {
		t.Fatal(err)
	}
	res, err := env.ExecuteSQL(context.Background(), "SELECT CAST(b AS STRING), ti, si, bi, f, d, CAST(dec1 AS STRING), CAST(dec2 AS STRING), s, "+
		"CAST(bl = X'AABB' AS STRING), CAST(dt AS STRING), CAST(tm AS STRING), CAST(ts AS STRING), CAST(tsn AS STRING), CAST(arr AS STRING), r.x, r.y, m['b'], u FROM p ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range res.Rows() {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = fmt.Sprint(v)
		}
		got = append(got, strings.Join(parts, "|"))
	}
	want := []string{
		"TRUE|-5|300|9000000000|1.5|2.25|123.45|12345678901234567890.123456789|héllo|TRUE|2024-02-29|12:34:56.789|2024-01-02 03:04:05.123456|2024-01-02 03:04:05.123456789|[1, NULL, 3]|7|seven|2|42",
		"<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tablerun read from DuckDB's file:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
