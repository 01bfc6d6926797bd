package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// storeState writes, for each checkpoint, the store files names(id) (all
// shared, e.g. a store's tables) into the checkpoint; subtask 1 declines
// the checkpoints decline reports, once subtask 0 added its files.
func storeState(names func(id int64) []string, decline func(id int64) bool) func(task TaskID, id int64, w vectorized.StateWriter) error {
	added := map[int64]chan struct{}{}
	for id := int64(1); id < 10; id++ {
		added[id] = make(chan struct{})
	}
	return func(task TaskID, id int64, w vectorized.StateWriter) error {
		if task.Subtask == 1 && decline(id) {
			<-added[id]
			return errors.New("declined by the test")
		}
		if task.Subtask == 0 {
			defer close(added[id])
		}
		fw, ok := w.(vectorized.FileStateWriter)
		if !ok || !fw.Incremental() {
			return constState(task, id, w)
		}
		dir, err := fw.FileDir()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, n := range names(id) {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
				return err
			}
		}
		if err := fw.AddFiles("store", func(string) bool { return true }); err != nil {
			return err
		}
		return constState(task, id, w)
	}
}

func sharedNames(t *testing.T, job string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(job, sharedDir, "*", "*"))
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(job, f)
		require.NoError(t, err)
		out = append(out, filepath.ToSlash(rel))
	}
	sort.Strings(out)
	return out
}

// TestSharedFilesOfDiscardedCheckpointGo: the store files a checkpoint
// moved into the shared directory go when that checkpoint is discarded
// (declined, aborted by the job's end), unless a completed checkpoint
// lists them; a later checkpoint that re-uses one keeps it.
func TestSharedFilesOfDiscardedCheckpointGo(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "j1")
	names := map[int64][]string{1: {"000001.sst"}, 2: {"000001.sst", "000002.sst"}, 3: {"000001.sst", "000002.sst", "000003.sst"}}
	h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 1, Incremental: true}, tasksOf("agg", 2),
		storeState(func(id int64) []string { return names[id] }, func(id int64) bool { return id == 2 }))
	_, err := h.c.TriggerCheckpoint(context.Background())
	require.NoError(t, err)
	<-h.completed
	require.Equal(t, []string{"shared/agg-0/store-000001.sst", "shared/agg-1/store-000001.sst"}, sharedNames(t, job))

	// checkpoint 2 fails: subtask 0 moved 000002 into shared/ first
	_, err = h.c.TriggerCheckpoint(context.Background())
	require.Error(t, err)
	h.snapshots.Wait()
	h.c.writers.Wait()
	require.Equal(t, []string{"shared/agg-0/store-000001.sst", "shared/agg-1/store-000001.sst"}, sharedNames(t, job))

	_, err = h.c.TriggerCheckpoint(context.Background())
	require.NoError(t, err)
	<-h.completed
	want := []string{
		"shared/agg-0/store-000001.sst", "shared/agg-0/store-000002.sst", "shared/agg-0/store-000003.sst",
		"shared/agg-1/store-000001.sst", "shared/agg-1/store-000002.sst", "shared/agg-1/store-000003.sst",
	}
	require.Equal(t, want, sharedNames(t, job))
	r, err := Open(job, nil)
	require.NoError(t, err)
	require.Equal(t, int64(3), r.ID())
	files, _ := r.Reader("agg", 0, 2).(vectorized.FileStateReader).StoreFiles()
	require.Len(t, files, 2) // one per former subtask
	for _, f := range files {
		require.Len(t, f.Files, 3)
	}
}
