package memory

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
	"github.com/tablerun/tablerun/vectorized"
)

func TestMemorySourcePosition(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}, {Name: "s", Type: types.StringT}}
	var batches []arrow.RecordBatch
	for b := range 5 {
		rec, err := types.BuildRecord(vectorized.Mem, schema, [][]any{{int32(b), "x"}, {int32(b * 10), "y"}})
		require.NoError(t, err)
		batches = append(batches, rec)
	}
	run := func(ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) []any {
		t.Helper()
		src := &source{batches: batches, projection: []int{0}}
		require.NoError(t, src.Open(context.Background()))
		if ck != nil {
			require.NoError(t, src.RestorePosition(ck.Reader(0, 1)))
		}
		c := &statetest.StopCollector{Stop: stop}
		if snap != nil {
			w := snap.Writer()
			c.Snapshot = func() error { return src.SnapshotPosition(w) }
		}
		err := src.Run(context.Background(), c)
		if stop > 0 && len(c.Batches) == stop {
			require.ErrorIs(t, err, statetest.ErrStop)
		} else {
			require.NoError(t, err)
		}
		var out []any
		for _, b := range c.Batches {
			for _, r := range types.RecordRows(b.Rec, schema[:1]) {
				out = append(out, r[0])
			}
		}
		return out
	}
	full := run(nil, 0, nil)
	require.Len(t, full, 10)
	for k := 1; k <= 5; k++ {
		ck := &statetest.Checkpoint{}
		first := run(nil, k, ck)
		require.Equal(t, full, append(first, run(ck, 0, nil)...), "stopped at batch %d", k)
	}
	ck := &statetest.Checkpoint{}
	run(nil, 5, ck)
	short := &source{batches: batches[:2]}
	require.ErrorContains(t, short.RestorePosition(ck.Reader(0, 1)), "out of range")
}

// At parallelism 2 the instances read alternate batches; each instance
// restores its own position from a checkpoint of both, and the union of
// what was read before and after is the table. Restoring at another
// parallelism is refused.
func TestMemorySourceSplitPosition(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}}
	var batches []arrow.RecordBatch
	for b := range 7 {
		rec, err := types.BuildRecord(vectorized.Mem, schema, [][]any{{int32(b)}})
		require.NoError(t, err)
		batches = append(batches, rec)
	}
	read := func(src *source, stop int, snap vectorized.StateWriter) []any {
		t.Helper()
		c := &statetest.StopCollector{Stop: stop}
		if snap != nil {
			c.Snapshot = func() error { return src.SnapshotPosition(snap) }
		}
		err := src.Run(context.Background(), c)
		if stop > 0 && len(c.Batches) == stop {
			require.ErrorIs(t, err, statetest.ErrStop)
		} else {
			require.NoError(t, err)
		}
		var out []any
		for _, b := range c.Batches {
			for _, r := range types.RecordRows(b.Rec, schema) {
				out = append(out, r[0])
			}
		}
		return out
	}
	ck := &statetest.Checkpoint{}
	var got []any
	for k := range 2 {
		src := &source{batches: batches}
		require.NoError(t, src.SetSplit(k, 2))
		got = append(got, read(src, 2, ck.Writer())...)
	}
	require.ElementsMatch(t, []any{int32(0), int32(2), int32(1), int32(3)}, got)
	for k := range 2 {
		src := &source{batches: batches}
		require.NoError(t, src.SetSplit(k, 2))
		require.NoError(t, src.RestorePosition(ck.Reader(k, 2)))
		got = append(got, read(src, 0, nil)...)
	}
	require.ElementsMatch(t, []any{int32(0), int32(1), int32(2), int32(3), int32(4), int32(5), int32(6)}, got)

	single := &source{batches: batches}
	require.ErrorContains(t, single.RestorePosition(ck.Reader(0, 1)), "not supported yet: restoring a memory source read by 2 instances at parallelism 1")
}
