package core

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkNexmarkWindows measures the window queries in streaming mode
// (100 K events each, into the upstream blackhole sinks).
func BenchmarkNexmarkWindows(b *testing.B) {
	const events = 100_000
	for _, q := range []string{"q5", "q7", "q8", "q11", "q12"} {
		b.Run(q, func(b *testing.B) {
			stmts := nexmarkScript(b, q, events)
			for i, s := range stmts {
				// 1000 events per second: 100 s of event time, so that
				// windows open and fire throughout the run
				stmts[i] = strings.ReplaceAll(s, "'10000000'", "'1000'")
			}
			for b.Loop() {
				e := NewTableEnvironment(InStreamingMode())
				for _, s := range stmts {
					_, err := e.ExecuteSQL(context.Background(), s)
					require.NoError(b, err, s)
				}
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
