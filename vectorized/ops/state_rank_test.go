package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// ckKVT is the input of the Rank, Deduplicate and OVER tests.
var ckKVT = types.Schema{
	{Name: "k", Type: types.StringT},
	{Name: "ts", Type: types.TimestampOf(3)},
	{Name: "v", Type: types.BigIntT},
	{Name: "d", Type: types.DecimalOf(10, 2)},
	{Name: "f", Type: types.DoubleT},
	{Name: "s", Type: types.StringT},
}

func ckKVTRow(r *rand.Rand) []any {
	var d any
	if r.IntN(8) != 0 {
		d = decimal128.FromI64(int64(r.IntN(1000) - 300))
	}
	return []any{
		randString(r, 5, 0.05),
		int64(r.IntN(60)) * 1000, // micros: 0..59 ms
		randInt64(r, 20, 0.1),
		d,
		randFloat(r, 9, 0.1),
		randString(r, 7, 0.1),
	}
}

func TestRankCheckpoint(t *testing.T) {
	order := []logical.SortKey{{Index: 2, NullsFirst: true}, {Index: 1}}
	for _, retract := range []bool{false, true} {
		for _, outputRank := range []bool{false, true} {
			for _, part := range [][]int{{0}, nil} {
				for _, tieLast := range []bool{false, true} {
					if retract && tieLast {
						continue
					}
					name := fmt.Sprintf("retract=%v/rank=%v/partition=%v/tieLast=%v", retract, outputRank, part, tieLast)
					t.Run(name, func(t *testing.T) {
						out := append(types.Schema{}, ckKVT...)
						if outputRank {
							out = append(out, types.Field{Name: "rn", Type: types.BigIntT.WithNullable(false)})
						}
						as := mustArrow(t, out)
						tc := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{part}, out: out, sides: 1,
							newOp: func(t *testing.T) ckOp {
								op := onTestDisk(t, NewRank(part, order, 3, outputRank, true, tieLast, ckKVT, out, as))
								if retract {
									op.SetRetract()
								}
								return unaryCk{op}
							}}
						r := rand.New(rand.NewPCG(11, 12))
						tc.check(t, randomChangelog(r, 60, 1, retract, retract, func(int) []any { return ckKVTRow(r) }))
					})
				}
			}
		}
	}
}

func TestDeduplicateCheckpoint(t *testing.T) {
	for _, keepLast := range []bool{false, true} {
		for _, rowtime := range []bool{false, true} {
			for _, keys := range [][]int{{0}, {0, 5}} {
				name := fmt.Sprintf("keepLast=%v/rowtime=%v/keys=%v", keepLast, rowtime, keys)
				t.Run(name, func(t *testing.T) {
					as := mustArrow(t, ckKVT)
					tc := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{keys}, out: ckKVT, sides: 1,
						newOp: func(t *testing.T) ckOp {
							return unaryCk{onTestDisk(t, NewDeduplicate(keys, keepLast, rowtime, 1, ckKVT, as))}
						}}
					r := rand.New(rand.NewPCG(13, 14))
					tc.check(t, randomChangelog(r, 60, 1, false, false, func(int) []any { return ckKVTRow(r) }))
				})
			}
		}
	}
}

func TestChangelogNormalizeCheckpoint(t *testing.T) {
	for _, keys := range [][]int{{0}, {0, 5}} {
		t.Run(fmt.Sprintf("keys=%v", keys), func(t *testing.T) {
			as := mustArrow(t, ckKVT)
			tc := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{keys}, out: ckKVT, sides: 1,
				newOp: func(t *testing.T) ckOp {
					return unaryCk{onTestDisk(t, NewChangelogNormalize(keys, ckKVT, as))}
				}}
			r := rand.New(rand.NewPCG(15, 16))
			tc.check(t, randomChangelog(r, 60, 1, true, true, func(int) []any { return ckKVTRow(r) }))
		})
	}
}

