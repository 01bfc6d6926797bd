package ops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// TestDiskWindowCheckpoint runs the window-aggregate checkpoint cases
// (restore, rescale, two-phase) on the disk backend, the cache spilled
// into the store before every batch.
func TestDiskWindowCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	t.Run("restore", TestWindowStateRestoreEqualsUninterrupted)
	t.Run("rescale", TestWindowStateRescale)
	t.Run("two-phase", TestWindowTwoPhaseEqualsOnePhase)
}

// TestDiskWindowEqualsHeap: a window aggregate on the disk backend emits
// the heap backend's rows in the heap's order, with the cache spilled
// before every batch and with a cache that holds everything, across
// checkpoints, and leaves nothing in the store once every window fired.
func TestDiskWindowEqualsHeap(t *testing.T) {
	for _, tc := range windowStateCases() {
		if strings.HasPrefix(tc.name, "Session") {
			continue
		}
		for _, cache := range []int64{1, 64 << 20} {
			t.Run(fmt.Sprintf("%s/cache=%d", tc.name, cache), func(t *testing.T) {
				in, steps := tc.input(windowStateSteps(7, 80))
				t.Setenv("TABLERUN_TEST_STATE_BACKEND", "hashmap")
				op, _ := tc.mk(t)
				a := newAggRun(t, op, in, tc.out)
				a.feedWindow(steps)
				a.marker(vectorized.EndOfInput)
				want := changeStrings(a.changes(true))
				require.NotEmpty(t, want)

				b := diskstate.NewBackend(diskstate.Config{TmpDir: t.TempDir(), Managed: true, Budget: 64 << 20, CacheBytes: cache})
				defer b.Close()
				dop, _ := tc.mk(t)
				wa := dop.(*WindowAggregate)
				wa.SetDiskState(b, "w")
				d := newAggRun(t, dop, in, tc.out)
				d.feedWindow(steps[:len(steps)/2])
				if cache == 1 {
					require.Positive(t, wa.DiskEvictions())
					require.NotEmpty(t, wa.disk.onDisk)
				}
				// a checkpoint writes the cache into the store and keeps it
				d.snapshot(wa, &aggCheckpoint{})
				d.feedWindow(steps[len(steps)/2 : 3*len(steps)/4])
				d.snapshot(wa, &aggCheckpoint{})
				d.feedWindow(steps[3*len(steps)/4:])
				d.marker(vectorized.EndOfInput)
				require.Equal(t, 0, wa.OpenWindows())
				n := 0
				require.NoError(t, wa.disk.store.Scan(0, vectorized.DefaultMaxParallelism, storeStateWindows, func(k, v []byte) error { n++; return nil }))
				require.Zero(t, n, "rows left in the store")
				require.Equal(t, want, changeStrings(d.changes(true)))
				require.Equal(t, op.(*WindowAggregate).LateRows(), wa.LateRows())
			})
		}
	}
}

// TestDiskWindowUnsupportedCall: a call without exportable state fails
// with "not supported yet" under 'rocksdb'.
func TestDiskWindowUnsupportedCall(t *testing.T) {
	out := mustArrow(t, append(append(wSchema[:0:0], wSchema[0]), winCols[0], winCols[1]))
	op, err := NewWindowAggregate(nil, []logical.AggCall{{Name: "LISTAGG", Args: []int{0}, Filter: -1}},
		logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000}, wSchema, out)
	require.NoError(t, err)
	b := diskstate.NewBackend(diskstate.Config{TmpDir: t.TempDir()})
	defer b.Close()
	op.SetDiskState(b, "w")
	err = op.Open(t.Context())
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "not supported yet: "), err.Error())
}

// TestDiskWindowJoinCheckpoint runs the window join checkpoint cases on
// the disk backend (each against the heap backend's changelog), the
// buffers spilled into the store before every batch.
func TestDiskWindowJoinCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	TestWindowJoinCheckpoint(t)
}
