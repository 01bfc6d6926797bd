package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/checkpoint"
)

// TestSinkWithCoordinator runs the sink under a checkpoint coordinator,
// crashes, corrupts the latest checkpoint and restores: the restore falls
// back to the previous checkpoint, rolls back what the corrupt one had
// committed, and the replay gives every row exactly once.
func TestSinkWithCoordinator(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out, chk := filepath.Join(dir, "out"), filepath.Join(dir, "chk")
	task := checkpoint.TaskID{Operator: "2-Sink", Subtask: 0}

	start := func(s *Sink, firstID int64) *checkpoint.Coordinator {
		var c *checkpoint.Coordinator
		c, err := checkpoint.NewCoordinator(checkpoint.Config{Dir: chk, NumRetained: 3}, []checkpoint.TaskID{task}, func(id int64) {
			_ = c.Snapshot(id, task, func(w vectorized.StateWriter) error { return s.PreCommit(ctx, id, w) })
		})
		require.NoError(t, err)
		c.SetFirstID(firstID)
		c.OnComplete(func(id int64) { require.NoError(t, s.Commit(ctx, id)) })
		t.Cleanup(c.Stop)
		return c
	}

	s := newTestSink(t, out, 0, nil)
	c := start(s, 1)
	require.NoError(t, s.Write(ctx, rows(t, 0, 10)))
	_, err := c.TriggerCheckpoint(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Write(ctx, rows(t, 10, 20)))
	latest, err := c.TriggerCheckpoint(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Write(ctx, rows(t, 20, 25)))
	require.Equal(t, wantLines(0, 20), visible(t, out))
	c.Stop() // crash: the sink is dropped

	// Corrupt the latest checkpoint.
	state := filepath.Join(latest, "2-Sink-0.state")
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	data[len(data)-7] ^= 1
	require.NoError(t, os.WriteFile(state, data, 0o644))

	var logs []string
	r, err := checkpoint.Open(chk, func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) })
	require.NoError(t, err)
	require.Equal(t, int64(1), r.ID())
	require.Contains(t, strings.Join(logs, "\n"), "2-Sink-0.state has checksum")

	s2 := newTestSink(t, out, 0, nil)
	require.NoError(t, s2.RestoreState(ctx, r.Reader("2-Sink", 0, 1)))
	require.Equal(t, wantLines(0, 10), visible(t, out))
	c2 := start(s2, r.ID()+1)
	require.NoError(t, s2.Write(ctx, rows(t, 10, 20)))
	_, err = c2.TriggerCheckpoint(ctx)
	require.NoError(t, err)
	require.NoError(t, s2.Write(ctx, rows(t, 20, 30)))
	require.NoError(t, s2.Finish(ctx))
	require.NoError(t, s2.Close())
	require.Equal(t, wantLines(0, 30), visible(t, out))
}
