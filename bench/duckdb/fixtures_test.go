package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	duckdbdrv "github.com/duckdb/duckdb-go/v2"
	"github.com/tablerun/tablerun/bench/gen"
)

// groupByInput is the data of one in-memory GROUP BY benchmark.
type groupByInput struct {
	keys   []int64
	values []float64
}

var (
	inputMu  sync.Mutex
	inputs   = map[int]*groupByInput{}
	csvOnce  sync.Once
	csvPath  string
	csvErr   error
	csvDirMu sync.Mutex // guards tempDir
)

// groupByData returns the shared Rows-row input with the given number of
// distinct keys (generated once per process).
func groupByData(tb testing.TB, keys int) *groupByInput {
	tb.Helper()
	inputMu.Lock()
	defer inputMu.Unlock()
	if in, ok := inputs[keys]; ok {
		return in
	}
	ks, vs, err := gen.GroupByData(Rows, keys, Seed)
	if err != nil {
		tb.Fatal(err)
	}
	in := &groupByInput{keys: ks, values: vs}
	inputs[keys] = in
	return in
}

// groupByRecords returns the shared input as Arrow record batches of
// BatchSize rows; the caller releases them.
func groupByRecords(tb testing.TB, keys int) []arrow.RecordBatch {
	tb.Helper()
	in := groupByData(tb, keys)
	recs, err := gen.RecordBatches(memory.DefaultAllocator, in.keys, in.values, BatchSize)
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}

// csvFile returns the path of the shared CSVRows-row, CSVKeys-key CSV file
// (no header line, written once per process into a temporary directory).
func csvFile(tb testing.TB) string {
	tb.Helper()
	csvOnce.Do(func() {
		dir, err := osTempDir()
		if err != nil {
			csvErr = err
			return
		}
		csvPath = filepath.Join(dir, "groupby.csv")
		csvErr = gen.WriteCSV(csvPath, CSVRows, CSVKeys, Seed)
	})
	if csvErr != nil {
		tb.Fatal(csvErr)
	}
	return csvPath
}

// openDuckDB opens a fresh in-memory DuckDB limited to one thread, on a
// single connection so that settings apply to every statement.
func openDuckDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec("SET threads=1"); err != nil {
		tb.Fatal(err)
	}
	var threads int64
	if err := db.QueryRow("SELECT current_setting('threads')").Scan(&threads); err != nil {
		tb.Fatal(err)
	}
	if threads != 1 {
		tb.Fatalf("DuckDB threads = %d after SET threads=1", threads)
	}
	return db
}

// loadTable creates table t(k BIGINT, v DOUBLE) holding in, through the
// appender API.
func loadTable(tb testing.TB, db *sql.DB, in *groupByInput) {
	tb.Helper()
	if _, err := db.Exec("CREATE TABLE t (k BIGINT, v DOUBLE)"); err != nil {
		tb.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		app, err := duckdbdrv.NewAppenderFromConn(dc.(driver.Conn), "", "t")
		if err != nil {
			return err
		}
		for i, k := range in.keys {
			if err := app.AppendRow(k, in.values[i]); err != nil {
				_ = app.Close()
				return fmt.Errorf("append row %d: %w", i, err)
			}
		}
		return app.Close()
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// consumeGroupBySum runs a two-column (BIGINT, DOUBLE-or-BIGINT) query and
// scans every result row; it returns the row count and the sum of the
// second column as a checksum.
func consumeGroupBySum(tb testing.TB, db *sql.DB, query string) (int, float64) {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var (
		n     int
		total float64
		k     int64
		s     float64
	)
	for rows.Next() {
		if err := rows.Scan(&k, &s); err != nil {
			tb.Fatal(err)
		}
		n++
		total += s
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return n, total
}

// osTempDir makes a process-wide temporary directory for shared fixture
// files; it is removed by TestMain.
func osTempDir() (string, error) {
	csvDirMu.Lock()
	defer csvDirMu.Unlock()
	if tempDir == "" {
		d, err := os.MkdirTemp("", "tablerun-bench-duckdb-")
		if err != nil {
			return "", err
		}
		tempDir = d
	}
	return tempDir, nil
}

var tempDir string
