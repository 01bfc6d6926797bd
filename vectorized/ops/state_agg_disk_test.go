package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/diskstate"
)

// diskAggOp is a GroupAggregate on the disk backend whose cache of hot
// groups is emptied into the store before every batch when tiny.
type diskAggOp struct {
	*GroupAggregate
	tiny bool
}

func (d diskAggOp) Open(ctx context.Context) error {
	if err := d.GroupAggregate.Open(ctx); err != nil {
		return err
	}
	if d.tiny {
		d.disk.budget = 1
	}
	return nil
}

// TestDiskGroupAggregateCheckpoint runs the checkpoint cases (restore at
// several cuts, rescale 2→1, 1→2, 2→3) of a GroupAggregate on the disk
// backend, with the cache kept and with the cache emptied every batch:
// the changelog equals the uninterrupted one on the heap.
func TestDiskGroupAggregateCheckpoint(t *testing.T) {
	b := diskstate.NewBackend(diskstate.Config{TmpDir: t.TempDir(), Managed: true, Budget: 8 << 20})
	defer b.Close()
	calls := []logical.AggCall{
		{Name: "COUNT", Filter: -1},
		{Name: "SUM", Args: []int{2}, Filter: -1},
		{Name: "MIN", Args: []int{3}, Filter: -1},
		{Name: "MAX", Args: []int{4}, Filter: -1},
		{Name: "MAX", Args: []int{1}, Filter: -1},
		{Name: "COUNT", Args: []int{5}, Filter: -1, Distinct: true},
	}
	for _, retract := range []bool{false, true} {
		for _, keys := range [][]int{{0}, {0, 5}, nil} {
			for _, tiny := range []bool{false, true} {
				t.Run(fmt.Sprintf("retract=%v/keys=%v/evict=%v", retract, keys, tiny), func(t *testing.T) {
					out := types.Schema{}
					for _, k := range keys {
						out = append(out, ckKVT[k])
					}
					out = append(out,
						types.Field{Name: "c", Type: types.BigIntT.WithNullable(false)},
						types.Field{Name: "s", Type: types.BigIntT},
						types.Field{Name: "mi", Type: ckKVT[3].Type},
						types.Field{Name: "ma", Type: types.DoubleT},
						types.Field{Name: "mt", Type: ckKVT[1].Type},
						types.Field{Name: "cd", Type: types.BigIntT.WithNullable(false)})
					as := mustArrow(t, out)
					n := 0
					mk := func(disk bool) func(t *testing.T) ckOp {
						return func(t *testing.T) ckOp {
							op := NewGroupAggregate(keys, calls, ckKVT, as, GroupAggregateOptions{Retract: retract})
							if !disk {
								return unaryCk{op}
							}
							n++
							op.SetDiskState(b, fmt.Sprintf("agg-%d", n))
							return unaryCk{diskAggOp{op, tiny}}
						}
					}
					r := rand.New(rand.NewPCG(5, 6))
					steps := randomChangelog(r, 60, 1, retract, retract, func(int) []any { return ckKVTRow(r) })
					heap := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{keys}, out: out, sides: 1, newOp: mk(false)}
					want := heap.straight(t, steps)
					tc := heap
					tc.newOp = mk(true)
					got := tc.straight(t, steps)
					require.Equal(t, want.rows, got.rows)
					tc.check(t, steps)
				})
			}
		}
	}
}

func TestDiskCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]any, 50)
	for i := range rows {
		rows[i] = ckKVTRow(r)
	}
	rec, err := types.BuildRecord(vectorized.Mem, ckKVT, rows)
	require.NoError(t, err)
	defer rec.Release()
	var ts []arrow.DataType
	for _, f := range rec.Schema().Fields() {
		ts = append(ts, f.Type)
	}
	dec, err := diskstate.NewDecoder(vectorized.Mem, ts)
	require.NoError(t, err)
	defer dec.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		buf, err := diskstate.AppendRow(nil, rec.Columns(), i)
		require.NoError(t, err)
		rest, err := dec.Append(buf)
		require.NoError(t, err)
		require.Empty(t, rest)
	}
	cols := dec.Finish()
	defer releaseArrays(cols)
	for c, a := range cols {
		require.True(t, array.Equal(rec.Column(c), a), "column %d", c)
	}
}

// testOnDisk reports whether the operator tests run on the disk backend
// (TABLERUN_TEST_STATE_BACKEND=rocksdb; .ci/run sets it for one run).
func testOnDisk() bool { return os.Getenv("TABLERUN_TEST_STATE_BACKEND") == "rocksdb" }

var testDiskN atomic.Int64

