package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// windowStateSteps is a random stream over wSchema: batches of rows with
// event times drifting forward (some late), and a watermark (the largest
// time so far minus 3 s) after every few batches.
func windowStateSteps(seed uint64, batches int) []windowStep {
	r := rand.New(rand.NewPCG(seed, 3))
	var steps []windowStep
	hi := 0.0
	for b := 0; b < batches; b++ {
		n := 1 + r.IntN(6)
		rows := make([][]any, n)
		for i := range rows {
			sec := hi - 8 + r.Float64()*10.5
			hi = max(hi, sec)
			rows[i] = wrow(fmt.Sprintf("k%d", r.IntN(6)), int32(r.IntN(100)), float64(int(sec*1000))/1000)
			if r.IntN(15) == 0 {
				rows[i][1] = nil
			}
		}
		steps = append(steps, windowStep{rows: rows})
		if r.IntN(3) == 0 {
			steps = append(steps, windowStep{wm: hi - 3})
		}
	}
	return steps
}

// feedWindow runs steps through r.
func (r *aggRun) feedWindow(steps []windowStep) {
	ctx := context.Background()
	for _, s := range steps {
		if s.rows == nil {
			require.NoError(r.t, r.op.OnMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: int64(s.wm * 1000)}, &r.c))
			continue
		}
		if len(s.rows) == 0 {
			continue
		}
		rec, err := types.BuildRecord(vectorized.Mem, r.in, s.rows)
		require.NoError(r.t, err)
		require.NoError(r.t, r.op.Process(ctx, vectorized.Batch{Rec: rec}, &r.c))
	}
}

// windowSubtasks splits the rows of steps by the subtask of their key
// (columns keys) at parallelism p; every instance sees every watermark.
func windowSubtasks(t *testing.T, keys []int, steps []windowStep, p int) [][]windowStep {
	return windowSubtasksIn(t, wSchema, keys, steps, p)
}

// windowSubtasksIn is windowSubtasks over the input schema in.
func windowSubtasksIn(t *testing.T, in types.Schema, keys []int, steps []windowStep, p int) [][]windowStep {
	out := make([][]windowStep, p)
	for _, s := range steps {
		if s.rows == nil {
			for i := range out {
				out[i] = append(out[i], s)
			}
			continue
		}
		parts := make([][][]any, p)
		cs := make([]change, len(s.rows))
		for i, row := range s.rows {
			cs[i] = change{row: row}
		}
		for i, part := range aggSubtasks(t, in, keys, cs, p) {
			for _, c := range part {
				parts[i] = append(parts[i], c.row)
			}
		}
		for i := range out {
			out[i] = append(out[i], windowStep{rows: append([][]any{}, parts[i]...)})
		}
	}
	return out
}

type windowStateCase struct {
	name    string
	out     types.Schema
	keys    []int
	ordered bool         // the output order is deterministic
	in      types.Schema // the input schema; nil: wSchema
	mk      func(t *testing.T) (vectorized.Operator, vectorized.Stateful)
}

func windowStateCases() []windowStateCase {
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
		{Kind: logical.Hop, TimeCol: 2, Size: 10_000, Slide: 5_000},
		{Kind: logical.Cumulate, TimeCol: 2, Size: 10_000, Step: 5_000},
	}
	var cases []windowStateCase
	for _, spec := range specs {
		for _, k := range []bool{true, false} {
			keys, out := []int{0}, keyed
			if !k {
				keys, out = nil, global
			}
			cases = append(cases, windowStateCase{name: fmt.Sprintf("WindowAggregate %s keyed=%v", spec.Kind, k), out: out, keys: keys, ordered: true,
				mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
					op, err := NewWindowAggregate(keys, calls, spec, wSchema, mustArrow(t, out))
					require.NoError(t, err)
					op = onTestDisk(t, op)
					return op, op
				}})
		}
	}
	// DISTINCT calls: fixed-width (pair set) and string (generic set)
	// arguments, an order-sensitive float sum, and a non-DISTINCT call.
	dcalls := []logical.AggCall{
		{Name: "COUNT", Args: []int{1}, Distinct: true, Filter: -1}, {Name: "SUM", Args: []int{1}, Distinct: true, Filter: -1},
		{Name: "COUNT", Args: []int{0}, Distinct: true, Filter: -1}, {Name: "SUM", Args: []int{3}, Distinct: true, Filter: -1},
		{Name: "COUNT", Filter: -1},
	}
	dOut := types.Schema{{Name: "cv", Type: types.BigIntT.WithNullable(false)}, {Name: "sv", Type: types.IntT},
		{Name: "ck", Type: types.BigIntT.WithNullable(false)}, {Name: "sf", Type: types.DoubleT}, {Name: "c", Type: types.BigIntT.WithNullable(false)}}
	for _, spec := range specs[:2] {
		for _, k := range []bool{true, false} {
			keys := []int{0}
			out := append(append(types.Schema{{Name: "k", Type: types.StringT}}, dOut...), winCols[0], winCols[1])
			if !k {
				keys, out = nil, append(append(types.Schema{}, dOut...), winCols[0], winCols[1])
			}
			cases = append(cases, windowStateCase{name: fmt.Sprintf("WindowAggregate DISTINCT %s keyed=%v", spec.Kind, k), out: out, keys: keys,
				ordered: true, in: wdSchema,
				mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
					op, err := NewWindowAggregate(keys, dcalls, spec, wdSchema, mustArrow(t, out))
					require.NoError(t, err)
					op = onTestDisk(t, op)
					return op, op
				}})
		}
	}
	session := logical.WindowSpec{Kind: logical.Session, TimeCol: 2, Size: 2_000, PartitionKeys: []int{0}}
	sout := append(append(types.Schema{{Name: "k", Type: types.StringT}}, aggOut...), winCols...)
	cases = append(cases, windowStateCase{name: "SessionWindowAggregate", out: sout, keys: []int{0},
		mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			op, err := NewSessionWindowAggregate([]int{0}, calls, session, wSchema, mustArrow(t, sout))
			require.NoError(t, err)
			return op, op
		}})
	tout := append(append(types.Schema{}, wSchema...), winCols...)
	cases = append(cases, windowStateCase{name: "SessionWindowTableFunction", out: tout, keys: []int{0},
		mk: func(t *testing.T) (vectorized.Operator, vectorized.Stateful) {
			op, err := NewSessionWindowTableFunction(session, wSchema, mustArrow(t, tout))
			require.NoError(t, err)
			return op, op
		}})
	return cases
}