func TestOverAggregateCheckpoint(t *testing.T) {
	calls := []logical.OverCall{
		{Name: "ROW_NUMBER", T: types.BigIntT.WithNullable(false)},
		{Name: "RANK", T: types.BigIntT.WithNullable(false)},
		{Name: "DENSE_RANK", T: types.BigIntT.WithNullable(false)},
		{Name: "SUM", Args: []int{2}, T: types.BigIntT},
		{Name: "SUM", Args: []int{3}, T: types.DecimalOf(38, 2)},
		{Name: "AVG", Args: []int{4}, T: types.DoubleT},
		{Name: "COUNT", Args: []int{5}, T: types.BigIntT.WithNullable(false)},
		{Name: "COUNT_STAR", T: types.BigIntT.WithNullable(false)},
		{Name: "MAX", Args: []int{2}, T: types.BigIntT},
		{Name: "MIN", Args: []int{5}, T: types.StringT},
	}
	out := append(types.Schema{}, ckKVT...)
	for i, c := range calls {
		out = append(out, types.Field{Name: fmt.Sprintf("w%d", i), Type: c.T})
	}
	as := mustArrow(t, out)
	order := []logical.SortKey{{Index: 1}}
	tests := []struct {
		name string
		spec OverSpec
	}{
		{"proctime ROWS", OverSpec{Rows: true}},
		{"proctime bounded ROWS", OverSpec{Rows: true, Bounded: true, Preceding: 2}},
		{"rowtime RANGE", OverSpec{Rowtime: true}},
		{"rowtime ROWS", OverSpec{Rows: true, Rowtime: true}},
		{"rowtime bounded ROWS", OverSpec{Rows: true, Rowtime: true, Bounded: true, Preceding: 1}},
	}
	for _, tc := range tests {
		for _, part := range [][]int{{0}, nil} {
			t.Run(fmt.Sprintf("%s/partition=%v", tc.name, part), func(t *testing.T) {
				spec := tc.spec
				spec.Partition, spec.Order, spec.Calls, spec.In, spec.Out, spec.Arrow, spec.Streaming = part, order, calls, ckKVT, out, as, true
				ck := ckCase{in: []types.Schema{ckKVT}, keys: [][]int{part}, out: out, sides: 1,
					newOp: func(t *testing.T) ckOp {
						op, err := NewOverAggregate(spec)
						require.NoError(t, err)
						return unaryCk{op}
					}}
				r := rand.New(rand.NewPCG(15, 16))
				steps := randomChangelog(r, 80, 1, false, false, func(int) []any { return ckKVTRow(r) })
				ck.check(t, steps)
			})
		}
	}
}

func TestWatermarkCheckpoint(t *testing.T) {
	s := types.Schema{{Name: "ts", Type: types.TimestampOf(3)}, {Name: "v", Type: types.IntT}}
	gen := func(r *rand.Rand) func(int) []any {
		return func(int) []any { return []any{int64(r.IntN(100)) * 1000, int32(r.IntN(5))} }
	}
	t.Run("assigner", func(t *testing.T) {
		ev := &rowEvaluator{s: s, t: types.TimestampOf(3), fn: func(row []any) any { return row[0] }}
		tc := ckCase{in: []types.Schema{s}, keys: [][]int{nil}, out: s, sides: 1,
			newOp: func(t *testing.T) ckOp { return unaryCk{NewWatermarkAssigner(ev)} }}
		r := rand.New(rand.NewPCG(17, 18))
		tc.check(t, randomChangelog(r, 40, 1, false, false, gen(r)))
	})
	t.Run("CURRENT_WATERMARK", func(t *testing.T) {
		ext := append(append(types.Schema{}, s...), types.Field{Name: "wm", Type: types.TimestampOf(3)})
		extArrow := mustArrow(t, ext)
		dt := extArrow.Field(2).Type.(*arrow.TimestampType)
		tc := ckCase{in: []types.Schema{s}, keys: [][]int{nil}, out: ext, sides: 1,
			newOp: func(t *testing.T) ckOp {
				calc := NewCalc(nil, []Projection{{Column: 0}, {Column: 1}, {Column: 2}}, extArrow)
				return unaryCk{NewWatermarkCalc(calc, extArrow, dt)}
			}}
		r := rand.New(rand.NewPCG(19, 20))
		tc.check(t, randomChangelog(r, 40, 1, false, false, gen(r)))
	})
}

