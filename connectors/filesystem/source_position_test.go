package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
)

func TestSourcePosition(t *testing.T) {
	schema := types.Schema{{Name: "f", Type: types.StringT}, {Name: "i", Type: types.IntT}}
	writeFile := func(t *testing.T, path string, rows int) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		var b strings.Builder
		for i := range rows {
			fmt.Fprintf(&b, "%s,%d\n", filepath.Base(path), i)
		}
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]int{"a": 25, "b/c": 0, "b/d": 14, "e": 40, "_hidden": 5}
			for name, n := range files {
				path := filepath.Join(dir, name)
				writeFile(t, path, n)
				if format == "json" {
					var b strings.Builder
					for i := range n {
						fmt.Fprintf(&b, "{\"f\":%q,\"i\":%d}\n", filepath.Base(path), i)
					}
					require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
				}
			}
			cfg, err := ParseConfig(map[string]string{"path": dir, "format": format})
			require.NoError(t, err)
			batch := 7
			run := func(ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) ([]string, bool) {
				t.Helper()
				src, err := NewSource(cfg, schema, nil, batch)
				require.NoError(t, err)
				require.NoError(t, src.Open(context.Background()))
				if ck != nil {
					require.NoError(t, src.RestorePosition(ck.Reader(0, 1)))
				}
				c := &statetest.StopCollector{Stop: stop}
				if snap != nil {
					w := snap.Writer()
					c.Snapshot = func() error { return src.SnapshotPosition(w) }
				}
				err = src.Run(context.Background(), c)
				stopped := stop > 0 && len(c.Batches) == stop
				if stopped {
					require.ErrorIs(t, err, statetest.ErrStop)
				} else {
					require.NoError(t, err)
				}
				require.NoError(t, src.Close())
				var rows []string
				for _, b := range c.Batches {
					require.Positive(t, b.NumRows())
					for _, r := range types.RecordRows(b.Rec, schema) {
						rows = append(rows, fmt.Sprint(r))
					}
				}
				return rows, stopped
			}
			full, _ := run(nil, 0, nil)
			require.Len(t, full, 25+14+40)
			for k := 1; k <= 12; k++ {
				ck := &statetest.Checkpoint{}
				first, stopped := run(nil, k, ck)
				require.True(t, stopped)
				// checkpoint again after the restore
				ck2 := &statetest.Checkpoint{}
				second, stopped := run(ck, 1, ck2)
				var rest []string
				if stopped {
					rest, _ = run(ck2, 0, nil)
				}
				require.Equal(t, full, append(append(first, second...), rest...), "stopped at batch %d", k)
			}

			// Restored with another batch size: batches straddle the
			// checkpointed row.
			for k := 1; k <= 12; k++ {
				batch = 7
				ck := &statetest.Checkpoint{}
				first, _ := run(nil, k, ck)
				batch = 4
				rest, _ := run(ck, 0, nil)
				require.Equal(t, full, append(first, rest...), "stopped at batch %d", k)
			}
			batch = 7

			// A file that appears after the checkpoint is read after the restore.
			ck := &statetest.Checkpoint{}
			first, _ := run(nil, 5, ck)
			writeFile(t, filepath.Join(dir, "b/cc"), 3)
			if format == "json" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "b/cc"), []byte("{\"f\":\"cc\",\"i\":0}\n{\"f\":\"cc\",\"i\":1}\n{\"f\":\"cc\",\"i\":2}\n"), 0o644))
			}
			rest, _ := run(ck, 0, nil)
			got := append(first, rest...)
			require.Len(t, got, len(full)+3)
			require.Contains(t, got, "[cc 2]")
		})
	}
}
