package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// collector counts the rows a source emits.
type collector struct{ rows int64 }

func (c *collector) Emit(_ context.Context, b vectorized.Batch) error {
	c.rows += int64(b.NumRows())
	b.Rec.Release()
	return nil
}

func (c *collector) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// writeSorted writes n rows (k BIGINT = 0..n-1, s STRING) into one
// Parquet file with row groups of rg rows.
func writeSorted(t *testing.T, path string, n, rg int) {
	t.Helper()
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	f, err := os.Create(path)
	require.NoError(t, err)
	opts := parquet.DefaultOptions()
	opts.BlockSize = 1 // every Write closes a row group
	w, err := parquet.NewWriter(f, schema, opts)
	require.NoError(t, err)
	for lo := 0; lo < n; lo += rg {
		var rows [][]any
		for k := lo; k < lo+rg && k < n; k++ {
			rows = append(rows, []any{int64(k), fmt.Sprintf("row %d, %x", k, uint64(k)*0x9E3779B97F4A7C15)})
		}
		rec, err := types.BuildRecord(memory.DefaultAllocator, schema, rows)
		require.NoError(t, err)
		require.NoError(t, w.Write(rec))
		rec.Release()
	}
	require.NoError(t, w.Close()) // closes f too
}

func call(name string, args ...catalog.Expression) catalog.Expression {
	return &catalog.CallExpr{Name: name, Args: args, Type: types.BooleanT}
}

// TestParquetRowGroupPruning: a filter that excludes row groups by their
// statistics never decodes them: a 1 %-selective range reads 1 row group
// of 100 and under 5 % of the file's bytes.
func TestParquetRowGroupPruning(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.parquet")
	writeSorted(t, path, 100_000, 1000)
	st, err := os.Stat(path)
	require.NoError(t, err)
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	k := &catalog.FieldRef{Name: "k", Index: 0, Type: types.BigIntT}
	lit := func(v int64) catalog.Expression { return &catalog.ValueLiteral{Value: v, Type: types.BigIntT} }
	cases := []struct {
		name   string
		filter []catalog.Expression
		groups int
	}{
		{"none", nil, 100},
		{"1% range", []catalog.Expression{call(">=", k, lit(42_000)), call("<", k, lit(43_000))}, 1},
		{"flipped literal", []catalog.Expression{call(">", lit(500), k)}, 1},
		{"equality", []catalog.Expression{call("=", k, lit(99_999))}, 1},
		{"in", []catalog.Expression{call("IN", k, lit(5), lit(50_500), lit(1_000_000))}, 2},
		{"or", []catalog.Expression{call("OR", call("<", k, lit(10)), call(">=", k, lit(99_000)))}, 2},
		{"nothing", []catalog.Expression{call(">", k, lit(100_000))}, 0},
		{"is null", []catalog.Expression{call("IS NULL", k)}, 0},
		{"is not null", []catalog.Expression{call("IS NOT NULL", k)}, 100},
		{"widening cast", []catalog.Expression{call("<", &catalog.CallExpr{Name: "CAST", Args: []catalog.Expression{k}, Type: types.DoubleT}, &catalog.ValueLiteral{Value: 999.5, Type: types.DoubleT})}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig(map[string]string{"path": path, "format": "parquet"})
			require.NoError(t, err)
			src, err := NewSource(cfg, schema, []int{0}, 1024)
			require.NoError(t, err)
			var filter []parquet.Predicate
			for _, e := range c.filter {
				p, ok := PushableFilter(e, schema)
				require.True(t, ok, e.String())
				filter = append(filter, p)
			}
			src.SetFilter(filter)
			var stats parquet.Stats
			src.SetStats(&stats)
			require.NoError(t, src.Open(context.Background()))
			var out collector
			require.NoError(t, src.Run(context.Background(), &out))
			require.Equal(t, c.groups, stats.RowGroupsRead)
			require.Equal(t, 100-c.groups, stats.RowGroupsSkipped)
			require.Equal(t, int64(c.groups*1000), out.rows, "the rows of the groups read are emitted, unfiltered")
			if c.groups == 1 {
				require.Less(t, stats.BytesRead, st.Size()/20, "1 row group of 100 reads under 5 %% of the file")
			}
		})
	}
	// Filters the statistics cannot use are not pushable.
	s := &catalog.FieldRef{Name: "s", Index: 1, Type: types.StringT}
	_, ok := PushableFilter(call("LIKE", s, &catalog.ValueLiteral{Value: "a%", Type: types.StringT}), schema)
	require.False(t, ok)
	_, ok = PushableFilter(call("=", k, s), schema)
	require.False(t, ok)
}

