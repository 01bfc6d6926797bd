package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// randomChangelog returns steps of random batches over sides: inserts of
// rows from gen, retractions of rows inserted before (with -D, or -U
// followed by +U of a new row when updates), and now and then a watermark.
func randomChangelog(r *rand.Rand, nSteps, sides int, retract, updates bool, gen func(side int) []any) []ckStep {
	live := make([][][]any, sides)
	var steps []ckStep
	wm := int64(0)
	for range nSteps {
		side := r.IntN(sides)
		if r.IntN(8) == 0 {
			wm += int64(r.IntN(5))
			steps = append(steps, ckStep{side: side, marker: &vectorized.Marker{Kind: vectorized.Watermark, Watermark: wm}})
			continue
		}
		var s ckStep
		s.side = side
		for range 1 + r.IntN(4) {
			if retract && len(live[side]) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(live[side]))
				row := live[side][i]
				live[side] = append(live[side][:i], live[side][i+1:]...)
				if updates && r.IntN(2) == 0 {
					nrow := gen(side)
					s.rows = append(s.rows, row, nrow)
					s.kinds = append(s.kinds, changelog.UpdateBefore, changelog.UpdateAfter)
					live[side] = append(live[side], nrow)
					continue
				}
				s.rows = append(s.rows, row)
				s.kinds = append(s.kinds, changelog.Delete)
				continue
			}
			row := gen(side)
			live[side] = append(live[side], row)
			s.rows = append(s.rows, row)
			s.kinds = append(s.kinds, changelog.Insert)
		}
		steps = append(steps, s)
	}
	return steps
}

func TestStreamJoinCheckpoint(t *testing.T) {
	ls := types.Schema{{Name: "k", Type: types.IntT}, {Name: "a", Type: types.StringT}, {Name: "x", Type: types.BigIntT}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "b", Type: types.StringT}}
	both := append(append(types.Schema{}, ls...), rs...)
	cond := &rowSelector{s: both, fn: func(row []any) bool {
		x, _ := row[2].(int64)
		b, _ := row[4].(string)
		return (x+int64(len(b)))%3 != 0
	}}
	gen := func(r *rand.Rand) func(side int) []any {
		return func(side int) []any {
			var k any = int32(r.IntN(6))
			if r.IntN(10) == 0 {
				k = nil
			}
			if side == 0 {
				return []any{k, fmt.Sprintf("a%d", r.IntN(4)), randInt64(r, 7, 0.1)}
			}
			return []any{k, randString(r, 5, 0.1)}
		}
	}
	kinds := []logical.JoinKind{logical.InnerJoin, logical.LeftJoin, logical.RightJoin, logical.FullJoin, logical.SemiJoin, logical.AntiJoin}
	for _, kind := range kinds {
		for _, withCond := range []bool{false, true} {
			for _, keyed := range []bool{true, false} {
				for _, retract := range []bool{false, true} {
					name := fmt.Sprintf("%s/cond=%v/keyed=%v/retract=%v", kind, withCond, keyed, retract)
					t.Run(name, func(t *testing.T) {
						out := both
						if kind == logical.SemiJoin || kind == logical.AntiJoin {
							out = ls
						}
						spec := StreamJoinSpec{Kind: kind, Left: ls, Right: rs, Out: out}
						keys := [][]int{nil, nil}
						if keyed {
							spec.LeftKeys, spec.RightKeys = []int{0}, []int{0}
							keys = [][]int{{0}, {0}}
						}
						if withCond {
							spec.Cond = cond
						}
						tc := ckCase{name: name, in: []types.Schema{ls, rs}, keys: keys, out: out, sides: 2,
							newOp: func(t *testing.T) ckOp { return onTestDisk(t, NewStreamJoin(spec)) }}
						r := rand.New(rand.NewPCG(uint64(kind)+1, 7))
						g := gen(r)
						// a left batch first, so that the anti join without keys emits something
						first := ckStep{side: 0, rows: [][]any{g(0), g(0)}, kinds: []changelog.RowKind{changelog.Insert, changelog.Insert}}
						steps := append([]ckStep{first}, randomChangelog(r, 60, 2, retract, kind == logical.InnerJoin, g)...)
						tc.check(t, steps)
					})
				}
			}
		}
	}
}

func TestStreamUnionCheckpoint(t *testing.T) {
	s := types.Schema{{Name: "k", Type: types.IntT}}
	as := mustArrow(t, s)
	tc := ckCase{in: []types.Schema{s, s, s}, keys: [][]int{{0}, {0}, {0}}, out: s, sides: 3,
		newOp: func(t *testing.T) ckOp { return NewStreamUnion(3, as) }}
	r := rand.New(rand.NewPCG(3, 4))
	steps := randomChangelog(r, 80, 3, true, false, func(int) []any { return []any{int32(r.IntN(9))} })
	tc.check(t, steps)

	// The watermark restored from two instances is the minimum per input.
	ctx := t.Context()
	ck := &memCheckpoint{}
	for _, wms := range [][3]int64{{5, 9, 7}, {6, 2, 8}} {
		u := NewStreamUnion(3, as)
		require.NoError(t, u.Open(ctx))
		c := &ckCollector{out: s}
		for side, wm := range wms {
			require.NoError(t, u.OnMarker(ctx, side, vectorized.Marker{Kind: vectorized.Watermark, Watermark: wm}, c))
		}
		require.NoError(t, u.SnapshotState(ctx, ck.Writer()))
	}
	u := NewStreamUnion(3, as)
	require.NoError(t, u.Open(ctx))
	require.NoError(t, u.RestoreState(ctx, ck.Reader(0, 1)))
	c := &ckCollector{out: s}
	// inputs at 5, 2, 7 (last forwarded: 2); input 1 to 6 makes 5 the minimum
	require.NoError(t, u.OnMarker(ctx, 1, vectorized.Marker{Kind: vectorized.Watermark, Watermark: 6}, c))
	require.Equal(t, []vectorized.Marker{{Kind: vectorized.Watermark, Watermark: 5}}, c.markers)
}

func TestStateSchemaMismatch(t *testing.T) {
	ctx := t.Context()
	ls := types.Schema{{Name: "k", Type: types.IntT}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}}
	j := NewStreamJoin(StreamJoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: ls, Right: ls, Out: append(append(types.Schema{}, ls...), ls...)})
	require.NoError(t, j.Open(ctx))
	rec, err := types.BuildRecord(vectorized.Mem, ls, [][]any{{int32(1)}})
	require.NoError(t, err)
	require.NoError(t, j.Process(ctx, 0, vectorized.Batch{Rec: rec}, &ckCollector{out: ls}))
	ck := &memCheckpoint{}
	require.NoError(t, j.SnapshotState(ctx, ck.Writer()))
	other := NewStreamJoin(StreamJoinSpec{Kind: logical.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Left: rs, Right: rs, Out: append(append(types.Schema{}, rs...), rs...)})
	require.NoError(t, other.Open(ctx))
	err = other.RestoreState(ctx, ck.Reader(0, 1))
	require.ErrorContains(t, err, "the query changed?")
}
