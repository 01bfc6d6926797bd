package duckdb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/bench/gen"
	"github.com/tablerun/tablerun/core"
)

// engineTable registers recs as table t in a fresh batch-mode session and
// returns the planned (not yet run) GROUP BY query over it.
func engineTable(tb testing.TB, recs []arrow.RecordBatch) *core.Table {
	tb.Helper()
	env := core.NewTableEnvironment(core.InBatchMode())
	if err := env.FromRecords("t", recs[0].Schema(), recs); err != nil {
		tb.Fatal(err)
	}
	q, err := env.SQLQuery(groupBySumQuery)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

// engineCSVTable declares the shared CSV file as a filesystem table in a
// fresh batch-mode session and returns the planned GROUP BY query over it.
func engineCSVTable(tb testing.TB, path string) *core.Table {
	tb.Helper()
	env := core.NewTableEnvironment(core.InBatchMode())
	ddl := fmt.Sprintf("CREATE TABLE t (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", path)
	if _, err := env.ExecuteSQL(context.Background(), ddl); err != nil {
		tb.Fatal(err)
	}
	q, err := env.SQLQuery(groupBySumQuery)
	if err != nil {
		tb.Fatal(err)
	}
	return q
}

// runEngine runs q through the whole engine (optimizer, operators, result
// batches) and reads every result row, as consumeGroupBySum does for
// DuckDB; it returns the row count and the sum of the second column.
func runEngine(tb testing.TB, q *core.Table) (int, float64) {
	tb.Helper()
	var (
		n     int
		total float64
	)
	err := q.ExecuteArrow(context.Background(), func(rec arrow.RecordBatch) error {
		rows := int(rec.NumRows())
		n += rows
		switch c := rec.Column(1).(type) {
		case *array.Float64:
			for i := 0; i < rows; i++ {
				total += c.Value(i)
			}
		case *array.Int64:
			for i := 0; i < rows; i++ {
				total += float64(c.Value(i))
			}
		default:
			return fmt.Errorf("unexpected SUM column %T", c)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n, total
}

// BenchmarkEngineGroupBySum runs SELECT k, SUM(v) FROM t GROUP BY k through
// tablerun (one thread) over the same rows as BenchmarkDuckDBGroupBySum.
func BenchmarkEngineGroupBySum(b *testing.B) {
	for _, keys := range KeyCounts {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			q := engineTable(b, groupByRecords(b, keys))
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if n, _ := runEngine(b, q); n != keys {
					b.Fatalf("groups %d, want %d", n, keys)
				}
			}
			b.ReportMetric(float64(Rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}

// BenchmarkSideBySideEngine alternates DuckDB (threads=1) and tablerun on
// the same rows within every iteration, so both see the same machine load,
// and reports each one's rows/s and the ratio engine-vs-duckdb (> 1 means
// tablerun is faster). This ratio is the figure bench/README.md quotes.
func BenchmarkSideBySideEngine(b *testing.B) {
	for _, keys := range KeyCounts {
		b.Run(fmt.Sprintf("groupby/keys=%d", keys), func(b *testing.B) {
			db := openDuckDB(b)
			loadTable(b, db, groupByData(b, keys))
			q := engineTable(b, groupByRecords(b, keys))
			sideBySide(b, Rows, func() (int, float64) { return consumeGroupBySum(b, db, groupBySumQuery) },
				func() (int, float64) { return runEngine(b, q) })
		})
	}
	b.Run("csv", func(b *testing.B) {
		path := csvFile(b)
		db := openDuckDB(b)
		q := engineCSVTable(b, path)
		query := fmt.Sprintf(csvQuery, path)
		sideBySide(b, CSVRows, func() (int, float64) { return consumeGroupBySum(b, db, query) },
			func() (int, float64) { return runEngine(b, q) })
	})
}

// sideBySide times duck and engine alternately b.N times, checks that they
// agree on the number of groups and the checksum, and reports the rates
// and their ratio.
func sideBySide(b *testing.B, rows int, duck, engine func() (int, float64)) {
	var dd, de time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		dn, dsum := duck()
		t1 := time.Now()
		en, esum := engine()
		de += time.Since(t1)
		dd += t1.Sub(t0)
		if dn != en || !closeEnough(dsum, esum) {
			b.Fatalf("results differ: duckdb %d groups, checksum %v; tablerun %d groups, checksum %v", dn, dsum, en, esum)
		}
	}
	n := float64(rows) * float64(b.N)
	b.ReportMetric(n/dd.Seconds(), "duckdb-rows/s")
	b.ReportMetric(n/de.Seconds(), "engine-rows/s")
	b.ReportMetric(dd.Seconds()/de.Seconds(), "engine-vs-duckdb")
}

func closeEnough(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := a
	if m < 0 {
		m = -m
	}
	return d <= 1e-9*m+1e-6
}

// TestEngineMatchesDuckDB checks, on a small input, that tablerun and
// DuckDB return the same groups and sums for both benchmark queries, so
// the benchmarks compare equal work.
func TestEngineMatchesDuckDB(t *testing.T) {
	ks, vs, err := gen.GroupByData(100_000, 1000, Seed)
	if err != nil {
		t.Fatal(err)
	}
	in := &groupByInput{keys: ks, values: vs}
	db := openDuckDB(t)
	loadTable(t, db, in)
	recs, err := gen.RecordBatches(memory.DefaultAllocator, ks, vs, BatchSize)
	if err != nil {
		t.Fatal(err)
	}
	dn, dsum := consumeGroupBySum(t, db, groupBySumQuery)
	en, esum := runEngine(t, engineTable(t, recs))
	if dn != en || !closeEnough(dsum, esum) {
		t.Fatalf("in-memory: duckdb %d/%v, tablerun %d/%v", dn, dsum, en, esum)
	}

	path := t.TempDir() + "/small.csv"
	if err := gen.WriteCSV(path, 100_000, 1000, Seed); err != nil {
		t.Fatal(err)
	}
	dn, dsum = consumeGroupBySum(t, db, fmt.Sprintf(csvQuery, path))
	en, esum = runEngine(t, engineCSVTable(t, path))
	if dn != en || !closeEnough(dsum, esum) {
		t.Fatalf("csv: duckdb %d/%v, tablerun %d/%v", dn, dsum, en, esum)
	}
}
