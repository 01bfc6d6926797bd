package core

import (
	"context"
	"testing"
)

// BenchmarkMiniBatchSQL runs INSERT INTO blackhole SELECT k, COUNT(*),
// SUM(v) FROM datagen GROUP BY k (2 M rows, 1,000 keys) end to end in
// streaming mode with mini-batch off and on (one and two phases).
func BenchmarkMiniBatchSQL(b *testing.B) {
	const rows = 2_000_000
	configs := []struct {
		name string
		sets []string
	}{
		{"off", nil},
		{"size-50000/one-phase", []string{"'table.exec.mini-batch.enabled' = 'true'", "'table.exec.mini-batch.allow-latency' = '1 s'",
			"'table.exec.mini-batch.size' = '50000'", "'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'"}},
		{"size-50000/two-phase", []string{"'table.exec.mini-batch.enabled' = 'true'", "'table.exec.mini-batch.allow-latency' = '1 s'",
			"'table.exec.mini-batch.size' = '50000'", "'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'"}},
	}
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				e := NewTableEnvironment(InStreamingMode())
				for _, s := range append([]string{
					"CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000000', 'fields.k.min' = '0', 'fields.k.max' = '999', 'fields.v.min' = '0', 'fields.v.max' = '999', 'rows-per-second' = '1000000000')",
					"CREATE TABLE snk (k INT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole')",
					"SET 'table.dml-sync' = 'true'",
				}, c.sets...) {
					if s[0] == '\'' {
						s = "SET " + s
					}
					if _, err := e.ExecuteSQL(context.Background(), s); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := e.ExecuteSQL(context.Background(), "INSERT INTO snk SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}
