package nexmark

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
)

// runSplit runs split i of n (batch events per chunk), restored from ck
// when not nil; with stop > 0 it snapshots into snap at the stop-th batch
// and stops there. It returns the events as strings.
func runSplit(t *testing.T, cfg Config, batch, i, n int, ck *statetest.Checkpoint, stop int, snap *statetest.Checkpoint) []string {
	t.Helper()
	src, err := NewSource(cfg, Schema(), nil, batch)
	require.NoError(t, err)
	require.NoError(t, src.SetSplit(i, n))
	require.NoError(t, src.Open(context.Background()))
	if ck != nil {
		require.NoError(t, src.RestorePosition(ck.Reader(i, n)))
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
		for _, r := range types.RecordRows(b.Rec, Schema()) {
			out = append(out, fmt.Sprint(r))
		}
	}
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func TestNexmarkPositionResume(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "1000"})
	full := runSplit(t, cfg, 64, 0, 1, nil, 0, nil)
	require.Len(t, full, 1000)
	for _, k := range []int{1, 2, 7, 15, 16} {
		ck := &statetest.Checkpoint{}
		first := runSplit(t, cfg, 64, 0, 1, nil, k, ck)
		rest := runSplit(t, cfg, 64, 0, 1, ck, 0, nil)
		require.Equal(t, full, append(first, rest...), "stopped at batch %d", k)
	}
	// Splits resume their own chunks.
	var got []string
	ck := &statetest.Checkpoint{}
	for i := range 3 {
		got = append(got, runSplit(t, cfg, 64, i, 3, nil, 2+i, ck)...)
	}
	for i := range 3 {
		got = append(got, runSplit(t, cfg, 64, i, 3, ck, 0, nil)...)
	}
	require.Equal(t, sorted(full), sorted(got))
}

func TestNexmarkPositionRescale(t *testing.T) {
	cfg := cfgWith(t, map[string]string{"events.num": "1500"})
	want := sorted(runSplit(t, cfg, 50, 0, 1, nil, 0, nil))
	tests := []struct {
		name string
		// layouts: splits and batch size of each phase; stops: the batch
		// each split of a phase stops at (0: runs to the end; only the
		// last phase)
		splits, batches []int
		stops           [][]int
	}{
		{"1 to 2", []int{1, 2}, []int{50, 50}, [][]int{{5}}},
		{"2 to 1", []int{2, 1}, []int{50, 50}, [][]int{{3, 9}}},
		{"2 to 3", []int{2, 3}, []int{50, 50}, [][]int{{1, 4}}},
		{"batch size change", []int{1, 1}, []int{50, 70}, [][]int{{4}}},
		{"2 to 3 to 2", []int{2, 3, 2}, []int{50, 50, 50}, [][]int{{6, 1}, {2, 1, 3}}},
		{"1 to 3 to 1", []int{1, 3, 1}, []int{50, 40, 50}, [][]int{{2}, {3, 1, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var ck *statetest.Checkpoint
			for phase, n := range tc.splits {
				last := phase == len(tc.splits)-1
				var snap *statetest.Checkpoint
				if !last {
					snap = &statetest.Checkpoint{}
				}
				for i := range n {
					stop := 0
					if !last {
						stop = tc.stops[phase][i]
					}
					got = append(got, runSplit(t, cfg, tc.batches[phase], i, n, ck, stop, snap)...)
				}
				ck = snap
			}
			require.Equal(t, want, sorted(got))
		})
	}
}

func TestNexmarkPositionPaced(t *testing.T) {
	// 3,000 events at 1,000 events/s span 3 s of event time; the restored
	// source paces from its position, not from the first event.
	opts := map[string]string{"events.num": "3000", "first-event.rate": "1000"}
	fast := cfgWith(t, opts)
	opts["max-emit-speed"] = "false"
	paced := cfgWith(t, opts)
	full := runSplit(t, fast, 100, 0, 1, nil, 0, nil)
	ck := &statetest.Checkpoint{}
	first := runSplit(t, fast, 100, 0, 1, nil, 27, ck)
	start := time.Now()
	rest := runSplit(t, paced, 100, 0, 1, ck, 0, nil)
	elapsed := time.Since(start)
	require.Equal(t, full, append(first, rest...))
	require.GreaterOrEqual(t, elapsed, 250*time.Millisecond, "paced")
	require.Less(t, elapsed, 2*time.Second, "paced from the restored position")
}
