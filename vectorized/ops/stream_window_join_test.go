package ops

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestWindowJoin(t *testing.T) {
	ts := types.TimestampOf(3)
	// k, v, window_end (the window_start column is left out: the end
	// identifies a window here)
	ls := types.Schema{{Name: "k", Type: types.IntT}, {Name: "a", Type: types.StringT}, {Name: "we", Type: ts}}
	rs := types.Schema{{Name: "k", Type: types.IntT}, {Name: "b", Type: types.StringT}, {Name: "we", Type: ts}}
	out := append(append(types.Schema{}, ls...), rs...)
	row := func(side int, k any, v string, endSec float64) ijStep {
		return ijStep{side: side, row: []any{k, v, int64(endSec * 1e6)}}
	}
	tests := []struct {
		name  string
		kind  logical.JoinKind
		cond  Selector
		steps []ijStep
		want  []string
	}{
		{
			name: "inner join fires windows in order and drops late rows", kind: logical.InnerJoin,
			steps: []ijStep{
				row(0, int32(1), "a", 20), row(1, int32(1), "y", 20), row(0, int32(1), "b", 10), row(1, int32(1), "x", 10),
				row(1, int32(2), "other key", 10),
				ijWM(0, 9.999), ijWM(1, 9.999), // the window ending at 10 s fires
				row(0, int32(1), "late", 10),
				ijWM(1, 30), ijEnd(1), ijEnd(0),
			},
			want: []string{
				"+I[1 b 10000000 1 x 10000000]", "wm=9999",
				"+I[1 a 20000000 1 y 20000000]", "end",
			},
		},
		{
			name: "full join pads unmatched rows when the window fires", kind: logical.FullJoin,
			cond: &rowSelector{s: out, fn: func(r []any) bool { return r[1].(string) < r[4].(string) }},
			steps: []ijStep{
				row(0, int32(1), "m", 10), row(1, int32(1), "a", 10), row(1, int32(1), "z", 10), row(0, int32(3), "q", 20),
				ijEnd(0), ijEnd(1),
			},
			want: []string{
				"+I[1 m 10000000 1 z 10000000]", "+I[<nil> <nil> <nil> 1 a 10000000]",
				"+I[3 q 20000000 <nil> <nil> <nil>]", "end",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := JoinSpec{Kind: tc.kind, LeftKeys: []int{0, 2}, RightKeys: []int{0, 2}, Cond: tc.cond,
				Left: mustArrow(t, ls), Right: mustArrow(t, rs), Out: mustArrow(t, out)}
			op := NewWindowJoin(WindowJoinSpec{Join: spec, LeftEnd: 2, RightEnd: 2})
			require.NoError(t, op.Open(context.Background()))
			require.Equal(t, tc.want, runTwoInput(t, op, [2]types.Schema{ls, rs}, out, tc.steps))
			require.Empty(t, op.bufs[0])
			require.Empty(t, op.bufs[1])
			require.NoError(t, op.Close())
		})
	}
}
