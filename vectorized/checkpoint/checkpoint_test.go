package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

var keyedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key_group", Type: arrow.PrimitiveTypes.Int32},
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "cnt", Type: arrow.PrimitiveTypes.Int64},
	{Name: "total", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
	{Name: "hist", Type: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), Nullable: true},
}, nil)

var posSchema = arrow.NewSchema([]arrow.Field{
	{Name: "file", Type: arrow.BinaryTypes.String},
	{Name: "offset", Type: arrow.PrimitiveTypes.Int64},
}, nil)

func recordJSON(schema *arrow.Schema, js string) (arrow.RecordBatch, error) {
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, schema, strings.NewReader(js))
	return rec, err
}

// keyedRows returns one row per key group in kgs.
func keyedRows(kgs []int, tag string) (arrow.RecordBatch, error) {
	var parts []string
	for _, kg := range kgs {
		parts = append(parts, fmt.Sprintf(`{"key_group": %d, "k": "%s-%d", "cnt": %d, "total": "%d.25", "hist": [[%d, 2], null, []]}`, kg, tag, kg, kg*10, kg, kg))
	}
	return recordJSON(keyedSchema, "["+strings.Join(parts, ",")+"]")
}

// harness runs a coordinator whose trigger makes every task snapshot
// state(task, id) on its own goroutine.
type harness struct {
	c         *Coordinator
	completed chan int64
	logs      *logBuf
	// snapshots counts the task goroutines still snapshotting: the
	// cleanup waits for them, or a late state file lands in a checkpoint
	// directory while the test's TempDir is being removed.
	snapshots sync.WaitGroup
}

type logBuf struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, fmt.Sprintf(format, args...))
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "\n")
}

func newHarness(t *testing.T, cfg Config, tasks []TaskID, state func(task TaskID, id int64, w vectorized.StateWriter) error) *harness {
	t.Helper()
	h := &harness{completed: make(chan int64, 100), logs: &logBuf{}}
	cfg.Logf = h.logs.logf
	var err error
	h.c, err = NewCoordinator(cfg, tasks, func(id int64) {
		for _, task := range tasks {
			h.snapshots.Go(func() {
				_ = h.c.Snapshot(id, task, func(w vectorized.StateWriter) error { return state(task, id, w) })
			})
		}
	})
	require.NoError(t, err)
	h.c.OnComplete(func(id int64) { h.completed <- id })
	t.Cleanup(func() {
		h.c.Stop()
		h.snapshots.Wait()
	})
	return h
}

func tasksOf(op string, p int) []TaskID {
	var out []TaskID
	for i := 0; i < p; i++ {
		out = append(out, TaskID{Operator: op, Subtask: i})
	}
	return out
}

// ownedKeyGroups lists the key groups subtask owns at parallelism p.
func ownedKeyGroups(subtask, p int) []int {
	var out []int
	for kg := 0; kg < vectorized.DefaultMaxParallelism; kg++ {
		if vectorized.SubtaskOf(kg, vectorized.DefaultMaxParallelism, p) == subtask {
			out = append(out, kg)
		}
	}
	return out
}

