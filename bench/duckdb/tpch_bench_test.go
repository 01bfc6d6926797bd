package duckdb

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tablerun/tablerun/bench/tpch"
)

// BenchmarkSideBySideTPCH runs each TPC-H query on DuckDB (threads=1) and
// tablerun (one thread) alternately inside every iteration over the same
// generated CSV files (DuckDB loads them into its tables once; tablerun
// reads the files on every run through the filesystem connector), checks
// that the answers agree, and reports engine-vs-duckdb = DuckDB time ÷
// tablerun time (> 1: tablerun faster). TPCH_SF sets the scale factor
// (default 1), TPCH_QUERY one query.
func BenchmarkSideBySideTPCH(b *testing.B) {
	sf := 1.0
	if s := os.Getenv("TPCH_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		sf = v
	}
	dir := tpchData(b, sf)
	db := tpchDuck(b, dir)
	env := tpchEngine(b, dir)
	qs, err := tpch.Queries()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range qs {
		if only := os.Getenv("TPCH_QUERY"); only != "" && only != q.Name {
			continue
		}
		b.Run(q.Name, func(b *testing.B) {
			var dd, de time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				want := duckAnswer(b, db, q.SQL)
				t1 := time.Now()
				got, err := engineAnswer(env, q.SQL)
				de += time.Since(t1)
				dd += t1.Sub(t0)
				if err != nil {
					b.Fatal(err)
				}
				if !sameAnswer(want, got) {
					b.Fatalf("answers differ: duckdb %v, tablerun %v", head(want), head(got))
				}
			}
			b.ReportMetric(float64(dd.Microseconds())/1000/float64(b.N), "duckdb-ms")
			b.ReportMetric(float64(de.Microseconds())/1000/float64(b.N), "engine-ms")
			b.ReportMetric(dd.Seconds()/de.Seconds(), "engine-vs-duckdb")
		})
	}
}

