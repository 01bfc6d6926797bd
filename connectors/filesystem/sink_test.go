package filesystem

import (
	"context"
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

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

var sinkSchema = types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}

// rows returns a batch of the rows lo..hi-1.
func rows(t *testing.T, lo, hi int) vectorized.Batch {
	t.Helper()
	as, err := types.ArrowSchema(sinkSchema)
	require.NoError(t, err)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	for i := lo; i < hi; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", i))
	}
	return vectorized.Batch{Rec: b.NewRecordBatch()}
}

// memState is a StateWriter and StateReader holding parts in memory; a
// reader over several snapshots merges them.
type memState struct {
	parts       map[string][]arrow.RecordBatch
	subtask     int
	parallelism int
}

func newMemState() *memState {
	return &memState{parts: map[string][]arrow.RecordBatch{}, parallelism: 1}
}

func (m *memState) Write(part string, rec arrow.RecordBatch) error {
	rec.Retain()
	m.parts[part] = append(m.parts[part], rec)
	return nil
}

func (m *memState) Read(part string, fn func(rec arrow.RecordBatch) error) error {
	for _, rec := range m.parts[part] {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

func (m *memState) Owns(kg int) bool {
	return vectorized.SubtaskOf(kg, vectorized.DefaultMaxParallelism, m.parallelism) == m.subtask
}
func (m *memState) Subtask() int     { return m.subtask }
func (m *memState) Parallelism() int { return m.parallelism }

// merged returns a reader for subtask of parallelism over snapshots.
func merged(subtask, parallelism int, snaps ...*memState) *memState {
	out := newMemState()
	out.subtask, out.parallelism = subtask, parallelism
	for _, s := range snaps {
		for p, recs := range s.parts {
			out.parts[p] = append(out.parts[p], recs...)
		}
	}
	return out
}

func newTestSink(t *testing.T, dir string, subtask int, opts map[string]string) *Sink {
	t.Helper()
	o := map[string]string{"connector": "filesystem", "format": "csv", "path": dir}
	for k, v := range opts {
		o[k] = v
	}
	cfg, err := ParseConfig(o)
	require.NoError(t, err)
	s, err := NewSink(cfg, sinkSchema, false, subtask)
	require.NoError(t, err)
	require.NoError(t, s.Open(context.Background()))
	return s
}

// visible returns the sorted lines of the visible files of dir.
func visible(t *testing.T, dir string) []string {
	t.Helper()
	files, err := ListFiles(dir)
	require.NoError(t, err)
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	sort.Strings(lines)
	return lines
}

func wantLines(lo, hi int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		out = append(out, fmt.Sprintf("%d,row %d", i, i))
	}
	sort.Strings(out)
	return out
}

func sorted(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	sort.Strings(out)
	return out
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestSinkCrashAndRestore writes, checkpoints, crashes (the sink is
// dropped without Finish or Close) and restores a new sink from one of
// the checkpoints: the output holds exactly the rows that checkpoint
// covers, and after the restored job rewrites the rest every row once.
func TestSinkCrashAndRestore(t *testing.T) {
	tests := []struct {
		name        string
		restoreFrom int // 1 or 2
		committed   int // Commit was called up to this checkpoint before the crash
		want        int // rows visible after RestoreState
	}{
		{"from 2, commit 2 lost", 2, 1, 20},
		{"from 2, committed", 2, 2, 20},
		{"from 1, checkpoint 2 incomplete", 1, 1, 10},
		{"from 1, nothing committed", 1, 0, 10},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newTestSink(t, dir, 0, nil)
			snaps := map[int]*memState{1: newMemState(), 2: newMemState()}
			require.NoError(t, s.Write(ctx, rows(t, 0, 5)))
			require.NoError(t, s.Write(ctx, rows(t, 5, 10)))
			require.NoError(t, s.PreCommit(ctx, 1, snaps[1]))
			require.Empty(t, visible(t, dir))
			if tc.committed >= 1 {
				require.NoError(t, s.Commit(ctx, 1))
				require.Equal(t, wantLines(0, 10), visible(t, dir))
			}
			require.NoError(t, s.Write(ctx, rows(t, 10, 20)))
			require.NoError(t, s.PreCommit(ctx, 2, snaps[2]))
			if tc.committed >= 2 {
				require.NoError(t, s.Commit(ctx, 2))
			}
			require.NoError(t, s.Write(ctx, rows(t, 20, 25))) // in progress at the crash
			// Crash: s is dropped.

			r := newTestSink(t, dir, 0, nil)
			require.NoError(t, r.RestoreState(ctx, merged(0, 1, snaps[tc.restoreFrom])))
			require.Equal(t, wantLines(0, tc.want), visible(t, dir))
			for _, n := range names(t, dir) {
				require.False(t, strings.HasPrefix(n, "."), "leftover %s", n)
			}
			// The restored job replays the rows after the checkpoint.
			require.NoError(t, r.Write(ctx, rows(t, tc.want, 30)))
			require.NoError(t, r.PreCommit(ctx, 3, newMemState()))
			require.NoError(t, r.Commit(ctx, 3))
			require.NoError(t, r.Finish(ctx))
			require.NoError(t, r.Close())
			require.Equal(t, wantLines(0, 30), visible(t, dir))
		})
	}
}

func TestSinkCommitIdempotent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestSink(t, dir, 0, nil)
	snap := newMemState()
	require.NoError(t, s.Write(ctx, rows(t, 0, 3)))
	require.NoError(t, s.PreCommit(ctx, 1, snap))
	require.NoError(t, s.Commit(ctx, 0))
	require.Empty(t, visible(t, dir))
	for i := 0; i < 2; i++ {
		require.NoError(t, s.Commit(ctx, 1))
		require.Equal(t, wantLines(0, 3), visible(t, dir))
	}
	// Restoring the same committables again (twice) changes nothing.
	for i := 0; i < 2; i++ {
		r := newTestSink(t, dir, 0, nil)
		require.NoError(t, r.RestoreState(ctx, merged(0, 1, snap)))
		require.Equal(t, wantLines(0, 3), visible(t, dir))
	}
	// A committable whose pending and final files are both gone is an error.
	for _, n := range names(t, dir) {
		require.NoError(t, os.Remove(filepath.Join(dir, n)))
	}
	r := newTestSink(t, dir, 0, nil)
	require.ErrorContains(t, r.RestoreState(ctx, merged(0, 1, snap)), "neither the pending file")
}

func TestSinkSubtaskNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for sub := 0; sub < 2; sub++ {
		s := newTestSink(t, dir, sub, nil)
		require.NoError(t, s.Write(ctx, rows(t, sub*10, sub*10+10)))
		require.NoError(t, s.Finish(ctx))
		require.NoError(t, s.Close())
	}
	got := names(t, dir)
	require.Len(t, got, 2)
	var subs []string
	for _, n := range got {
		require.Regexp(t, regexp.MustCompile(`^part-[0-9a-f-]{36}-[01]-0$`), n)
		p, ok := parsePartName(n)
		require.True(t, ok, n)
		subs = append(subs, fmt.Sprint(p.subtask))
	}
	sort.Strings(subs)
	require.Equal(t, []string{"0", "1"}, subs)
	require.Equal(t, wantLines(0, 20), visible(t, dir))
}

// TestSinkRescale restores two subtasks' committables into one and into
// three new instances.
func TestSinkRescale(t *testing.T) {
	ctx := context.Background()
	for _, newP := range []int{1, 3} {
		t.Run(fmt.Sprint(newP), func(t *testing.T) {
			dir := t.TempDir()
			var snaps []*memState
			for sub := 0; sub < 2; sub++ {
				s := newTestSink(t, dir, sub, nil)
				snap := newMemState()
				require.NoError(t, s.Write(ctx, rows(t, sub*10, sub*10+10)))
				require.NoError(t, s.PreCommit(ctx, 1, snap))
				require.NoError(t, s.Write(ctx, rows(t, 100, 101))) // lost at the crash
				snaps = append(snaps, snap)
			}
			for sub := 0; sub < newP; sub++ {
				r := newTestSink(t, dir, sub, nil)
				require.NoError(t, r.RestoreState(ctx, merged(sub, newP, snaps...)))
			}
			require.Equal(t, wantLines(0, 20), visible(t, dir))
			require.Len(t, names(t, dir), 2)
		})
	}
}

func TestSinkRolling(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		opts  map[string]string
		files int
	}{
		{"default", nil, 1},
		{"file size", map[string]string{"sink.rolling-policy.file-size": "10b"}, 3},
		{"interval", map[string]string{"sink.rolling-policy.rollover-interval": "1 ms"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newTestSink(t, dir, 0, tc.opts)
			for i := 0; i < 3; i++ {
				if tc.opts["sink.rolling-policy.rollover-interval"] != "" {
					time.Sleep(3 * time.Millisecond)
				}
				require.NoError(t, s.Write(ctx, rows(t, i*4, i*4+4)))
			}
			require.NoError(t, s.Finish(ctx))
			require.Len(t, names(t, dir), tc.files)
			require.Equal(t, wantLines(0, 12), visible(t, dir))
		})
	}
	for _, bad := range []map[string]string{
		{"sink.rolling-policy.file-size": "big"},
		{"sink.rolling-policy.rollover-interval": "soon"},
	} {
		_, err := ParseConfig(map[string]string{"format": "csv", "path": t.TempDir(), "sink.rolling-policy.file-size": bad["sink.rolling-policy.file-size"], "sink.rolling-policy.rollover-interval": bad["sink.rolling-policy.rollover-interval"]})
		require.ErrorContains(t, err, "Could not parse value")
	}
}

