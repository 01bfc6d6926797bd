package ops

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// twoPhaseWindow runs a LocalWindowAggregate straight into a
// GlobalWindowAggregate (as an Exchange to one instance would).
type twoPhaseWindow struct {
	l *LocalWindowAggregate
	g *GlobalWindowAggregate
}

type pipeTo struct {
	op  vectorized.Operator
	out vectorized.Collector
}

func (p pipeTo) Emit(ctx context.Context, b vectorized.Batch) error {
	return p.op.Process(ctx, b, p.out)
}
func (p pipeTo) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	return p.op.OnMarker(ctx, m, p.out)
}

func (w *twoPhaseWindow) Open(ctx context.Context) error {
	if err := w.l.Open(ctx); err != nil {
		return err
	}
	return w.g.Open(ctx)
}
func (w *twoPhaseWindow) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	return w.l.Process(ctx, b, pipeTo{w.g, out})
}
func (w *twoPhaseWindow) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	return w.l.OnMarker(ctx, m, pipeTo{w.g, out})
}
func (w *twoPhaseWindow) Close() error { _ = w.l.Close(); return w.g.Close() }
func (w *twoPhaseWindow) SnapshotState(ctx context.Context, sw vectorized.StateWriter) error {
	return w.g.SnapshotState(ctx, sw)
}
func (w *twoPhaseWindow) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	return w.g.RestoreState(ctx, r)
}

// newTwoPhaseWindow builds the two phases of calls grouped by keys over
// wSchema; out is the one-phase output schema.
func newTwoPhaseWindow(t *testing.T, keys []int, calls []logical.AggCall, spec logical.WindowSpec, out types.Schema, size int64) *twoPhaseWindow {
	t.Helper()
	var fields []arrow.Field
	in := mustArrow(t, wSchema)
	for _, k := range keys {
		fields = append(fields, in.Field(k))
	}
	var stateCols [][]int
	for _, c := range calls {
		var argTypes []arrow.DataType
		for _, a := range c.Args {
			argTypes = append(argTypes, in.Field(a).Type)
		}
		acc, err := agg.NewAccumulator(accumulatorName(c), argTypes, nil, false)
		require.NoError(t, err)
		var cols []int
		for j, st := range acc.(agg.Merger).StateTypes() {
			cols = append(cols, len(fields))
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("s%d_%d", len(stateCols), j), Type: st, Nullable: true})
		}
		stateCols = append(stateCols, cols)
	}
	sliceEnd := len(fields)
	fields = append(fields, arrow.Field{Name: "$slice_end", Type: arrow.PrimitiveTypes.Int64})
	lout := arrow.NewSchema(fields, nil)
	gkeys := make([]int, len(keys))
	for i := range gkeys {
		gkeys[i] = i
	}
	g, err := NewGlobalWindowAggregate(gkeys, calls, stateCols, sliceEnd, spec, wSchema, lout, mustArrow(t, out))
	require.NoError(t, err)
	return &twoPhaseWindow{l: NewLocalWindowAggregate(keys, calls, spec, wSchema, lout, size), g: onTestDisk(t, g)}
}

