package values

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
)

func TestValuesSourcePosition(t *testing.T) {
	schema := types.Schema{{Name: "i", Type: types.IntT}, {Name: "s", Type: types.StringT}}
	var rows [][]any
	for i := range 53 {
		rows = append(rows, []any{int32(i), fmt.Sprint("r", i)})
	}
	run := func(ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) []string {
		t.Helper()
		src, err := NewSource(rows, schema, []int{1}, 10, false)
		require.NoError(t, err)
		require.NoError(t, src.Open(context.Background()))
		if ck != nil {
			require.NoError(t, src.RestorePosition(ck.Reader(0, 1)))
		}
		c := &statetest.StopCollector{Stop: stop}
		if snap != nil {
			w := snap.Writer()
			c.Snapshot = func() error { return src.SnapshotPosition(w) }
		}
		err = src.Run(context.Background(), c)
		if stop > 0 && len(c.Batches) == stop {
			require.ErrorIs(t, err, statetest.ErrStop)
		} else {
			require.NoError(t, err)
		}
		var out []string
		for _, b := range c.Batches {
			for _, r := range types.RecordRows(b.Rec, schema[1:]) {
				out = append(out, fmt.Sprint(r))
			}
		}
		return out
	}
	full := run(nil, 0, nil)
	require.Len(t, full, 53)
	for k := 1; k <= 6; k++ {
		ck := &statetest.Checkpoint{}
		first := run(nil, k, ck)
		require.Equal(t, full, append(first, run(ck, 0, nil)...), "stopped at batch %d", k)
	}
	ck := &statetest.Checkpoint{}
	run(nil, 6, ck)
	short, err := NewSource(rows[:5], schema, nil, 10, false)
	require.NoError(t, err)
	require.ErrorContains(t, short.RestorePosition(ck.Reader(0, 1)), "out of range")
}
