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
