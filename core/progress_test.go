package core

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProgressCountsRowsRead checks that a statement run with a context
// from WithProgress counts the rows its sources read, in both modes and
// across the sources of a join, and that a context without one counts
// nothing.
func TestProgressCountsRowsRead(t *testing.T) {
	cases := []struct {
		name     string
		settings EnvironmentSettings
		query    string
		want     int64
	}{
		{"batch scan", InBatchMode(), "SELECT COUNT(*) FROM g", 10000},
		{"batch two sources", InBatchMode(), "SELECT COUNT(*) FROM g AS a JOIN (SELECT x FROM g WHERE x < 10) AS b ON a.x = b.x", 20000},
		{"streaming", InStreamingMode(), "SELECT x % 2, COUNT(*) FROM g GROUP BY x % 2", 10000},
		{"values", InBatchMode(), "SELECT * FROM (VALUES (1), (2), (3)) AS t(v)", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := NewTableEnvironment(c.settings)
			_, err := env.ExecuteSQL(context.Background(), "CREATE TABLE g (x BIGINT) WITH ('connector' = 'datagen', "+
				"'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '10000')")
			require.NoError(t, err)
			ctx, p := WithProgress(context.Background())
			res, err := env.ExecuteSQL(ctx, c.query)
			require.NoError(t, err)
			res.Rows() // a streaming result runs until it is drained
			require.NoError(t, res.Close())
			require.Equal(t, c.want, p.RowsRead())
			require.Positive(t, p.BatchesRead())
		})
	}
	var nilProgress *Progress
	require.Zero(t, nilProgress.RowsRead())
}