// onTestDisk puts op on the disk backend when the tests run on it, with
// a cache budget so small that the cache of hot keys is emptied into the
// store before every batch (the hardest case for the cache).
func onTestDisk[T interface {
	SetDiskState(*diskstate.Backend, string)
}](t *testing.T, op T) T {
	if !testOnDisk() {
		return op
	}
	b := diskstate.NewBackend(diskstate.Config{TmpDir: t.TempDir(), Managed: true, Budget: 64 << 10, CacheBytes: 1})
	t.Cleanup(func() { _ = b.Close() })
	op.SetDiskState(b, fmt.Sprintf("test-%d", testDiskN.Add(1)))
	return op
}

// TestDiskStreamJoinCheckpoint runs the join checkpoint cases on the disk
// backend, the cache emptied before every batch.
func TestDiskStreamJoinCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	TestStreamJoinCheckpoint(t)
}

// TestDiskDeduplicateCheckpoint runs the Deduplicate checkpoint cases on
// the disk backend, the cache emptied before every batch.
func TestDiskDeduplicateCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	TestDeduplicateCheckpoint(t)
}

// TestDiskRankCheckpoint runs the Rank checkpoint cases on the disk
// backend, the cache emptied before every batch.
func TestDiskRankCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	TestRankCheckpoint(t)
}

// TestDiskChangelogNormalizeCheckpoint runs the ChangelogNormalize
// checkpoint cases on the disk backend, the cache emptied before every
// batch.
func TestDiskChangelogNormalizeCheckpoint(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	TestChangelogNormalizeCheckpoint(t)
}

// TestDiskCacheEvicts checks that the disk tests do go through the store:
// with the test budget every batch after the first empties the cache.
func TestDiskCacheEvicts(t *testing.T) {
	t.Setenv("TABLERUN_TEST_STATE_BACKEND", "rocksdb")
	ctx := context.Background()
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}}
	j := onTestDisk(t, NewStreamJoin(StreamJoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: s, Right: s, Out: append(append(types.Schema{}, s...), s...)}))
	require.NoError(t, j.Open(ctx))
	c := &collector{}
	for i, side := range []int{0, 1, 0, 1} {
		rec, err := types.BuildRecord(vectorized.Mem, s, [][]any{{int32(1), fmt.Sprint(i)}})
		require.NoError(t, err)
		require.NoError(t, j.Process(ctx, side, vectorized.Batch{Rec: rec}, c))
	}
	require.Equal(t, 3, j.DiskEvictions())
	rows := 0
	for _, b := range c.batches {
		rows += b.NumRows()
	}
	require.Equal(t, 4, rows, "1+2 matches after the first row of each side: (0,1), (2,1), (0,3), (2,3)")
	require.NoError(t, j.Close())

	in := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.BigIntT}}
	out := types.Schema{{Name: "k", Type: types.IntT}, {Name: "s", Type: types.BigIntT}}
	g := onTestDisk(t, NewGroupAggregate([]int{0}, []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1}}, in, mustArrow(t, out), GroupAggregateOptions{}))
	require.NoError(t, g.Open(ctx))
	gc := &ckCollector{out: out}
	for i := range 3 {
		rec, err := types.BuildRecord(vectorized.Mem, in, [][]any{{int32(7), int64(i + 1)}})
		require.NoError(t, err)
		require.NoError(t, g.Process(ctx, vectorized.Batch{Rec: rec}, gc))
	}
	require.Equal(t, 2, g.DiskEvictions())
	require.Equal(t, []string{"+I[7 1]", "-U[7 1]", "+U[7 3]", "-U[7 3]", "+U[7 6]"}, gc.rows)
	require.NoError(t, g.Close())

	dd := onTestDisk(t, NewDeduplicate([]int{0}, true, false, 0, in, mustArrow(t, in)))
	require.NoError(t, dd.Open(ctx))
	dc := &ckCollector{out: in}
	for i := range 3 {
		rec, err := types.BuildRecord(vectorized.Mem, in, [][]any{{int32(7), int64(i + 1)}})
		require.NoError(t, err)
		require.NoError(t, dd.Process(ctx, vectorized.Batch{Rec: rec}, dc))
	}
	require.Equal(t, 2, dd.DiskEvictions())
	require.Equal(t, []string{"+I[7 1]", "-U[7 1]", "+U[7 2]", "-U[7 2]", "+U[7 3]"}, dc.rows)
	require.NoError(t, dd.Close())

	rk := onTestDisk(t, NewRank([]int{0}, []logical.SortKey{{Index: 1}}, 1, false, true, false, in, in, mustArrow(t, in)))
	require.NoError(t, rk.Open(ctx))
	rc := &ckCollector{out: in}
	for _, v := range []int64{5, 9, 3} {
		rec, err := types.BuildRecord(vectorized.Mem, in, [][]any{{int32(7), v}})
		require.NoError(t, err)
		require.NoError(t, rk.Process(ctx, vectorized.Batch{Rec: rec}, rc))
	}
	require.Equal(t, 2, rk.DiskEvictions(), "the partition loaded for the row 9 counts too")
	require.Equal(t, []string{"+I[7 5]", "-D[7 5]", "+I[7 3]"}, rc.rows)
	require.NoError(t, rk.Close())
}
