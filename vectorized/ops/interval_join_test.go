package ops

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// ijStep is one input of a two-input operator test: a row of a side, a
// watermark of a side (isWM), or the end of a side (end).
type ijStep struct {
	side int
	row  []any
	wm   int64
	isWM bool
	end  bool
}

func ijRow(side int, k any, sec float64, v string) ijStep {
	var ts any
	if sec >= 0 {
		ts = int64(sec * 1e6)
	}
	return ijStep{side: side, row: []any{k, ts, v}}
}

func ijWM(side int, sec float64) ijStep { return ijStep{side: side, wm: int64(sec * 1000), isWM: true} }

func ijEnd(side int) ijStep { return ijStep{side: side, end: true} }

// runTwoInput feeds steps to op and returns its output rows (as
// "+I[…]") and markers ("wm=N", "end") in order.
func runTwoInput(t *testing.T, op interface {
	Process(context.Context, int, vectorized.Batch, vectorized.Collector) error
	OnMarker(context.Context, int, vectorized.Marker, vectorized.Collector) error
}, in [2]types.Schema, out types.Schema, steps []ijStep) []string {
	t.Helper()
	ctx := context.Background()
	c := &orderCollector{out: out}
	for _, s := range steps {
		switch {
		case s.end:
			require.NoError(t, op.OnMarker(ctx, s.side, vectorized.Marker{Kind: vectorized.EndOfInput}, c))
		case s.isWM:
			require.NoError(t, op.OnMarker(ctx, s.side, vectorized.Marker{Kind: vectorized.Watermark, Watermark: s.wm}, c))
		default:
			rec, err := types.BuildRecord(vectorized.Mem, in[s.side], [][]any{s.row})
			require.NoError(t, err)
			require.NoError(t, op.Process(ctx, s.side, vectorized.Batch{Rec: rec}, c))
		}
	}
	return c.got
}

// orderCollector records rows and markers in emission order.
type orderCollector struct {
	out types.Schema
	got []string
}

func (c *orderCollector) Emit(_ context.Context, b vectorized.Batch) error {
	for i, r := range types.RecordRows(b.Rec, c.out) {
		c.got = append(c.got, change{b.Kind(i), r}.String())
	}
	return nil
}

func (c *orderCollector) EmitMarker(_ context.Context, m vectorized.Marker) error {
	if m.Kind == vectorized.Watermark {
		c.got = append(c.got, fmt.Sprintf("wm=%d", m.Watermark))
	} else {
		c.got = append(c.got, "end")
	}
	return nil
}

func TestIntervalJoin(t *testing.T) {
	ts := types.TimestampOf(3)
	ls := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "a", Type: types.StringT}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "b", Type: types.StringT}}
	out := append(append(types.Schema{}, ls...), rs...)
	tests := []struct {
		name  string
		kind  logical.JoinKind
		keys  bool
		cond  Selector
		steps []ijStep
		want  []string
	}{
		{
			name: "inner join expires state with the watermark", kind: logical.InnerJoin, keys: true,
			steps: []ijStep{
				ijRow(0, int32(1), 10, "a"), ijRow(1, int32(1), 12, "x"), ijRow(1, int32(1), 20, "y"),
				ijRow(1, int32(2), 10, "other key"),
				ijWM(0, 16), ijWM(1, 16), // a (10 s) can match no right row after 15 s: dropped
				ijRow(0, int32(1), 15.5, "late"), ijRow(1, int32(1), 10.5, "gone"),
				ijEnd(0), ijEnd(1),
			},
			want: []string{
				"+I[1 10000000 a 1 12000000 x]",
				"wm=11000",
				"+I[1 15500000 late 1 12000000 x]", "+I[1 15500000 late 1 20000000 y]",
				"+I[1 15500000 late 1 10500000 gone]", // late rows still meet the kept ones, as in Flink
				"end",
			},
		},
		{
			name: "left join pads expired rows", kind: logical.LeftJoin, keys: true,
			steps: []ijStep{
				ijRow(0, int32(1), 10, "a"), ijRow(0, int32(2), 10, "b"), ijRow(0, nil, 10, "null key"),
				ijRow(1, int32(1), 30, "x"), ijRow(1, int32(2), 14, "m"),
				ijWM(0, 15), ijWM(1, 15),
				ijRow(0, int32(3), -1, "null time"),
				ijEnd(0), ijEnd(1),
			},
			want: []string{
				"+I[<nil> 10000000 null key <nil> <nil> <nil>]",
				"+I[2 10000000 b 2 14000000 m]",
				"+I[1 10000000 a <nil> <nil> <nil>]",
				"wm=10000",
				"+I[3 <nil> null time <nil> <nil> <nil>]",
				"end",
			},
		},
		{
			name: "full join without keys and with a condition", kind: logical.FullJoin,
			cond: &rowSelector{s: out, fn: func(row []any) bool { return row[2].(string) < row[5].(string) }},
			steps: []ijStep{
				ijRow(1, int32(1), 10, "m"), ijRow(0, int32(2), 11, "z"), ijRow(0, int32(3), 12, "a"),
				ijWM(0, 100), ijWM(1, 100),
				ijRow(1, int32(4), 200, "late"), // cannot match a later left row, nor any kept: padded at once
				ijEnd(0), ijEnd(1),
			},
			want: []string{
				"+I[3 12000000 a 1 10000000 m]",
				"+I[2 11000000 z <nil> <nil> <nil>]",
				"wm=95000",
				"+I[<nil> <nil> <nil> 4 200000000 late]",
				"end",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := IntervalJoinSpec{Kind: tc.kind, Left: ls, Right: rs, Out: out, Cond: tc.cond, RowTime: true,
				LowerBound: -5000, UpperBound: 5000, LeftTime: 1, RightTime: 1}
			if tc.keys {
				spec.LeftKeys, spec.RightKeys = []int{0}, []int{0}
			}
			op := NewIntervalJoin(spec)
			require.NoError(t, op.Open(context.Background()))
			got := runTwoInput(t, op, [2]types.Schema{ls, rs}, out, tc.steps)
			require.Equal(t, tc.want, got)
			require.Zero(t, op.sides[0].kept+op.sides[1].kept, "state left after the end")
			require.NoError(t, op.Close())
		})
	}
}

