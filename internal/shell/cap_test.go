package shell

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// TestWatchTableCapNote: the live table mode keeps at most maxRows rows,
// the newest, and its status line says how many it dropped.
func TestWatchTableCapNote(t *testing.T) {
	env := core.NewTableEnvironment(core.InStreamingMode())
	res, err := env.ExecuteSQL(context.Background(), "SELECT * FROM (VALUES (1), (2), (3), (4), (5)) AS t(k)")
	require.NoError(t, err)
	var out bytes.Buffer
	view, err := WatchTable(context.Background(), &out, res, 2, 20, 80)
	require.NoError(t, err)
	require.Equal(t, 2, view.Len())
	require.EqualValues(t, 3, view.Cut())
	require.Equal(t, []core.Row{{int32(4)}, {int32(5)}}, view.Rows())
	require.Contains(t, out.String(), "Running: 5 changes, 2 rows in set (3 oldest rows dropped: sql-client.execution.max-table-result.rows is 2).")
}