func TestValuesCheckpoint(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.IntT}}
	var rows [][]any
	for i := range 3*batchSize + 17 {
		rows = append(rows, []any{int32(i)})
	}
	ctx := t.Context()
	run := func(v *Values, stopAt int, ck *memCheckpoint) []string {
		c := &stopCollector{ckCollector: ckCollector{out: s}, stopAt: stopAt, snap: func() error {
			return v.SnapshotPosition(ck.Writer())
		}}
		err := v.Run(ctx, c)
		if stopAt > 0 && c.n >= stopAt {
			require.ErrorIs(t, err, errStop)
		} else {
			require.NoError(t, err)
		}
		return c.rows
	}
	full := run(NewValues(s, rows), 0, nil)
	require.Len(t, full, len(rows))
	for k := 1; k <= 4; k++ {
		ck := &memCheckpoint{}
		first := run(NewValues(s, rows), k, ck)
		v := NewValues(s, rows)
		require.NoError(t, v.Open(ctx))
		require.NoError(t, v.RestorePosition(ck.Reader(0, 1)))
		rest := run(v, 0, nil)
		require.Equal(t, full, append(first, rest...), "stopped after %d batches", k)
	}
	// a position beyond the rows is an error
	ck := &memCheckpoint{}
	run(NewValues(s, rows), 4, ck)
	require.ErrorContains(t, NewValues(s, rows[:10]).RestorePosition(ck.Reader(0, 1)), "out of range")
}

// errStop ends a source run in the tests after a snapshot.
var errStop = fmt.Errorf("stop")

// stopCollector calls snap inside the stopAt-th Emit (as the runner calls
// SnapshotPosition) and then fails the Emit, like a crash right after the
// checkpoint.
type stopCollector struct {
	ckCollector
	n, stopAt int
	snap      func() error
}

func (c *stopCollector) Emit(ctx context.Context, b vectorized.Batch) error {
	if err := c.ckCollector.Emit(ctx, b); err != nil {
		return err
	}
	c.n++
	if c.stopAt > 0 && c.n == c.stopAt {
		if err := c.snap(); err != nil {
			return err
		}
		return errStop
	}
	return nil
}

func TestLimitCheckpoint(t *testing.T) {
	s := types.Schema{{Name: "i", Type: types.IntT}}
	ctx := t.Context()
	var batches []vectorized.Batch
	n := 0
	for b := range 12 {
		var rows [][]any
		for range b%4 + 1 {
			rows = append(rows, []any{int32(n)})
			n++
		}
		rec, err := types.BuildRecord(vectorized.Mem, s, rows)
		require.NoError(t, err)
		batches = append(batches, vectorized.Batch{Rec: rec})
	}
	// feedLimit runs batches through l until it reports the limit reached.
	feedLimit := func(l *Limit, bs []vectorized.Batch, c *ckCollector) bool {
		for _, b := range bs {
			if err := l.Process(ctx, b, c); err != nil {
				require.True(t, IsLimitReached(err, l), "%v", err)
				return true
			}
		}
		return false
	}
	for _, lim := range [][2]int64{{0, 7}, {5, 9}, {3, -1}, {40, 5}} {
		t.Run(fmt.Sprintf("offset=%d/fetch=%d", lim[0], lim[1]), func(t *testing.T) {
			want := &ckCollector{out: s}
			feedLimit(NewLimit(lim[0], lim[1]), batches, want)
			for cut := range len(batches) + 1 {
				got := &ckCollector{out: s}
				a := NewLimit(lim[0], lim[1])
				if feedLimit(a, batches[:cut], got) {
					continue // the input ended before the checkpoint
				}
				ck := &memCheckpoint{}
				require.NoError(t, a.SnapshotState(ctx, ck.Writer()))
				b := NewLimit(lim[0], lim[1])
				require.NoError(t, b.RestoreState(ctx, ck.Reader(0, 1)))
				feedLimit(b, batches[cut:], got)
				require.Equal(t, want.rows, got.rows, "cut at %d", cut)
			}
		})
	}
}