func TestIntervalJoinFreesState(t *testing.T) {
	ts := types.TimestampOf(3)
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, s...), s...)
	op := NewIntervalJoin(IntervalJoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0},
		Left: s, Right: s, Out: out, RowTime: true, LowerBound: 0, UpperBound: 1000, LeftTime: 1, RightTime: 1})
	require.NoError(t, op.Open(context.Background()))
	var steps []ijStep
	for i := range 1000 {
		sec := float64(i)
		steps = append(steps, ijRow(i%2, int32(i%7), sec, "v"), ijWM(0, sec-1), ijWM(1, sec-1))
	}
	runTwoInput(t, op, [2]types.Schema{s, s}, out, steps)
	kept := 0
	for _, side := range op.sides {
		kept += side.kept
		for _, b := range side.batches[:len(side.batches)-5] {
			require.Nil(t, b, "a batch of expired rows is still held")
		}
	}
	require.LessOrEqual(t, kept, 4)
}

func TestIntervalJoinProcessingTime(t *testing.T) {
	ts := types.TimestampLTZOf(3)
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, s...), s...)
	now := int64(0)
	op := NewIntervalJoin(IntervalJoinSpec{Kind: logical.LeftJoin, LeftKeys: []int{0}, RightKeys: []int{0},
		Left: s, Right: s, Out: out, LowerBound: -1000, UpperBound: 1000, LeftTime: 1, RightTime: 1,
		Now: func() int64 { return now }})
	require.NoError(t, op.Open(context.Background()))
	got := runTwoInput(t, op, [2]types.Schema{s, s}, out, []ijStep{
		ijRow(0, int32(1), 0, "a"), ijRow(1, int32(1), 0.5, "x"),
	})
	require.Equal(t, []string{"+I[1 0 a 1 500000 x]"}, got)
	now = 5000 // the clock passes every bound: the next batch expires the state first
	got = runTwoInput(t, op, [2]types.Schema{s, s}, out, []ijStep{ijRow(1, int32(1), 5, "y")})
	require.Empty(t, got, "a matched row is not padded")
	require.Zero(t, op.sides[0].kept)
	require.Equal(t, 1, op.sides[1].kept)
	now = 7000
	got = runTwoInput(t, op, [2]types.Schema{s, s}, out, []ijStep{ijRow(0, int32(2), 7, "b"), ijEnd(0), ijEnd(1)})
	require.Equal(t, []string{"+I[2 7000000 b <nil> <nil> <nil>]", "end"}, got)
}

// TestIntervalJoinCompactsKeys joins rows of ever-new keys: the key table
// stays bounded as rows expire, and the output equals a run without
// compaction.
func TestIntervalJoinCompactsKeys(t *testing.T) {
	ts := types.TimestampOf(3)
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, s...), s...)
	run := func(minKeys int) ([]string, int) {
		saved := ijCompactMinKeys
		ijCompactMinKeys = minKeys
		defer func() { ijCompactMinKeys = saved }()
		op := NewIntervalJoin(IntervalJoinSpec{Kind: logical.FullJoin, LeftKeys: []int{0}, RightKeys: []int{0},
			Left: s, Right: s, Out: out, RowTime: true, LowerBound: -1000, UpperBound: 1000, LeftTime: 1, RightTime: 1})
		require.NoError(t, op.Open(context.Background()))
		var steps []ijStep
		for i := range 3000 {
			sec := float64(i) / 4
			// key i/3: each key has a few rows, then never comes back
			steps = append(steps, ijRow(i%2, int32(i/3), sec, fmt.Sprint(i)), ijWM(0, sec-2), ijWM(1, sec-2))
		}
		steps = append(steps, ijEnd(0), ijEnd(1))
		got := runTwoInput(t, op, [2]types.Schema{s, s}, out, steps)
		return got, op.table.Len()
	}
	want, keysWithout := run(1 << 30)
	got, keysWith := run(8)
	require.Equal(t, want, got)
	require.Equal(t, 1000, keysWithout)
	require.Less(t, keysWith, 50, "the key table is compacted as rows expire")
}