// wdSchema is wSchema with a DOUBLE column "f" (of v) for the DISTINCT cases.
var wdSchema = append(append(types.Schema{}, wSchema...), types.Field{Name: "f", Type: types.DoubleT})

// input returns the input schema of tc and steps adapted to it.
func (tc windowStateCase) input(steps []windowStep) (types.Schema, []windowStep) {
	if tc.in == nil {
		return wSchema, steps
	}
	out := make([]windowStep, len(steps))
	for i, st := range steps {
		out[i] = windowStep{wm: st.wm}
		if st.rows == nil {
			continue
		}
		out[i].rows = make([][]any, len(st.rows))
		for j, r := range st.rows {
			var f any
			if v, ok := r[1].(int32); ok {
				f = float64(v)/7 + 0.1
			}
			out[i].rows[j] = append(append([]any{}, r...), f)
		}
	}
	return tc.in, out
}

func sortedChanges(cs []change) []string {
	s := changeStrings(cs)
	sort.Strings(s)
	return s
}

func TestWindowStateRestoreEqualsUninterrupted(t *testing.T) {
	for _, tc := range windowStateCases() {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				in, steps := tc.input(windowStateSteps(seed, 80))
				half := len(steps) / 2
				for half < len(steps) && steps[half-1].rows != nil {
					half++ // right after a watermark: the restored one decides lateness
				}
				op, _ := tc.mk(t)
				a := newAggRun(t, op, in, tc.out)
				a.feedWindow(steps[:half])
				a.marker(vectorized.CheckpointBarrier)
				a.feedWindow(steps[half:])
				a.marker(vectorized.EndOfInput)
				want := a.changes(true)
				require.NotEmpty(t, want)

				cp := &aggCheckpoint{}
				op1, st1 := tc.mk(t)
				b1 := newAggRun(t, op1, in, tc.out)
				b1.feedWindow(steps[:half])
				b1.snapshot(st1, cp)
				got := b1.changes(true)
				op2, st2 := tc.mk(t)
				b2 := newAggRun(t, op2, in, tc.out)
				require.NoError(t, st2.RestoreState(context.Background(), &aggStateReader{cp: cp, parallelism: 1}))
				b2.feedWindow(steps[half:])
				b2.marker(vectorized.EndOfInput)
				got = append(got, b2.changes(true)...)
				if tc.ordered {
					require.Equal(t, changeStrings(want), changeStrings(got))
				} else {
					require.Equal(t, sortedChanges(want), sortedChanges(got))
				}
				type lateRows interface{ LateRows() int64 }
				require.Equal(t, op.(lateRows).LateRows(), op2.(lateRows).LateRows())
			})
		}
	}
}

func TestWindowStateRescale(t *testing.T) {
	for _, tc := range windowStateCases() {
		if len(tc.keys) == 0 && tc.in == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			in, steps := tc.input(windowStateSteps(9, 80))
			half := len(steps) / 2
			op, _ := tc.mk(t)
			a := newAggRun(t, op, in, tc.out)
			a.feedWindow(steps)
			a.marker(vectorized.EndOfInput)
			want := sortedChanges(a.changes(true))
			run := func(from, to int) []string {
				var all []change
				cp := &aggCheckpoint{}
				for _, part := range windowSubtasksIn(t, in, tc.keys, steps[:half], from) {
					op, st := tc.mk(t)
					r := newAggRun(t, op, in, tc.out)
					r.feedWindow(part)
					r.snapshot(st, cp)
					all = append(all, r.changes(true)...)
				}
				for i, part := range windowSubtasksIn(t, in, tc.keys, steps[half:], to) {
					op, st := tc.mk(t)
					r := newAggRun(t, op, in, tc.out)
					require.NoError(t, st.RestoreState(context.Background(), &aggStateReader{cp: cp, subtask: i, parallelism: to}))
					r.feedWindow(part)
					r.marker(vectorized.EndOfInput)
					all = append(all, r.changes(true)...)
				}
				return sortedChanges(all)
			}
			require.Equal(t, want, run(2, 1), "2 → 1")
			require.Equal(t, want, run(1, 2), "1 → 2")
		})
	}
}

func TestWindowStateUnsupportedCall(t *testing.T) {
	out := types.Schema{{Name: "l", Type: types.StringT}, winCols[0], winCols[1]}
	op, err := NewWindowAggregate(nil, []logical.AggCall{{Name: "LISTAGG", Args: []int{0}, Filter: -1}},
		logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10_000}, wSchema, mustArrow(t, out))
	require.NoError(t, err)
	r := newAggRun(t, op, wSchema, out)
	r.feedWindow([]windowStep{{rows: [][]any{wrow("a", 1, 1)}}})
	err = op.SnapshotState(context.Background(), (&aggCheckpoint{}).writer())
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "not supported yet: "), err.Error())
}
