// Package udfbench runs the end-to-end script UDF benchmark shared by
// udf/python and udf/js: a query calling a scalar UDF over a million rows
// against the interpreter floor measured by the runtime's package.
package udfbench

import (
	"context"
	"testing"
	"time"

	"github.com/tablerun/tablerun/core"
)

// Rows is the number of rows of the benchmark query.
const Rows = 1_000_000

// Query returns the ns per row of INSERT INTO blackhole SELECT expr FROM
// a datagen table of Rows BIGINT values x, after running the statements
// of setup (e.g. a CREATE FUNCTION); only the INSERT is timed.
func Query(tb testing.TB, setup, expr string) float64 {
	tb.Helper()
	return Select(tb, setup, "SELECT "+expr+" FROM src")
}

// Select returns the ns per source row of INSERT INTO blackhole (one
// BIGINT column) the query sel over src (Rows BIGINT values x), after the
// statements of setup; only the INSERT is timed.
func Select(tb testing.TB, setup, sel string) float64 {
	tb.Helper()
	ctx := context.Background()
	e := core.NewTableEnvironment(core.InBatchMode())
	stmts := []string{
		"CREATE TABLE src (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000', 'fields.x.min' = '0', 'fields.x.max' = '1000000')",
		"CREATE TABLE snk (y BIGINT) WITH ('connector' = 'blackhole')",
	}
	if setup != "" {
		stmts = append(stmts, setup)
	}
	for _, s := range stmts {
		if _, err := e.ExecuteSQL(ctx, s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	start := time.Now()
	if _, err := e.ExecuteSQL(ctx, "INSERT INTO snk "+sel); err != nil {
		tb.Fatal(err)
	}
	return float64(time.Since(start).Nanoseconds()) / Rows
}

// Run interleaves 3 rounds of the floor (floor(n) returns ns per call for
// n calls), the UDF query (f(x, 1) after create) and the built-in query
// (x + 1), keeps the fastest of each and reports them with the UDF's cost
// (query − built-in) relative to the floor.
func Run(b *testing.B, create string, floor func(n int) float64) {
	var fl, q, bi float64
	for range b.N {
		for r := 0; r < 3; r++ {
			f := floor(Rows)
			u := Query(b, create, "f(x, 1)")
			x := Query(b, "", "x + 1")
			if r == 0 || f < fl {
				fl = f
			}
			if r == 0 || u < q {
				q = u
			}
			if r == 0 || x < bi {
				bi = x
			}
		}
	}
	b.ReportMetric(fl, "floor-ns/row")
	b.ReportMetric(q, "query-ns/row")
	b.ReportMetric(bi, "builtin-ns/row")
	b.ReportMetric(q-bi, "udf-ns/row")
	b.ReportMetric((q-bi)/fl, "udf/floor")
}

// LateralRounds is the number of rounds of RunLateral.
var LateralRounds = 1

// RunLateral times INSERT INTO blackhole SELECT w FROM src, LATERAL
// TABLE(g(x)) AS T(w) (g made by create, producing two rows per input
// row) in LateralRounds rounds and reports the fastest, per input row.
func RunLateral(b *testing.B, create string) {
	var q float64
	for range b.N {
		for r := 0; r < LateralRounds; r++ {
			u := Select(b, create, "SELECT w FROM src, LATERAL TABLE(g(x)) AS T(w)")
			if r == 0 || u < q {
				q = u
			}
		}
	}
	b.ReportMetric(q, "lateral-ns/row")
}