// readAll returns the rows of a part as JSON lines, plus the key groups
// of keyed rows the reader owns.
func readAll(t *testing.T, r vectorized.StateReader, part string) (rows []string, owned []int) {
	t.Helper()
	err := r.Read(part, func(rec arrow.RecordBatch) error {
		js, err := rec.MarshalJSON()
		if err != nil {
			return err
		}
		rows = append(rows, string(js))
		if rec.Schema().Field(0).Name == "key_group" {
			col := rec.Column(0).(*array.Int32)
			for i := 0; i < col.Len(); i++ {
				if r.Owns(int(col.Value(i))) {
					owned = append(owned, int(col.Value(i)))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return rows, owned
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tasks := append(tasksOf("3-GroupAggregate", 2), TaskID{Operator: "0-Source", Subtask: 0})
	h := newHarness(t, Config{Dir: dir, JobID: "abcdef0123456789abcdef0123456789"}, tasks,
		func(task TaskID, id int64, w vectorized.StateWriter) error {
			if task.Operator == "0-Source" {
				rec, err := recordJSON(posSchema, fmt.Sprintf(`[{"file": "a.csv", "offset": %d}]`, id*100))
				if err != nil {
					return err
				}
				defer rec.Release()
				return w.Write("position", rec)
			}
			for i, tag := range []string{"x", "y"} {
				rec, err := keyedRows(ownedKeyGroups(task.Subtask, 2)[i:i+2], tag)
				if err != nil {
					return err
				}
				if err := w.Write("groups", rec); err != nil {
					return err
				}
				rec.Release()
			}
			return nil
		})
	h.c.SetMeta(map[string]string{"plan": "q17"})
	path, err := h.c.TriggerCheckpoint(context.Background())
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "abcdef0123456789abcdef0123456789", "chk-1"), path)
	require.Equal(t, int64(1), <-h.completed)
	st := h.c.Stats()
	require.Equal(t, 1, st.Completed)
	require.Equal(t, int64(1), st.LastID)
	require.Equal(t, path, st.LastPath)
	require.Positive(t, st.LastSize)
	for _, f := range []string{"3-GroupAggregate-0.state", "3-GroupAggregate-1.state", "0-Source-0.state", MetadataFile} {
		require.FileExists(t, filepath.Join(path, f))
	}

	tests := []struct {
		name string
		open string
	}{
		{"root", dir},
		{"job dir", filepath.Join(dir, "abcdef0123456789abcdef0123456789")},
		{"chk dir", path},
		{"metadata file", filepath.Join(path, MetadataFile)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.open, nil)
			require.NoError(t, err)
			require.Equal(t, int64(1), r.ID())
			require.Equal(t, path, r.Path())
			require.Equal(t, map[string]string{"plan": "q17"}, r.Meta())
			require.Equal(t, []string{"0-Source", "3-GroupAggregate"}, r.Operators())
			require.Equal(t, 2, r.Parallelism("3-GroupAggregate"))
			require.False(t, r.Savepoint())

			rows, _ := readAll(t, r.Reader("0-Source", 0, 1), "position")
			require.Equal(t, []string{`[{"file":"a.csv","offset":100}` + "\n]"}, []string{strings.ReplaceAll(rows[0], "\n,", ",")})

			rows, _ = readAll(t, r.Reader("3-GroupAggregate", 0, 1), "groups")
			require.Len(t, rows, 4) // two batches from each subtask, subtask 0 first
			require.Contains(t, rows[0], `"k":"x-0"`)
			require.Contains(t, rows[0], `"total":"0.25"`)
			require.Contains(t, rows[0], `"hist":[[0,2],null,[]]`)
			require.Contains(t, rows[2], `"k":"x-64"`)

			rows, _ = readAll(t, r.Reader("3-GroupAggregate", 0, 1), "nothing")
			require.Empty(t, rows)
			rows, _ = readAll(t, r.Reader("9-Unknown", 0, 1), "groups")
			require.Empty(t, rows)
		})
	}
}

func TestRescale(t *testing.T) {
	tests := []struct{ from, to int }{{1, 2}, {2, 1}, {2, 3}, {3, 2}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-to-%d", tc.from, tc.to), func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t, Config{Dir: dir}, tasksOf("agg", tc.from), func(task TaskID, id int64, w vectorized.StateWriter) error {
				rec, err := keyedRows(ownedKeyGroups(task.Subtask, tc.from), "k")
				if err != nil {
					return err
				}
				defer rec.Release()
				return w.Write("groups", rec)
			})
			_, err := h.c.TriggerCheckpoint(context.Background())
			require.NoError(t, err)
			r, err := Open(dir, nil)
			require.NoError(t, err)
			var all []int
			for s := 0; s < tc.to; s++ {
				rd := r.Reader("agg", s, tc.to)
				require.Equal(t, s, rd.Subtask())
				require.Equal(t, tc.to, rd.Parallelism())
				_, owned := readAll(t, rd, "groups")
				require.Equal(t, ownedKeyGroups(s, tc.to), owned)
				all = append(all, owned...)
			}
			require.Len(t, all, vectorized.DefaultMaxParallelism)
		})
	}
}