// TestSinkWithoutCheckpoints keeps the batch behaviour: an aborted write
// leaves nothing, even when files rolled.
func TestSinkWithoutCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestSink(t, dir, 0, map[string]string{"sink.rolling-policy.file-size": "10b"})
	require.NoError(t, s.Write(ctx, rows(t, 0, 4)))
	require.NoError(t, s.Write(ctx, rows(t, 4, 8)))
	require.NoError(t, s.Close())
	require.Empty(t, names(t, dir))
}

// TestSinkCommitConcurrentWithWrite commits from another goroutine while
// the sink writes and pre-commits (run with -race).
func TestSinkCommitConcurrentWithWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := newTestSink(t, dir, 0, map[string]string{"sink.rolling-policy.file-size": "100b"})
	commits := make(chan int64, 100)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := range commits {
			require.NoError(t, s.Commit(ctx, id))
		}
	}()
	for id := int64(1); id <= 20; id++ {
		require.NoError(t, s.Write(ctx, rows(t, int(id-1)*10, int(id)*10)))
		require.NoError(t, s.PreCommit(ctx, id, newMemState()))
		commits <- id
	}
	close(commits)
	wg.Wait()
	require.Equal(t, wantLines(0, 200), visible(t, dir))
	require.NoError(t, s.Finish(ctx))
	require.NoError(t, s.Close())
}

func TestSinkOverwriteWithCheckpointing(t *testing.T) {
	cfg, err := ParseConfig(map[string]string{"format": "csv", "path": t.TempDir()})
	require.NoError(t, err)
	s, err := NewSink(cfg, sinkSchema, true, 0)
	require.NoError(t, err)
	require.NoError(t, s.Open(context.Background()))
	require.ErrorContains(t, s.PreCommit(context.Background(), 1, newMemState()), "not supported yet: INSERT OVERWRITE")
}

// TestSinkRollbackToOlderCheckpoint restores from an older checkpoint
// than the latest committed one (the latest is corrupt): files committed
// after it are rolled back, so that the replay does not duplicate rows;
// files of another job in the same directory stay.
func TestSinkRollbackToOlderCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// Another job's files, visible and in progress.
	other := newTestSink(t, dir, 0, nil)
	require.NoError(t, other.Write(ctx, rows(t, 1000, 1001)))
	require.NoError(t, other.PreCommit(ctx, 1, newMemState()))
	require.NoError(t, other.Commit(ctx, 1))
	require.NoError(t, other.Write(ctx, rows(t, 1001, 1002)))
	require.NoError(t, other.PreCommit(ctx, 2, newMemState()))
	otherLines := []string{"1000,row 1000"}

	// Run A: checkpoints 1 and 2, both committed, then a crash.
	a := newTestSink(t, dir, 0, nil)
	snaps := map[int64]*memState{}
	checkpoint := func(s *Sink, id int64, lo, hi int) {
		require.NoError(t, s.Write(ctx, rows(t, lo, hi)))
		snaps[id] = newMemState()
		require.NoError(t, s.PreCommit(ctx, id, snaps[id]))
		require.NoError(t, s.Commit(ctx, id))
	}
	checkpoint(a, 1, 0, 10)
	checkpoint(a, 2, 10, 20)
	require.NoError(t, a.Write(ctx, rows(t, 20, 25)))
	require.Equal(t, sorted(wantLines(0, 20), otherLines), visible(t, dir))

	// Run B restores from 1 (2 is corrupt), checkpoints 3, crashes.
	b := newTestSink(t, dir, 0, nil)
	require.NoError(t, b.RestoreState(ctx, merged(0, 1, snaps[1])))
	require.Equal(t, sorted(wantLines(0, 10), otherLines), visible(t, dir))
	checkpoint(b, 3, 10, 15)
	require.NoError(t, b.Write(ctx, rows(t, 15, 17)))

	// Run C restores from 1 again (3 is corrupt too): B's files go.
	c := newTestSink(t, dir, 0, nil)
	require.NoError(t, c.RestoreState(ctx, merged(0, 1, snaps[1])))
	require.Equal(t, sorted(wantLines(0, 10), otherLines), visible(t, dir))
	checkpoint(c, 4, 10, 12)

	// Run D restores from 4: A's files before 1 and C's stay.
	d := newTestSink(t, dir, 0, nil)
	require.NoError(t, d.RestoreState(ctx, merged(0, 1, snaps[4])))
	require.Equal(t, sorted(wantLines(0, 12), otherLines), visible(t, dir))
	require.NoError(t, d.Write(ctx, rows(t, 12, 30)))
	require.NoError(t, d.Finish(ctx))
	require.NoError(t, d.Close())
	require.Equal(t, sorted(wantLines(0, 30), otherLines), visible(t, dir))
	hiddenLeft := 0
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, ".") {
			hiddenLeft++
		}
	}
	require.Equal(t, 1, hiddenLeft, "the other job's pending file stays")
}
