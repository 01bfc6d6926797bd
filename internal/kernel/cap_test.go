package kernel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// TestLiveDisplayCapNote: with more current rows than
// sql-client.execution.max-table-result.rows the live display keeps the
// newest ones and its footer says how many were dropped.
func TestLiveDisplayCapNote(t *testing.T) {
	env := core.NewTableEnvironment(core.InStreamingMode())
	res, err := env.ExecuteSQL(context.Background(), "SELECT * FROM (VALUES (1), (2), (3), (4), (5)) AS t(k)")
	require.NoError(t, err)
	final, err := WatchStream(context.Background(), res, 2, func(bool, map[string]string) {})
	require.NoError(t, err)
	text := final["text/plain"]
	require.Contains(t, text, "| 4 |")
	require.Contains(t, text, "| 5 |")
	require.NotContains(t, text, "| 3 |")
	require.Contains(t, text, "2 rows in set (5 changes received, finished); 3 oldest rows dropped: sql-client.execution.max-table-result.rows is 2")
	require.Contains(t, final["text/html"], "3 oldest rows dropped")
}
