// Package duckdb holds tablerun's side-by-side benchmarks against DuckDB
// (through github.com/duckdb/duckdb-go/v2, which needs cgo). It is a
// separate module so that the main module does not depend on cgo.
//
// The input data comes from github.com/tablerun/tablerun/bench/gen and is
// shared by every benchmark of the package through the fixtures in
// fixtures_test.go (groupByData, groupByRecords, csvFile, with the
// constants Rows, Keys…, CSVRows, CSVKeys, Seed): an engine benchmark placed
// next to the DuckDB one reads identical rows, so the two can be compared
// as a ratio within one run, as performance-targets.md asks.
//
// Run with
//
//	cd bench/duckdb && go test -run '^$' -bench . -benchtime 5x
package duckdb

// Sizes of the benchmarks, as fixed by performance-targets.md.
const (
	// Rows is the row count of the in-memory GROUP BY benchmarks.
	Rows = 10_000_000
	// BatchSize is the Arrow batch size of the engine side.
	BatchSize = 4096
	// CSVRows is the row count of the CSV file benchmark.
	CSVRows = 2_000_000
	// CSVKeys is the number of distinct keys of the CSV file benchmark.
	CSVKeys = 1000
	// Seed seeds every generator call of the package.
	Seed = 42
)

// KeyCounts are the distinct-key counts of the in-memory GROUP BY
// benchmarks.
var KeyCounts = []int{1000, 1_000_000}
