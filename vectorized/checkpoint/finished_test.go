package checkpoint

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// TestFinishedTaskAnswersLaterCheckpoints: a task that finished hands its
// final state once; the checkpoints after it (and a savepoint) complete
// with that state while the other task keeps snapshotting.
func TestFinishedTaskAnswersLaterCheckpoints(t *testing.T) {
	dir := t.TempDir()
	live, done := TaskID{Operator: "1-Join", Subtask: 0}, TaskID{Operator: "2-Scan", Subtask: 0}
	completed := make(chan int64, 10)
	var c *Coordinator
	c, err := NewCoordinator(Config{Dir: dir, JobID: "job", NumRetained: 3}, []TaskID{live, done}, func(id int64) {
		go func() {
			_ = c.Snapshot(id, live, func(w vectorized.StateWriter) error { return constState(live, id, w) })
		}()
	})
	require.NoError(t, err)
	c.OnComplete(func(id int64) { completed <- id })
	t.Cleanup(c.Stop)

	require.NoError(t, c.Finish(done, func(w vectorized.StateWriter) error { return constState(done, 99, w) }))
	require.ErrorContains(t, c.Finish(done, func(vectorized.StateWriter) error { return nil }), "finished twice")
	for range 2 {
		path, err := c.TriggerCheckpoint(context.Background())
		require.NoError(t, err)
		select {
		case <-completed:
		case <-time.After(5 * time.Second):
			t.Fatal("checkpoint did not complete")
		}
		r, err := Open(path, nil)
		require.NoError(t, err)
		rows, _ := readAll(t, r.Reader("2-Scan", 0, 1), "groups")
		require.Len(t, rows, 1)
		require.Contains(t, rows[0], `"k":"2-Scan-0-99"`, "the final state, written once")
		rows, _ = readAll(t, r.Reader("1-Join", 0, 1), "groups")
		require.Len(t, rows, 1)
	}
	sp, err := c.TriggerSavepoint(context.Background(), t.TempDir())
	require.NoError(t, err)
	r, err := Open(sp, nil)
	require.NoError(t, err)
	rows, _ := readAll(t, r.Reader("2-Scan", 0, 1), "groups")
	require.Len(t, rows, 1)
}