func constState(task TaskID, id int64, w vectorized.StateWriter) error {
	rec, err := keyedRows([]int{int(id)}, task.String())
	if err != nil {
		return err
	}
	defer rec.Release()
	return w.Write("groups", rec)
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 2}, tasksOf("agg", 2), constState)
	for i := 0; i < 4; i++ {
		_, err := h.c.TriggerCheckpoint(context.Background())
		require.NoError(t, err)
	}
	// A savepoint in the same root is never discarded.
	sp, err := h.c.TriggerSavepoint(context.Background(), dir)
	require.NoError(t, err)
	_, err = h.c.TriggerCheckpoint(context.Background())
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Join(dir, "j1"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"chk-4", "chk-6"}, names)
	require.DirExists(t, sp)
	got := []int64{}
	for len(got) < 6 {
		got = append(got, <-h.completed)
	}
	require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, got)
}

func TestCorruptLatestFallsBack(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(t *testing.T, chk string)
		want    string
	}{
		{"flipped byte", func(t *testing.T, chk string) {
			name := filepath.Join(chk, "agg-1.state")
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			data[len(data)/2] ^= 0x40
			require.NoError(t, os.WriteFile(name, data, 0o644))
		}, "agg-1.state has checksum"},
		{"truncated metadata", func(t *testing.T, chk string) {
			name := filepath.Join(chk, MetadataFile)
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(name, data[:len(data)/2], 0o644))
		}, MetadataFile + ": unexpected end of JSON input"},
		{"deleted state file", func(t *testing.T, chk string) {
			require.NoError(t, os.Remove(filepath.Join(chk, "agg-0.state")))
		}, "agg-0.state is missing"},
		{"truncated state file", func(t *testing.T, chk string) {
			name := filepath.Join(chk, "agg-0.state")
			require.NoError(t, os.Truncate(name, 10))
		}, "agg-0.state has 10 bytes"},
		{"flipped byte in an operator id of _metadata", func(t *testing.T, chk string) {
			name := filepath.Join(chk, MetadataFile)
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			i := strings.Index(string(data), `"operator": "agg"`)
			require.GreaterOrEqual(t, i, 0)
			data[i+len(`"operator": "a`)] ^= 0x01 // agg → afg
			require.NoError(t, os.WriteFile(name, data, 0o644))
		}, MetadataFile + ": checksum mismatch"},
		{"flipped checksum of _metadata", func(t *testing.T, chk string) {
			name := filepath.Join(chk, MetadataFile)
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			i := strings.Index(string(data), `"checksum": `)
			require.GreaterOrEqual(t, i, 0)
			data[i+len(`"checksum": `)] ^= 0x01
			require.NoError(t, os.WriteFile(name, data, 0o644))
		}, MetadataFile + ": "},
		{"no metadata", func(t *testing.T, chk string) {
			require.NoError(t, os.Remove(filepath.Join(chk, MetadataFile)))
		}, "incomplete checkpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 3}, tasksOf("agg", 2), constState)
			var latest string
			for i := 0; i < 2; i++ {
				var err error
				latest, err = h.c.TriggerCheckpoint(context.Background())
				require.NoError(t, err)
			}
			tc.corrupt(t, latest)

			logs := &logBuf{}
			r, err := Open(dir, logs.logf)
			require.NoError(t, err)
			require.Equal(t, int64(1), r.ID())
			require.Contains(t, logs.String(), "Skipping")
			require.Contains(t, logs.String(), latest)
			require.Contains(t, logs.String(), tc.want)
			rows, _ := readAll(t, r.Reader("agg", 0, 1), "groups")
			require.Len(t, rows, 2)

			_, err = Open(latest, nil)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, latest)
		})
	}
}