// TestWindowTwoPhaseEqualsOnePhase: the local and global phases give the
// one-phase WindowAggregate's windows, uninterrupted, restored from a
// checkpoint, and rescaled.
func TestWindowTwoPhaseEqualsOnePhase(t *testing.T) {
	calls := []logical.AggCall{
		{Name: "COUNT", Filter: -1}, {Name: "SUM", Args: []int{1}, Filter: -1}, {Name: "MAX", Args: []int{0}, Filter: -1},
		{Name: "AVG", Args: []int{1}, Filter: -1}, {Name: "MIN", Args: []int{1}, Filter: -1},
	}
	aggOut := types.Schema{{Name: "c", Type: types.BigIntT.WithNullable(false)}, {Name: "s", Type: types.IntT},
		{Name: "m", Type: types.StringT}, {Name: "a", Type: types.IntT}, {Name: "mi", Type: types.IntT}}
	keyed := append(append(types.Schema{{Name: "k", Type: types.StringT}}, aggOut...), winCols[0], winCols[1])
	global := append(append(types.Schema{}, aggOut...), winCols[0], winCols[1], winCols[2])
	specs := []logical.WindowSpec{
		{Kind: logical.Tumble, TimeCol: 2, Size: 10_000},
		{Kind: logical.Tumble, TimeCol: 2, Size: 10_000, Offset: 3_000},
		{Kind: logical.Hop, TimeCol: 2, Size: 10_000, Slide: 5_000},
		{Kind: logical.Cumulate, TimeCol: 2, Size: 10_000, Step: 5_000},
		{Kind: logical.Cumulate, TimeCol: 2, Size: 9_000, Step: 3_000, Offset: 1_000},
	}
	for _, spec := range specs {
		for _, keyedCase := range []bool{true, false} {
			keys, out := []int{0}, keyed
			if !keyedCase {
				keys, out = nil, global
			}
			for _, size := range []int64{0, 1, 7} {
				t.Run(fmt.Sprintf("%s/offset=%d/keyed=%v/size=%d", spec.Kind, spec.Offset, keyedCase, size), func(t *testing.T) {
					for seed := uint64(1); seed <= 3; seed++ {
						steps := windowStateSteps(seed, 60)
						one, err := NewWindowAggregate(keys, calls, spec, wSchema, mustArrow(t, out))
						require.NoError(t, err)
						a := newAggRun(t, one, wSchema, out)
						a.feedWindow(steps)
						a.marker(vectorized.EndOfInput)
						want := sortedChanges(a.changes(true))
						require.NotEmpty(t, want)

						two := newTwoPhaseWindow(t, keys, calls, spec, out, size)
						b := newAggRun(t, two, wSchema, out)
						b.feedWindow(steps)
						b.marker(vectorized.EndOfInput)
						require.Equal(t, want, sortedChanges(b.changes(true)), "uninterrupted")

						half := len(steps) / 2
						cp := &aggCheckpoint{}
						two1 := newTwoPhaseWindow(t, keys, calls, spec, out, size)
						b1 := newAggRun(t, two1, wSchema, out)
						b1.feedWindow(steps[:half])
						b1.snapshot(two1, cp)
						got := b1.changes(true)
						two2 := newTwoPhaseWindow(t, keys, calls, spec, out, size)
						b2 := newAggRun(t, two2, wSchema, out)
						require.NoError(t, two2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
						b2.feedWindow(steps[half:])
						b2.marker(vectorized.EndOfInput)
						got = append(got, b2.changes(true)...)
						require.Equal(t, want, sortedChanges(got), "restored")

						if !keyedCase {
							continue
						}
						// rescale 2 → 3: the global instances own key groups
						cp = &aggCheckpoint{}
						var all []change
						for _, part := range windowSubtasks(t, keys, steps[:half], 2) {
							op := newTwoPhaseWindow(t, keys, calls, spec, out, size)
							r := newAggRun(t, op, wSchema, out)
							r.feedWindow(part)
							r.snapshot(op, cp)
							all = append(all, r.changes(true)...)
						}
						for i, part := range windowSubtasks(t, keys, steps[half:], 3) {
							op := newTwoPhaseWindow(t, keys, calls, spec, out, size)
							r := newAggRun(t, op, wSchema, out)
							require.NoError(t, op.RestoreState(context.Background(), &aggStateReader{cp: cp, subtask: i, parallelism: 3}))
							r.feedWindow(part)
							r.marker(vectorized.EndOfInput)
							all = append(all, r.changes(true)...)
						}
						require.Equal(t, want, sortedChanges(all), "rescaled")
					}
				})
			}
		}
	}
}

// TestLocalWindowAggregateFlushes: the local phase keeps rows until a
// window may fire, a bundle ends or a barrier passes.
func TestLocalWindowAggregateFlushes(t *testing.T) {
	calls := []logical.AggCall{{Name: "COUNT", Filter: -1}}
	out := types.Schema{{Name: "k", Type: types.StringT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}, winCols[0], winCols[1]}
	two := newTwoPhaseWindow(t, []int{0}, calls, logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000}, out, 0)
	l := two.l
	r := newAggRun(t, l, wSchema, out)
	r.feedWindow([]windowStep{{rows: [][]any{wrow("a", 1, 1), wrow("a", 2, 2), wrow("b", 3, 12)}}})
	require.Empty(t, r.c.batches)
	r.feedWindow([]windowStep{{wm: 5}})
	require.Empty(t, r.c.batches, "no window due at 5 s")
	r.feedWindow([]windowStep{{wm: 9.999}})
	require.Len(t, r.c.batches, 1, "window [0, 10) due: everything flushed")
	require.EqualValues(t, 2, r.c.batches[0].NumRows())
	r.feedWindow([]windowStep{{rows: [][]any{wrow("b", 3, 13)}}})
	r.marker(vectorized.CheckpointBarrier)
	require.Len(t, r.c.batches, 2)
	r.marker(vectorized.CheckpointBarrier)
	r.marker(vectorized.EndOfBundle)
	require.Len(t, r.c.batches, 2, "nothing buffered")
	require.NoError(t, l.Close())
}

func TestRowTimeMiniBatchAssigner(t *testing.T) {
	m := NewRowTimeMiniBatchAssigner(1000, 0)
	c := &ckCollector{}
	ctx := context.Background()
	var got []string
	for _, wm := range []int64{100, 500, 999, 1000, 1500, 1998, 1999, 5000, 4000, 5999, 6000, math.MaxInt64} {
		c.markers = nil
		require.NoError(t, m.OnMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: wm}, c))
		for _, mk := range c.markers {
			if mk.Kind == vectorized.EndOfBundle {
				got = append(got, "EOB")
			} else {
				got = append(got, fmt.Sprint(mk.Watermark))
			}
		}
	}
	require.Equal(t, []string{"EOB", "100", "EOB", "999", "EOB", "1999", "EOB", "5000", "EOB", "5999",
		"EOB", fmt.Sprint(int64(math.MaxInt64))}, got)
}
