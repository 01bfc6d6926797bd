package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
	"github.com/tablerun/tablerun/vectorized"
)

var partSchema = types.Schema{
	{Name: "v", Type: types.BigIntT},
	{Name: "dt", Type: types.StringT},
	{Name: "hm", Type: types.StringT},
}

// partRows builds rows (v, dt, hm); an empty dt is NULL.
func partRows(t *testing.T, rows ...[3]any) vectorized.Batch {
	t.Helper()
	as, err := types.ArrowSchema(partSchema)
	require.NoError(t, err)
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(r[0].(int)))
		if r[1].(string) == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(r[1].(string))
		}
		b.Field(2).(*array.StringBuilder).Append(r[2].(string))
	}
	return vectorized.Batch{Rec: b.NewRecordBatch()}
}

func partConfig(t *testing.T, dir string, extra map[string]string) Config {
	t.Helper()
	o := map[string]string{"format": "csv", "path": "file://" + dir,
		"sink.partition-commit.trigger":              "partition-time",
		"sink.partition-commit.delay":                "1 min",
		"sink.partition-commit.policy.kind":          "success-file",
		"partition.time-extractor.timestamp-pattern": "$dt $hm:00",
	}
	for k, v := range extra {
		o[k] = v
	}
	cfg, err := ParseConfig(o)
	require.NoError(t, err)
	cfg.PartitionKeys = []string{"dt", "hm"}
	return cfg
}

func ms(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.ParseInLocation("2006-01-02 15:04:05", s, time.UTC)
	require.NoError(t, err)
	return tm.UnixMilli()
}

func TestEscapePartitionPath(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"10:05", "10%3A05"},
		{"2024-01-01", "2024-01-01"},
		{"a/b=c", "a%2Fb%3Dc"},
		{"x%y", "x%25y"},
		{"tab\there", "tab%09here"},
		{"a}b", "a}b"},
	} {
		require.Equal(t, c.out, escapePath(c.in), c.in)
		require.Equal(t, c.in, unescapePath(c.out), c.out)
	}
	require.Equal(t, "100%", unescapePath("100%"))
}

// TestPartitionedSinkCommit writes partitions under checkpoints: a
// partition commits (_SUCCESS) at the checkpoint whose watermark passed
// its time plus the delay; a restored sink commits the partitions the
// checkpoint left waiting.
func TestPartitionedSinkCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := partConfig(t, dir, nil)
	s, err := NewSink(cfg, partSchema, false, 0)
	require.NoError(t, err)
	require.NoError(t, s.Open(ctx))
	success := func(hm string) bool {
		_, err := os.Stat(filepath.Join(dir, "dt=2024-01-01", "hm="+escapePath(hm), "_SUCCESS"))
		return err == nil
	}
	require.NoError(t, s.Write(ctx, partRows(t, [3]any{1, "2024-01-01", "10:00"}, [3]any{2, "2024-01-01", "10:00"}, [3]any{3, "2024-01-01", "10:01"})))
	require.NoError(t, s.OnWatermark(ctx, ms(t, "2024-01-01 10:00:59")))
	ck1 := &statetest.Checkpoint{}
	require.NoError(t, s.PreCommit(ctx, 1, ck1.Writer()))
	require.NoError(t, s.Commit(ctx, 1))
	require.False(t, success("10:00"), "watermark below partition time + delay")
	require.Equal(t, []string{"1", "2", "3"}, visibleLines(t, dir))

	require.NoError(t, s.OnWatermark(ctx, ms(t, "2024-01-01 10:01:00")+1))
	ck2 := &statetest.Checkpoint{}
	require.NoError(t, s.PreCommit(ctx, 2, ck2.Writer()))
	require.False(t, success("10:00"), "commits wait for the checkpoint to complete")
	require.NoError(t, s.Commit(ctx, 2))
	require.True(t, success("10:00"))
	require.False(t, success("10:01"))
	require.NoError(t, s.Close())

	// Restore from checkpoint 2: 10:01 still waits for its commit.
	s2, err := NewSink(cfg, partSchema, false, 0)
	require.NoError(t, err)
	require.NoError(t, s2.Open(ctx))
	require.NoError(t, s2.RestoreState(ctx, ck2.Reader(0, 1)))
	require.NoError(t, s2.Write(ctx, partRows(t, [3]any{4, "2024-01-01", "10:02"})))
	require.NoError(t, s2.OnWatermark(ctx, ms(t, "2024-01-01 10:02:30")))
	ck3 := &statetest.Checkpoint{}
	require.NoError(t, s2.PreCommit(ctx, 3, ck3.Writer()))
	require.NoError(t, s2.Commit(ctx, 3))
	require.True(t, success("10:01"))
	require.False(t, success("10:02"))
	// The end of the input commits everything.
	require.NoError(t, s2.Finish(ctx))
	require.NoError(t, s2.Close())
	require.True(t, success("10:02"))
	require.Equal(t, []string{"1", "2", "3", "4"}, visibleLines(t, dir))
}

