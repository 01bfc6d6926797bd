package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// deltaState writes a delta on top of checkpoint id-1 (id-2 after the
// savepoint 6) unless full(id),
// with one row per task and checkpoint (key group id); it records the
// kind of each snapshot.
func deltaState(full func(id int64) bool, kinds map[int64]string) func(task TaskID, id int64, w vectorized.StateWriter) error {
	return func(task TaskID, id int64, w vectorized.StateWriter) error {
		kind := "full"
		if iw, ok := w.(vectorized.IncrementalStateWriter); ok && iw.Incremental() && !full(id) {
			base := id - 1
			if base == 6 {
				base = 5
			}
			if err := iw.DeltaOf(base); err != nil {
				return err
			}
			kind = "delta"
		}
		if task.Subtask == 0 {
			kinds[id] = kind
		}
		return constState(task, id, w)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// layerRows reads part "groups" of every layer of r.
func layerRows(t *testing.T, r vectorized.StateReader) [][]string {
	t.Helper()
	lr, ok := r.(vectorized.LayeredStateReader)
	require.True(t, ok)
	var out [][]string
	for _, l := range lr.Layers() {
		rows, _ := readAll(t, l, "groups")
		out = append(out, rows)
	}
	return out
}

func TestIncrementalRetentionKeepsBase(t *testing.T) {
	dir := t.TempDir()
	kinds := map[int64]string{}
	full := func(id int64) bool { return id == 1 || id == 4 }
	h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 1, Incremental: true}, tasksOf("agg", 2), deltaState(full, kinds))
	job := filepath.Join(dir, "j1")
	trigger := func() string {
		p, err := h.c.TriggerCheckpoint(context.Background())
		require.NoError(t, err)
		<-h.completed
		return p
	}
	for range 3 {
		trigger()
	}
	require.Equal(t, map[int64]string{1: "full", 2: "delta", 3: "delta"}, kinds)
	// chk-1 and chk-2 lost their _metadata but keep the files chk-3 needs
	require.Equal(t, []string{"chk-1", "chk-2", "chk-3"}, dirNames(t, job))
	require.Equal(t, []string{"_discarded", "agg-0.state", "agg-1.state"}, dirNames(t, filepath.Join(job, "chk-1")))
	require.Equal(t, []string{"_metadata", "agg-0.state", "agg-1.state"}, dirNames(t, filepath.Join(job, "chk-3")))

	r, err := Open(dir, nil)
	require.NoError(t, err)
	require.Equal(t, int64(3), r.ID())
	rd := r.Reader("agg", 0, 1)
	require.ErrorContains(t, rd.Read("groups", func(arrow.RecordBatch) error { return nil }), "incremental")
	layers := layerRows(t, rd)
	require.Len(t, layers, 3)
	for i, rows := range layers {
		require.Len(t, rows, 2, "layer %d: one row per old subtask", i)
		require.Contains(t, rows[0], `"agg-0-`)
		require.Contains(t, rows[1], `"agg-1-`)
	}
	require.Contains(t, layers[0][0], `"key_group":1`)
	require.Contains(t, layers[2][0], `"key_group":3`)

	// a full snapshot ends the chain: its files go
	trigger()
	require.Equal(t, []string{"chk-4"}, dirNames(t, job))
	trigger()
	require.Equal(t, []string{"chk-4", "chk-5"}, dirNames(t, job))
	require.Equal(t, []string{"_discarded", "agg-0.state", "agg-1.state"}, dirNames(t, filepath.Join(job, "chk-4")))

	// savepoints are always self-contained
	sp, err := h.c.TriggerSavepoint(context.Background(), filepath.Join(dir, "sp"))
	require.NoError(t, err)
	<-h.completed
	require.Equal(t, "full", kinds[6])
	r, err = Open(sp, nil)
	require.NoError(t, err)
	require.Len(t, layerRows(t, r.Reader("agg", 1, 2)), 1)
	// the next checkpoint still builds on chk-5
	trigger()
	require.Equal(t, "delta", kinds[7])
	r, err = Open(job, nil)
	require.NoError(t, err)
	require.Equal(t, int64(7), r.ID())
	require.Len(t, layerRows(t, r.Reader("agg", 0, 1)), 3)
}

func TestIncrementalDeltaOfChecksBase(t *testing.T) {
	dir := t.TempDir()
	var errs []error
	h := newHarness(t, Config{Dir: dir, JobID: "j1", Incremental: true}, tasksOf("agg", 1), func(task TaskID, id int64, w vectorized.StateWriter) error {
		iw := w.(vectorized.IncrementalStateWriter)
		require.Equal(t, id, iw.CheckpointID())
		errs = append(errs, iw.DeltaOf(id-1), iw.DeltaOf(id-2))
		return constState(task, id, w)
	})
	for range 3 {
		_, err := h.c.TriggerCheckpoint(context.Background())
		require.NoError(t, err)
	}
	require.Error(t, errs[0], "checkpoint 0 never completed")
	require.Error(t, errs[1])
	require.NoError(t, errs[2])
	require.Error(t, errs[3], "checkpoint 1 is not the latest")
}

func TestIncrementalCorruptBaseFallsBack(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(t *testing.T, name string)
		want    string
	}{
		{"flipped byte", func(t *testing.T, name string) {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			data[len(data)/2] ^= 0x40
			require.NoError(t, os.WriteFile(name, data, 0o644))
		}, "has checksum"},
		{"deleted", func(t *testing.T, name string) { require.NoError(t, os.Remove(name)) }, "is missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			kinds := map[int64]string{}
			full := func(id int64) bool { return id <= 2 }
			h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 4, Incremental: true}, tasksOf("agg", 2), deltaState(full, kinds))
			var latest string
			for range 4 {
				var err error
				latest, err = h.c.TriggerCheckpoint(context.Background())
				require.NoError(t, err)
			}
			require.Equal(t, map[int64]string{1: "full", 2: "full", 3: "delta", 4: "delta"}, kinds)
			// corrupt the base of chk-4 (chk-3's file, itself a delta of chk-2)
			tc.corrupt(t, filepath.Join(dir, "j1", "chk-3", "agg-1.state"))

			logs := &logBuf{}
			r, err := Open(dir, logs.logf)
			require.NoError(t, err)
			require.Equal(t, int64(2), r.ID())
			require.Contains(t, logs.String(), latest)
			require.Contains(t, logs.String(), "chk-3")
			require.Contains(t, logs.String(), tc.want)
			require.Len(t, layerRows(t, r.Reader("agg", 0, 1)), 1)

			_, err = Open(latest, nil)
			require.ErrorContains(t, err, "base of agg-1.state")
			require.ErrorContains(t, err, tc.want)
		})
	}
}