// TestMetadataEveryFlippedByte flips each byte of a _metadata in turn: no
// flip may open as a valid checkpoint.
func TestMetadataEveryFlippedByte(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, Config{Dir: dir, JobID: "j1", NumRetained: 3}, tasksOf("agg", 2), constState)
	latest, err := h.c.TriggerCheckpoint(context.Background())
	require.NoError(t, err)
	name := filepath.Join(latest, MetadataFile)
	orig, err := os.ReadFile(name)
	require.NoError(t, err)
	for i := range orig {
		for _, bit := range []byte{0x01, 0x20} {
			data := append([]byte(nil), orig...)
			data[i] ^= bit
			require.NoError(t, os.WriteFile(name, data, 0o644))
			_, err := Open(latest, nil)
			require.Error(t, err, "byte %d ^ %#x of %s opened", i, bit, name)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing"), nil)
	require.ErrorContains(t, err, "Cannot access checkpoint or savepoint path")
	_, err = Open(dir, nil)
	require.ErrorContains(t, err, "no valid checkpoint or savepoint found under "+dir)
}

func TestConcurrentSnapshots(t *testing.T) {
	dir := t.TempDir()
	var tasks []TaskID
	for _, op := range []string{"1-Source", "2-Join", "3-GroupAggregate", "4-Sink"} {
		tasks = append(tasks, tasksOf(op, 4)...)
	}
	h := newHarness(t, Config{Dir: dir, JobID: "j", Interval: 5 * time.Millisecond, NumRetained: 2}, tasks, constState)
	h.c.Start(context.Background())
	var got []int64
	for len(got) < 5 {
		select {
		case id := <-h.completed:
			got = append(got, id)
		case <-time.After(10 * time.Second):
			t.Fatal("checkpoints do not complete")
		}
	}
	h.c.Stop()
	require.True(t, sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }))
	require.Equal(t, int64(1), got[0])
	r, err := Open(dir, nil)
	require.NoError(t, err)
	require.Len(t, r.Operators(), 4)
	require.GreaterOrEqual(t, h.c.Stats().Completed, 5)
}