// visibleLines returns the sorted lines of the visible files under dir.
func visibleLines(t *testing.T, dir string) []string {
	t.Helper()
	files, err := ListFiles(dir)
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestPartitionedRoundTrip writes a partitioned table (a NULL partition
// value goes to __DEFAULT_PARTITION__) and reads it back with several
// projections.
func TestPartitionedRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			cfg := partConfig(t, dir, map[string]string{"format": format})
			s, err := NewSink(cfg, partSchema, false, 0)
			require.NoError(t, err)
			require.NoError(t, s.Open(ctx))
			require.NoError(t, s.Write(ctx, partRows(t, [3]any{1, "2024-01-01", "10:00"}, [3]any{2, "", "10:00"}, [3]any{3, "2024-01-02", "23:59"})))
			require.NoError(t, s.Finish(ctx))
			require.NoError(t, s.Close())
			_, err = os.Stat(filepath.Join(dir, "dt=__DEFAULT_PARTITION__", "hm=10%3A00", "_SUCCESS"))
			require.NoError(t, err)

			for _, c := range []struct {
				proj []int
				want []string
			}{
				{nil, []string{"1 2024-01-01 10:00", "2 <nil> 10:00", "3 2024-01-02 23:59"}},
				{[]int{2, 0}, []string{"10:00 1", "10:00 2", "23:59 3"}},
				{[]int{1}, []string{"2024-01-01", "2024-01-02", "<nil>"}},
			} {
				src, err := NewSource(cfg, partSchema, c.proj, 2)
				require.NoError(t, err)
				require.NoError(t, src.Open(ctx))
				col := &statetest.StopCollector{}
				require.NoError(t, src.Run(ctx, col))
				var got []string
				for _, b := range col.Batches {
					for _, r := range types.RecordRows(b.Rec, schemaOf(partSchema, c.proj)) {
						var parts []string
						for _, v := range r {
							parts = append(parts, fmtVal(v))
						}
						got = append(got, strings.Join(parts, " "))
					}
				}
				sort.Strings(got)
				require.Equal(t, c.want, got, "projection %v", c.proj)
			}
		})
	}
}

func schemaOf(s types.Schema, proj []int) types.Schema {
	if proj == nil {
		return s
	}
	out := make(types.Schema, len(proj))
	for i, p := range proj {
		out[i] = s[p]
	}
	return out
}

func fmtVal(v any) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(v)
}

// TestPartitionedSinkRestore: a crash after an uncompleted checkpoint; the
// restore from the previous one discards the later part files in every
// partition directory and keeps the committed ones.
func TestPartitionedSinkRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := partConfig(t, dir, nil)
	s, err := NewSink(cfg, partSchema, false, 0)
	require.NoError(t, err)
	require.NoError(t, s.Open(ctx))
	require.NoError(t, s.Write(ctx, partRows(t, [3]any{1, "2024-01-01", "10:00"}, [3]any{2, "2024-01-01", "10:01"})))
	ck1 := &statetest.Checkpoint{}
	require.NoError(t, s.PreCommit(ctx, 1, ck1.Writer()))
	require.NoError(t, s.Commit(ctx, 1))
	require.NoError(t, s.Write(ctx, partRows(t, [3]any{3, "2024-01-01", "10:00"}, [3]any{4, "2024-01-02", "00:00"})))
	require.NoError(t, s.PreCommit(ctx, 2, (&statetest.Checkpoint{}).Writer())) // never completes
	require.NoError(t, s.Write(ctx, partRows(t, [3]any{5, "2024-01-02", "00:00"})))
	// crash: s is dropped without Close
	hiddenFiles := func() int {
		n := 0
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), ".part-") {
				n++
			}
			return nil
		})
		return n
	}
	require.Equal(t, 3, hiddenFiles(), "two pending, one in progress")

	s2, err := NewSink(cfg, partSchema, false, 0)
	require.NoError(t, err)
	require.NoError(t, s2.Open(ctx))
	require.NoError(t, s2.RestoreState(ctx, ck1.Reader(0, 1)))
	require.Zero(t, hiddenFiles())
	require.Equal(t, []string{"1", "2"}, visibleLines(t, dir))
	require.NoError(t, s2.Write(ctx, partRows(t, [3]any{3, "2024-01-01", "10:00"}, [3]any{4, "2024-01-02", "00:00"}, [3]any{5, "2024-01-02", "00:00"})))
	require.NoError(t, s2.Finish(ctx))
	require.NoError(t, s2.Close())
	require.Equal(t, []string{"1", "2", "3", "4", "5"}, visibleLines(t, dir))
	for _, p := range []string{"dt=2024-01-01/hm=10%3A00", "dt=2024-01-01/hm=10%3A01", "dt=2024-01-02/hm=00%3A00"} {
		_, err := os.Stat(filepath.Join(dir, p, "_SUCCESS"))
		require.NoError(t, err, p)
	}
}
