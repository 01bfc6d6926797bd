package duckdb

import (
	"fmt"
	"testing"
	"time"
)

const groupBySumQuery = "SELECT k, SUM(v) FROM t GROUP BY k"

// csvQuery is DuckDB's side of the CSV benchmark: no header line, column
// names given, column types detected by DuckDB's sniffer (BIGINT here).
const csvQuery = "SELECT k, SUM(v) FROM read_csv('%s', header = false, names = ['k', 'v']) GROUP BY k"

// BenchmarkDuckDBGroupBySum runs SELECT k, SUM(v) FROM t GROUP BY k on
// DuckDB (threads=1) over the shared Rows-row table, scanning every result
// row through database/sql. Loading the table is outside the timer.
func BenchmarkDuckDBGroupBySum(b *testing.B) {
	for _, keys := range KeyCounts {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			in := groupByData(b, keys)
			db := openDuckDB(b)
			loadTable(b, db, in)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				n, _ := consumeGroupBySum(b, db, groupBySumQuery)
				if n == 0 {
					b.Fatal("no groups")
				}
			}
			b.ReportMetric(float64(Rows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
		})
	}
}

// BenchmarkDuckDBCSVGroupBy runs SELECT k, SUM(v) … GROUP BY k over
// read_csv of the shared CSVRows-row, CSVKeys-key file (threads=1),
// scanning every result row. Writing the file is outside the timer.
func BenchmarkDuckDBCSVGroupBy(b *testing.B) {
	path := csvFile(b)
	db := openDuckDB(b)
	query := fmt.Sprintf(csvQuery, path)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if n, _ := consumeGroupBySum(b, db, query); n != CSVKeys {
			b.Fatalf("groups %d, want %d", n, CSVKeys)
		}
	}
	b.ReportMetric(float64(CSVRows)*float64(b.N)/time.Since(start).Seconds(), "rows/s")
}