// TestPartitionPruning: the files of partitions a filter on the keys
// excludes are never opened.
func TestPartitionPruning(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range []string{"a", "b", "c"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "dt="+dt), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dt="+dt, "part-0.csv"), []byte("1\n2\n"), 0o644))
	}
	// An unreadable file in an excluded partition proves it is not opened.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=c", "part-1.csv"), []byte("not a number\n"), 0o644))
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "dt", Type: types.StringT}}
	cfg, err := ParseConfig(map[string]string{"path": dir, "format": "csv"})
	require.NoError(t, err)
	cfg.PartitionKeys = []string{"dt"}
	src, err := NewSource(cfg, schema, nil, 1024)
	require.NoError(t, err)
	dt := &catalog.FieldRef{Name: "dt", Index: 1, Type: types.StringT}
	p, ok := PushableFilter(call("IN", dt, &catalog.ValueLiteral{Value: "a", Type: types.StringT}, &catalog.ValueLiteral{Value: "b", Type: types.StringT}), schema)
	require.True(t, ok)
	src.SetFilter([]parquet.Predicate{p})
	var stats parquet.Stats
	src.SetStats(&stats)
	require.NoError(t, src.Open(context.Background()))
	var out collector
	require.NoError(t, src.Run(context.Background(), &out))
	require.Equal(t, int64(4), out.rows)
	require.Equal(t, 2, stats.FilesSkipped)
}

// readAll reads every row of a filesystem table of sinkSchema.
func readAll(t *testing.T, dir, format string) int64 {
	t.Helper()
	cfg, err := ParseConfig(map[string]string{"path": dir, "format": format})
	require.NoError(t, err)
	src, err := NewSource(cfg, sinkSchema, nil, 1024)
	require.NoError(t, err)
	require.NoError(t, src.Open(context.Background()))
	var out collector
	require.NoError(t, src.Run(context.Background(), &out))
	return out.rows
}

// TestBulkFormatsRollOnCheckpoint: with checkpoints (a streaming job) the
// Parquet, Avro and Arrow sinks complete their part file at every
// checkpoint (Flink rolls bulk formats on checkpoints): after checkpoint
// n commits, exactly the rows before its barrier are readable, each file a
// complete file of its format.
func TestBulkFormatsRollOnCheckpoint(t *testing.T) {
	ctx := context.Background()
	for _, format := range []string{"parquet", "avro", "arrow"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			s := newTestSink(t, dir, 0, map[string]string{"format": format})
			require.NoError(t, s.Write(ctx, rows(t, 0, 100)))
			require.NoError(t, s.PreCommit(ctx, 1, newMemState()))
			require.NoError(t, s.Write(ctx, rows(t, 100, 250)))
			require.NoError(t, s.Commit(ctx, 1))
			require.Equal(t, int64(100), readAll(t, dir, format), "checkpoint 1's rows, not the ones after its barrier")
			require.NoError(t, s.PreCommit(ctx, 2, newMemState()))
			require.NoError(t, s.Commit(ctx, 2))
			require.Equal(t, int64(250), readAll(t, dir, format))
			require.NoError(t, s.Write(ctx, rows(t, 250, 260)))
			require.NoError(t, s.Finish(ctx))
			require.NoError(t, s.Close())
			require.Equal(t, int64(260), readAll(t, dir, format))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			visibleFiles := 0
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") {
					visibleFiles++
				}
			}
			require.Equal(t, 3, visibleFiles, "one part file per checkpoint and one at the end")
		})
	}
}

// TestParquetProjectionReadsOnlyItsColumns: a scan of one column reads
// (and decodes) that column's chunks only.
func TestParquetProjectionReadsOnlyItsColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.parquet")
	writeSorted(t, path, 50_000, 5000)
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	read := func(proj []int) int64 {
		cfg, err := ParseConfig(map[string]string{"path": path, "format": "parquet"})
		require.NoError(t, err)
		src, err := NewSource(cfg, schema, proj, 1024)
		require.NoError(t, err)
		var stats parquet.Stats
		src.SetStats(&stats)
		require.NoError(t, src.Open(context.Background()))
		var out collector
		require.NoError(t, src.Run(context.Background(), &out))
		require.Equal(t, int64(50_000), out.rows)
		return stats.BytesRead
	}
	k, both, none := read([]int{0}), read(nil), read([]int{})
	require.Less(t, k*3, both, "the string column is most of the file")
	require.Less(t, none, k, "COUNT(*) reads the footer only")
}
