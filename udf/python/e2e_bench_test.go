package python_test

import (
	"testing"

	"github.com/tablerun/tablerun/internal/udfbench"
	"github.com/tablerun/tablerun/udf/python"
)

// BenchmarkEndToEnd compares a Python scalar UDF inside a query
// (INSERT INTO blackhole SELECT f(x, 1) FROM datagen, 1 M BIGINT rows,
// batch mode) with the interpreter floor (1 M raw calls of the same
// function with ready Python ints), both timed over the whole million
// rows with garbage collection included. The UDF's cost is the query's
// time minus the same query with the built-in x + 1. Run with
// -benchtime 1x; it interleaves 3 rounds and keeps the fastest of each.
func BenchmarkEndToEnd(b *testing.B) {
	const body = "def f(a, b):\n    return a + b\n"
	udfbench.Run(b, "CREATE TEMPORARY FUNCTION f(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$\n"+body+"$$",
		func(n int) float64 { return float64(python.RawCalls(b, body, n).Nanoseconds()) / float64(n) })
}

// BenchmarkLateral times a Python table function producing two rows per
// input row in LATERAL TABLE over 1 M rows.
func BenchmarkLateral(b *testing.B) {
	udfbench.RunLateral(b, "CREATE TEMPORARY FUNCTION g(a BIGINT) RETURNS TABLE (w BIGINT) LANGUAGE PYTHON AS $$\ndef g(a):\n    yield a\n    yield a + 1\n$$")
}
