package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// spillRows makes random rows (k BIGINT, s STRING, x BIGINT, d DOUBLE)
// with NULLs and many distinct keys.
func spillRows(seed uint64, n, card int) (types.Schema, [][]any) {
	in := types.Schema{
		{Name: "k", Type: types.BigIntT},
		{Name: "s", Type: types.StringT},
		{Name: "x", Type: types.BigIntT},
		{Name: "d", Type: types.DoubleT},
	}
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([][]any, n)
	for i := range rows {
		var d any = float64(r.IntN(50)) - 25
		switch r.IntN(20) {
		case 0:
			d = nil
		case 1:
			d = -0.0
		}
		rows[i] = []any{randInt64(r, card, 0.02), randString(r, card/3+1, 0.05), randInt64(r, 1000, 0.1), d}
	}
	return in, rows
}

// dirEntries counts the files and directories below dir.
func dirEntries(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	return len(es)
}

func TestHashAggregateSpill(t *testing.T) {
	in, rows := spillRows(1, 8000, 3000)
	call := func(name string, args []int, filter int, tt types.Type) logical.AggCall {
		return logical.AggCall{Name: name, Args: args, Filter: filter, T: tt, Alias: name}
	}
	calls := []logical.AggCall{
		call("COUNT", nil, -1, types.BigIntT.WithNullable(false)),
		call("COUNT", []int{2}, -1, types.BigIntT.WithNullable(false)),
		call("SUM", []int{2}, -1, types.BigIntT),
		call("SUM", []int{3}, -1, types.DoubleT),
		call("MIN", []int{1}, -1, types.StringT),
		call("MAX", []int{1}, -1, types.StringT),
		call("AVG", []int{3}, -1, types.DoubleT),
		call("MAX", []int{3}, -1, types.DoubleT),
	}
	tests := []struct {
		name   string
		keys   []int
		budget int64
	}{
		{"by k, tiny budget", []int{0}, 1},
		{"by k, small budget", []int{0}, 64 << 10},
		{"by s, k, tiny budget", []int{1, 0}, 1},
		{"by d (floats, -0.0, NULL), k, tiny budget", []int{3, 0}, 1},
		{"by s, small budget", []int{1}, 16 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out types.Schema
			for _, k := range tc.keys {
				out = append(out, in[k])
			}
			for _, c := range calls {
				out = append(out, types.Field{Name: c.Alias, Type: c.T})
			}
			want, err := runUnary(t, NewHashAggregate(tc.keys, calls, in, mustArrow(t, out)), in, rows, 1000, out)
			require.NoError(t, err)
			dir := t.TempDir()
			h := NewHashAggregate(tc.keys, calls, in, mustArrow(t, out))
			h.SetSpill(SpillConfig{Budget: tc.budget, Dir: dir})
			got, err := runUnary(t, h, in, rows, 1000, out)
			require.NoError(t, err)
			sameRows(t, canonRows(want), canonRows(got))
			st := h.OpStats()
			require.Positive(t, st.SpillCount)
			require.Positive(t, st.SpillBytes)
			require.Positive(t, st.PeakStateBytes)
			require.Zero(t, dirEntries(t, dir), "spill files left behind")
		})
	}
}

func TestHashAggregateSpillNotMergeable(t *testing.T) {
	// DISTINCT aggregates cannot export their state: the budget is
	// exceeded instead of spilling, and the result is still right.
	in, rows := spillRows(2, 3000, 500)
	calls := []logical.AggCall{{Name: "COUNT", Args: []int{2}, Distinct: true, Filter: -1, T: types.BigIntT.WithNullable(false), Alias: "c"}}
	out := types.Schema{in[0], {Name: "c", Type: calls[0].T}}
	want, err := runUnary(t, NewHashAggregate([]int{0}, calls, in, mustArrow(t, out)), in, rows, 500, out)
	require.NoError(t, err)
	h := NewHashAggregate([]int{0}, calls, in, mustArrow(t, out))
	h.SetSpill(SpillConfig{Budget: 1, Dir: t.TempDir()})
	got, err := runUnary(t, h, in, rows, 500, out)
	require.NoError(t, err)
	require.Equal(t, canonRows(want), canonRows(got))
	require.Zero(t, h.OpStats().SpillCount)
}

