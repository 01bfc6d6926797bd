package core

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
)

// BenchmarkUDFQuery measures scalar UDF calls through the whole engine in
// batch mode: INSERT INTO blackhole SELECT f(x, 1) FROM datagen (1 M rows,
// BIGINT x), for Python and JavaScript script functions and Go functions,
// against the same query with the built-in x + 1. The UDF's per-row cost
// is (ns/row of f) − (ns/row of the built-in). See bench/udf.md.
func BenchmarkUDFQuery(b *testing.B) {
	const rows = 1_000_000
	fns := []struct {
		name   string
		create string
		gofn   any
		expr   string
	}{
		{"builtin", "", nil, "x + 1"},
		{"python", "CREATE TEMPORARY FUNCTION f(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$\ndef f(a, b):\n    return a + b\n$$", nil, "f(x, 1)"},
		{"javascript", "CREATE TEMPORARY FUNCTION f(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE JAVASCRIPT AS $$\nfunction f(a, b) { return a + b; }\n$$", nil, "f(x, 1)"},
		{"go-vectorized", "", func(a, b int64) int64 { return a + b }, "f(x, 1)"},
		{"go-reflect", "", func(a, b int32) int64 { return int64(a) + int64(b) }, "f(CAST(x AS INT), 1)"},
	}
	for _, f := range fns {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				e := NewTableEnvironment(InBatchMode())
				if f.create != "" {
					_, err := e.ExecuteSQL(context.Background(), f.create)
					require.NoError(b, err)
				}
				if f.gofn != nil {
					def, err := function.FromGo("f", f.gofn)
					require.NoError(b, err)
					require.NoError(b, e.CreateTemporarySystemFunction("f", def))
				}
				for _, s := range []string{
					"CREATE TABLE src (x BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000000', 'fields.x.min' = '0', 'fields.x.max' = '1000000')",
					"CREATE TABLE snk (y BIGINT) WITH ('connector' = 'blackhole')",
					"INSERT INTO snk SELECT " + f.expr + " FROM src",
				} {
					_, err := e.ExecuteSQL(context.Background(), s)
					require.NoError(b, err, s)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
