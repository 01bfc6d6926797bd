package jdbc_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tablerun/tablerun/connectors/jdbc"
)

var benchDimOnce sync.Once

// benchDim makes the PostgreSQL table dimb with ids 0..1,001,000 (once
// per process).
func benchDim(b *testing.B) {
	benchDimOnce.Do(func() {
		pgExec(b, "DROP TABLE IF EXISTS dimb", "CREATE TABLE dimb (id integer PRIMARY KEY, name text)",
			"INSERT INTO dimb SELECT g, 'name' || g FROM generate_series(0, 1001000) g", "ANALYZE dimb")
	})
}

// BenchmarkLookupJoin: a stream of b.N rows joined FOR SYSTEM_TIME AS OF
// with a jdbc table through the partial cache ('lookup.partial-cache.
// max-rows' = '100000'), into blackhole. hits=90: nine rows in ten read
// one of 1000 hot keys, the tenth a key never read before; hits=0: every
// row a new key. Reports lookups/s (input rows per second of the whole
// job, cache plus queries) and the measured hit rate.
func BenchmarkLookupJoin(b *testing.B) {
	benchDim(b)
	for _, c := range []struct{ name, key string }{
		{"hits=90", "CASE WHEN MOD(id, 10) = 0 THEN 1000 + MOD(id / 10, 1000000) ELSE MOD(id, 1000) END"},
		{"hits=0", "1000 + MOD(id, 1000000)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b, true)
			run(b, e, fmt.Sprintf(`CREATE TABLE src (id INT, k AS %s, pt AS PROCTIME()) WITH ('connector' = 'datagen',
				'number-of-rows' = '%d', 'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence',
				'fields.id.start' = '0', 'fields.id.end' = '2000000000')`, c.key, b.N),
				"CREATE TABLE dimb (id INT, name STRING) "+with(b, "dimb", "'lookup.cache' = 'PARTIAL'", "'lookup.partial-cache.max-rows' = '100000'"),
				"CREATE TABLE bh (id INT, name STRING) WITH ('connector' = 'blackhole')")
			_, k0 := jdbc.LookupCounts()
			b.ResetTimer()
			start := time.Now()
			res, err := e.ExecuteSQL(context.Background(), "INSERT INTO bh SELECT s.id, d.name FROM src AS s JOIN dimb FOR SYSTEM_TIME AS OF s.pt AS d ON s.k = d.id")
			if err != nil {
				b.Fatal(err)
			}
			_ = res
			took := time.Since(start)
			b.StopTimer()
			_, k1 := jdbc.LookupCounts()
			b.ReportMetric(float64(b.N)/took.Seconds(), "lookups/s")
			b.ReportMetric(100*(1-float64(k1-k0)/float64(b.N)), "hit%")
		})
	}
}
