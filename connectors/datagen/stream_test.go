package datagen

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// cancelAfter collects rows and cancels the run once it has n of them.
type cancelAfter struct {
	collect
	n       int
	cancel  context.CancelFunc
	batches int
}

func (c *cancelAfter) Emit(ctx context.Context, b vectorized.Batch) error {
	c.batches++
	if err := c.collect.Emit(ctx, b); err != nil {
		return err
	}
	if c.n > 0 && len(c.rows) >= c.n {
		c.cancel()
	}
	return nil
}

func streamRun(t *testing.T, opts map[string]string, schema types.Schema, n int, timeout time.Duration) (*cancelAfter, time.Duration, error) {
	t.Helper()
	src, err := NewSource("t", opts, schema, nil, 0, false, time.UTC)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := &cancelAfter{collect: collect{schema: schema}, n: n, cancel: cancel}
	start := time.Now()
	err = src.Run(ctx, c)
	return c, time.Since(start), err
}

func TestStreamingUnbounded(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	cases := []struct {
		name     string
		opts     map[string]string
		cancelAt int
		wantRows int // exact row count when the source ends by itself (-1: cancelled)
		minRows  int
	}{
		{"unbounded random is cancelled", map[string]string{"rows-per-second": "1000000"}, 25000, -1, 25000},
		{"unbounded default rate", map[string]string{}, 1500, -1, 1500},
		{"sequence ends at end", map[string]string{"rows-per-second": "1000000", "fields.id.kind": "sequence",
			"fields.id.start": "1", "fields.id.end": "2500"}, 0, 2500, 2500},
		{"number-of-rows ends", map[string]string{"rows-per-second": "1000000", "number-of-rows": "1234"}, 0, 1234, 1234},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := NewSource("t", tc.opts, schema, nil, 0, false, time.UTC)
			require.NoError(t, err)
			if tc.wantRows < 0 {
				require.Equal(t, int64(-1), src.Rows())
			}
			c, _, err := streamRun(t, tc.opts, schema, tc.cancelAt, 10*time.Second)
			if tc.wantRows < 0 {
				require.True(t, errors.Is(err, context.Canceled), "err = %v", err)
				require.GreaterOrEqual(t, len(c.rows), tc.minRows)
				return
			}
			require.NoError(t, err)
			require.Len(t, c.rows, tc.wantRows)
			if tc.opts["fields.id.kind"] == "sequence" {
				for i, r := range c.rows {
					require.Equal(t, int64(i+1), r[0])
				}
			}
		})
	}
}

func TestStreamingThrottle(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.IntT}}
	// 200 rows/s, in batches of 20: the first 60 rows take at least two
	// batch intervals (load can only make them slower, so the test waits
	// for the rows rather than for a fixed time).
	c, took, err := streamRun(t, map[string]string{"rows-per-second": "200"}, schema, 60, time.Minute)
	require.True(t, errors.Is(err, context.Canceled), "err = %v", err)
	require.GreaterOrEqual(t, len(c.rows), 60)
	require.Greater(t, c.batches, 1)
	require.GreaterOrEqual(t, took, 190*time.Millisecond)
	// A bounded table in streaming mode is throttled too: 30 rows at 100/s ≈ 290 ms.
	c, took, err = streamRun(t, map[string]string{"rows-per-second": "100", "number-of-rows": "30"}, schema, 0, time.Minute)
	require.NoError(t, err)
	require.Len(t, c.rows, 30)
	require.GreaterOrEqual(t, took, 250*time.Millisecond)
	// At most one row per batch at 1 row/s; cancel after the first.
	c, _, err = streamRun(t, map[string]string{"rows-per-second": "1"}, schema, 1, time.Minute)
	require.True(t, errors.Is(err, context.Canceled))
	require.Len(t, c.rows, 1)
}

func TestBatchModeUnboundedIsError(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.IntT}}
	_, err := NewSource("`c`.`d`.`t`", map[string]string{}, schema, nil, 0, true, time.UTC)
	require.ErrorContains(t, err, "Querying an unbounded table '`c`.`d`.`t`' in batch mode is not allowed. The table source is unbounded.")
	// Batch mode runs a bounded table at full speed, whatever the rate.
	src, err := NewSource("t", map[string]string{"rows-per-second": "1", "number-of-rows": "5000"}, schema, nil, 0, true, time.UTC)
	require.NoError(t, err)
	c := &collect{schema: schema}
	start := time.Now()
	require.NoError(t, src.Run(context.Background(), c))
	require.Len(t, c.rows, 5000)
	require.Less(t, time.Since(start), 2*time.Second)
}
