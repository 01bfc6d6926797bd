package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInsertStaticPartition writes with INSERT … PARTITION (k = 'v'): the
// static column is a constant, the query supplies the others, and the rows
// land in the partition's directory.
func TestInsertStaticPartition(t *testing.T) {
	dir := t.TempDir()
	e := NewTableEnvironment(InBatchMode())
	exec(t, e, fmt.Sprintf("CREATE TABLE d (`user` BIGINT, product STRING, amount INT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')", dir))
	exec(t, e, "INSERT INTO d PARTITION (dt = '2022-06-12') VALUES (123, 'toothpick', 1), (124, 'pen', 2)")
	exec(t, e, "INSERT INTO d PARTITION (dt = '2022-06-13') SELECT `user` + 1, product, amount FROM d WHERE dt = '2022-06-12'")
	exec(t, e, "INSERT INTO d PARTITION (dt = '2022-06-14') (product, amount, `user`) VALUES ('cup', 5, 7)")
	res := exec(t, e, "SELECT * FROM d")
	require.ElementsMatch(t, [][]any{
		{int64(123), "toothpick", int32(1), "2022-06-12"}, {int64(124), "pen", int32(2), "2022-06-12"},
		{int64(124), "toothpick", int32(1), "2022-06-13"}, {int64(125), "pen", int32(2), "2022-06-13"},
		{int64(7), "cup", int32(5), "2022-06-14"},
	}, res.Rows())
	for _, p := range []string{"dt=2022-06-12", "dt=2022-06-13", "dt=2022-06-14"} {
		es, err := os.ReadDir(filepath.Join(dir, p))
		require.NoError(t, err)
		require.NotEmpty(t, es)
	}
	for _, bad := range []struct{ sql, msg string }{
		{"INSERT INTO d PARTITION (product = 'x') VALUES (1, 2, '3')", "product is not a partition column"},
		{"INSERT INTO d PARTITION (dt = UPPER('x')) VALUES (1, 'a', 2)", "must be a literal"},
		{"INSERT INTO d PARTITION (dt = 'x') VALUES (1, 'a', 2, 'y')", "Different number of columns"},
	} {
		_, err := e.ExecuteSQL(context.Background(), bad.sql)
		require.ErrorContains(t, err, bad.msg, bad.sql)
	}
}