func TestSortSpill(t *testing.T) {
	in, rows := spillRows(3, 12000, 8000)
	tests := []struct {
		name          string
		keys          []logical.SortKey
		offset, fetch int64
		limit         bool
		budget        int64
	}{
		{"k asc, tiny budget", []logical.SortKey{{Index: 0}}, 0, -1, false, 1},
		{"s desc nulls first, k", []logical.SortKey{{Index: 1, Desc: true, NullsFirst: true}, {Index: 0}}, 0, -1, false, 64 << 10},
		{"d, x desc, small budget", []logical.SortKey{{Index: 3}, {Index: 2, Desc: true}}, 0, -1, false, 32 << 10},
		{"x with equal keys (stability)", []logical.SortKey{{Index: 2}}, 0, -1, false, 20 << 10},
		{"limit", []logical.SortKey{{Index: 1}, {Index: 0}}, 0, 6000, true, 16 << 10},
		{"limit offset", []logical.SortKey{{Index: 0, Desc: true}}, 3000, 4000, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mk := func() *Sort {
				if tc.limit {
					return NewSortLimit(tc.keys, mustArrow(t, in), tc.offset, tc.fetch)
				}
				return NewSort(tc.keys, mustArrow(t, in))
			}
			want, err := runUnary(t, mk(), in, rows, 1000, in)
			require.NoError(t, err)
			dir := t.TempDir()
			s := mk()
			s.SetSpill(SpillConfig{Budget: tc.budget, Dir: dir})
			got, err := runUnary(t, s, in, rows, 1000, in)
			require.NoError(t, err)
			sameRows(t, want, got) // same order, also among equal keys
			require.Positive(t, s.OpStats().SpillCount)
			require.Positive(t, s.OpStats().SpillBytes)
			require.Zero(t, dirEntries(t, dir), "spill files left behind")
		})
	}
}

func TestSortSpillManyRuns(t *testing.T) {
	// More runs than maxFanIn: an intermediate merge pass.
	in, rows := spillRows(4, 20000, 100000)
	keys := []logical.SortKey{{Index: 0}, {Index: 1}}
	want, err := runUnary(t, NewSort(keys, mustArrow(t, in)), in, rows, 100, in)
	require.NoError(t, err)
	s := NewSort(keys, mustArrow(t, in))
	s.SetSpill(SpillConfig{Budget: 1, Dir: t.TempDir(), Uncompressed: true})
	got, err := runUnary(t, s, in, rows, 100, in)
	require.NoError(t, err)
	sameRows(t, want, got)
	require.Greater(t, s.OpStats().SpillCount, int64(maxFanIn))
}

func TestSpillCleanupOnError(t *testing.T) {
	// Close after a failed or cancelled run removes the spill files.
	in, rows := spillRows(5, 5000, 5000)
	dir := t.TempDir()
	s := NewSort([]logical.SortKey{{Index: 0}}, mustArrow(t, in))
	s.SetSpill(SpillConfig{Budget: 1, Dir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, s.Open(ctx))
	for _, b := range split(t, in, rows, 500) {
		require.NoError(t, s.Process(ctx, b, &collector{}))
	}
	require.Positive(t, dirEntries(t, dir))
	cancel()
	err := s.OnMarker(ctx, vectorized.Marker{Kind: vectorized.EndOfInput}, &collector{})
	require.Error(t, err)
	require.NoError(t, s.Close())
	require.Zero(t, dirEntries(t, dir))
}

// sameRows compares row lists and reports only the first difference.
func sameRows[T any](t *testing.T, want, got []T) {
	t.Helper()
	require.Equal(t, len(want), len(got), "row count")
	for i := range want {
		require.Equal(t, fmt.Sprint(want[i]), fmt.Sprint(got[i]), "row %d", i)
	}
}

// TestSpillWritersMemory: 16 open spill files (one spill level's
// partitions) hold about 2 MB between them (a frame buffer each and one
// shared encoder), what the budget counts for them (writerBytes); one
// streaming zstd encoder per file held 14 MB. Their frames read back as
// one stream.
func TestSpillWritersMemory(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(vectorized.Mem)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200_000 // 1.6 MB per file: many frames
	for i := 0; i < n; i++ {
		b.Append(int64(r.IntN(1000)))
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, n)
	defer rec.Release()

	sp := &spiller{cfg: SpillConfig{Budget: 1, Dir: t.TempDir()}}
	defer sp.cleanup()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	files := make([]*spillFile, spillPartitions)
	for i := range files {
		f, err := sp.create(schema)
		require.NoError(t, err)
		require.NoError(t, f.write(rec))
		files[i] = f
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("16 open spill files hold %d KB; counted %d KB", held>>10, sp.writerBytes()>>10)
	require.Less(t, held, int64(4<<20))
	require.Equal(t, int64(spillPartitions*spillWriterBytes+spillEncoderBytes), sp.writerBytes())
	require.GreaterOrEqual(t, sp.writerBytes(), held-int64(1<<20), "the budget counts what the writers hold")
	for _, f := range files {
		var rows int64
		require.NoError(t, f.read(func(got arrow.RecordBatch) error {
			c := got.Column(0).(*array.Int64)
			for i := 0; i < c.Len(); i++ {
				require.Equal(t, col.(*array.Int64).Value(int(rows)+i), c.Value(i))
			}
			rows += got.NumRows()
			return nil
		}))
		require.Equal(t, int64(n), rows)
	}
	require.Zero(t, sp.writerBytes(), "finished files hold no buffers")
}
