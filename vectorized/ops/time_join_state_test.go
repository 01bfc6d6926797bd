package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// timedSteps returns n rows of random sides and keys at about 0.5 s
// apart (up to 1 s out of order), with watermarks 1 s behind on both
// sides every fifth row. row builds a side's row from key, milliseconds
// and a name.
func timedSteps(r *rand.Rand, n int, row func(k int32, ms int64, name string) []any) []ckStep {
	var steps []ckStep
	for i := range n {
		ms := int64(i)*500 + int64(r.IntN(3))*500 - 1000
		steps = append(steps, ckStep{side: r.IntN(2), rows: [][]any{row(int32(r.IntN(4)), ms, string(rune('a'+i%26)))}})
		if i%5 == 4 {
			wm := int64(i)*500 - 1500
			for side := range 2 {
				steps = append(steps, ckStep{side: side, marker: &vectorized.Marker{Kind: vectorized.Watermark, Watermark: wm}})
			}
		}
	}
	return steps
}

func TestIntervalJoinCheckpoint(t *testing.T) {
	ts := types.TimestampOf(3)
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "v", Type: types.StringT}}
	out := append(append(types.Schema{}, s...), s...)
	for _, kind := range []logical.JoinKind{logical.InnerJoin, logical.LeftJoin, logical.FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			spec := IntervalJoinSpec{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, Left: s, Right: s, Out: out,
				RowTime: true, LowerBound: -1000, UpperBound: 2000, LeftTime: 1, RightTime: 1}
			tc := ckCase{in: []types.Schema{s, s}, keys: [][]int{{0}, {0}}, out: out, sides: 2,
				newOp: func(t *testing.T) ckOp { return NewIntervalJoin(spec) }}
			r := rand.New(rand.NewPCG(uint64(kind)+1, 11))
			tc.check(t, timedSteps(r, 60, func(k int32, ms int64, name string) []any { return []any{k, ms * 1000, name} }))
		})
	}
}

func TestWindowJoinCheckpoint(t *testing.T) {
	ts := types.TimestampOf(3)
	s := types.Schema{{Name: "k", Type: types.IntT}, {Name: "v", Type: types.StringT}, {Name: "we", Type: ts}}
	out := append(append(types.Schema{}, s...), s...)
	as, os := mustArrow(t, s), mustArrow(t, out)
	for _, kind := range []logical.JoinKind{logical.InnerJoin, logical.FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			spec := WindowJoinSpec{Join: JoinSpec{Kind: kind, LeftKeys: []int{0, 2}, RightKeys: []int{0, 2}, Left: as, Right: as, Out: os},
				LeftEnd: 2, RightEnd: 2, LeftTypes: s, RightTypes: s, HashKeys: [2][]int{{0}, {0}}}
			tc := ckCase{in: []types.Schema{s, s}, keys: [][]int{{0}, {0}}, out: out, sides: 2,
				newOp: func(t *testing.T) ckOp { return onTestDisk(t, NewWindowJoin(spec)) }}
			r := rand.New(rand.NewPCG(uint64(kind)+5, 13))
			tc.check(t, timedSteps(r, 60, func(k int32, ms int64, name string) []any {
				end := (ms/5000 + 1) * 5000
				if ms < 0 {
					end = 0
				}
				return []any{k, name, end * 1000}
			}))
		})
	}
}

func TestTemporalJoinCheckpoint(t *testing.T) {
	ts := types.TimestampOf(3)
	ls := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "v", Type: types.StringT}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "t", Type: ts}, {Name: "rate", Type: types.StringT}}
	out := append(append(types.Schema{}, ls...), rs...)
	for _, kind := range []logical.JoinKind{logical.InnerJoin, logical.LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			spec := TemporalJoinSpec{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, Left: ls, Right: rs, Out: out, LeftTime: 1, RightTime: 1}
			tc := ckCase{in: []types.Schema{ls, rs}, keys: [][]int{{0}, {0}}, out: out, sides: 2,
				newOp: func(t *testing.T) ckOp { return NewTemporalJoin(spec) }}
			r := rand.New(rand.NewPCG(uint64(kind)+9, 17))
			tc.check(t, timedSteps(r, 60, func(k int32, ms int64, name string) []any { return []any{k, ms * 1000, name} }))
		})
	}
}