func TestSavepoint(t *testing.T) {
	dir := t.TempDir()
	spDir := filepath.Join(dir, "savepoints")
	h := newHarness(t, Config{JobID: "0123456789abcdef0123456789abcdef"}, tasksOf("agg", 1), constState)
	h.c.SetFirstID(8)
	path, err := h.c.TriggerSavepoint(context.Background(), spDir)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^savepoint-012345-[0-9a-f]{12}$`), filepath.Base(path))
	require.Equal(t, spDir, filepath.Dir(path))
	require.Equal(t, int64(8), <-h.completed)
	for _, open := range []string{path, spDir} {
		r, err := Open(open, nil)
		require.NoError(t, err)
		require.True(t, r.Savepoint())
		require.Equal(t, int64(8), r.ID())
		require.Equal(t, path, r.Path())
	}
	st := h.c.Stats()
	require.True(t, st.LastSavepoint)
	require.Equal(t, path, st.LastPath)

	_, err = h.c.TriggerSavepoint(context.Background(), "")
	require.ErrorContains(t, err, "No savepoint directory configured")
	_, err = h.c.TriggerCheckpoint(context.Background())
	require.ErrorContains(t, err, "no checkpoint directory")
}

func TestTolerableFailures(t *testing.T) {
	tests := []struct {
		name      string
		tolerable int
		outcomes  []bool // true: the checkpoint succeeds
		fails     bool
	}{
		{"zero tolerated", 0, []bool{false}, true},
		{"one tolerated", 1, []bool{false, true, false, true}, false},
		{"two in a row", 1, []bool{true, false, false}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var mu sync.Mutex
			outcome := map[int64]bool{}
			var c *Coordinator
			c, err := NewCoordinator(Config{Dir: dir, JobID: "j", TolerableFailures: tc.tolerable}, tasksOf("agg", 2), func(id int64) {
				mu.Lock()
				ok := outcome[id]
				mu.Unlock()
				for _, task := range tasksOf("agg", 2) {
					go func() {
						if !ok && task.Subtask == 1 {
							c.Decline(id, task, errors.New("disk full"))
							return
						}
						_ = c.Snapshot(id, task, func(w vectorized.StateWriter) error { return constState(task, id, w) })
					}()
				}
			})
			require.NoError(t, err)
			defer c.Stop()
			for i, ok := range tc.outcomes {
				mu.Lock()
				outcome[int64(i+1)] = ok
				mu.Unlock()
				_, err := c.TriggerCheckpoint(context.Background())
				if ok {
					require.NoError(t, err)
				} else {
					require.ErrorContains(t, err, "Task agg-1 declined checkpoint")
					// Discarded once subtask 0 (racing with the decline) is done.
					require.Eventually(t, func() bool {
						_, err := os.Stat(filepath.Join(dir, "j", fmt.Sprintf("chk-%d", i+1)))
						return os.IsNotExist(err)
					}, 5*time.Second, time.Millisecond)
				}
			}
			select {
			case err := <-c.Failed():
				require.True(t, tc.fails, "unexpected: %v", err)
				require.ErrorContains(t, err, "Exceeded checkpoint tolerable failure threshold")
				require.ErrorContains(t, err, "disk full")
			default:
				require.False(t, tc.fails)
			}
			failed := 0
			for _, ok := range tc.outcomes {
				if !ok {
					failed++
				}
			}
			require.Equal(t, failed, c.Stats().Failed)
		})
	}
}

func TestTimeout(t *testing.T) {
	dir := t.TempDir()
	logs := &logBuf{}
	c, err := NewCoordinator(Config{Dir: dir, JobID: "j", Timeout: 30 * time.Millisecond, Logf: logs.logf}, tasksOf("agg", 2), func(id int64) {
		// Only subtask 0 ever acknowledges.
	})
	require.NoError(t, err)
	defer c.Stop()
	_, err = c.TriggerCheckpoint(context.Background())
	require.ErrorContains(t, err, "Checkpoint expired before completing.")
	select {
	case err := <-c.Failed():
		require.ErrorContains(t, err, "Checkpoint expired before completing.")
	case <-time.After(5 * time.Second):
		t.Fatal("no failure reported")
	}
	require.Contains(t, logs.String(), "Checkpoint 1 of job j failed")
	// A late acknowledgement is ignored.
	require.NoError(t, c.Snapshot(1, TaskID{"agg", 0}, func(w vectorized.StateWriter) error { return nil }))
	require.Error(t, c.Snapshot(1, TaskID{"other", 0}, func(w vectorized.StateWriter) error { return nil }))
	require.ErrorContains(t, c.Snapshot(5, TaskID{"agg", 0}, func(w vectorized.StateWriter) error { return nil }), "was not triggered")
	st := c.Stats()
	require.Equal(t, 1, st.Failed)
	require.Equal(t, 0, st.InProgress)
	require.NoDirExists(t, filepath.Join(dir, "j", "chk-1"))
}

func TestSnapshotErrors(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, Config{Dir: dir, JobID: "j", TolerableFailures: 5}, tasksOf("agg", 1), func(task TaskID, id int64, w vectorized.StateWriter) error {
		a, err := recordJSON(posSchema, `[{"file": "a", "offset": 1}]`)
		if err != nil {
			return err
		}
		if err := w.Write("p", a); err != nil {
			return err
		}
		b, err := keyedRows([]int{1}, "x")
		if err != nil {
			return err
		}
		return w.Write("p", b)
	})
	_, err := h.c.TriggerCheckpoint(context.Background())
	require.ErrorContains(t, err, "differs from the part's schema")
	require.Equal(t, 1, h.c.Stats().Failed)
}

// TestStopWaitsForCompletion: Stop called while a fully acknowledged
// checkpoint is completing returns only after its listeners (the sinks'
// commits) have run, so nothing of the job happens after Stop.
func TestStopWaitsForCompletion(t *testing.T) {
	dir := t.TempDir()
	tasks := tasksOf("0-Source", 1)
	h := newHarness(t, Config{Dir: dir, JobID: "abcdef0123456789abcdef0123456789"}, tasks,
		func(task TaskID, id int64, w vectorized.StateWriter) error {
			rec, err := recordJSON(posSchema, `[{"file": "a.csv", "offset": 1}]`)
			if err != nil {
				return err
			}
			defer rec.Release()
			return w.Write("position", rec)
		})
	entered, release := make(chan struct{}), make(chan struct{})
	var committed bool
	h.c.OnComplete(func(id int64) {
		close(entered)
		<-release
		committed = true
	})
	_, err := h.c.triggerCheckpoint("")
	require.NoError(t, err)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the checkpoint did not complete")
	}
	stopped := make(chan struct{})
	go func() {
		h.c.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a listener of a completing checkpoint was running")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	<-stopped
	require.True(t, committed)
	_, err = os.Stat(filepath.Join(dir, "abcdef0123456789abcdef0123456789", "chk-1", "_metadata"))
	require.NoError(t, err)
}
