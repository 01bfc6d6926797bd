package agg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestCollectStepStateRoundTrip snapshots the new aggregates' state and
// restores it into fresh steppers: the next step gives the same results.
func TestCollectStepStateRoundTrip(t *testing.T) {
	i32 := arrow.PrimitiveTypes.Int32
	str := arrow.BinaryTypes.String
	f64 := arrow.PrimitiveTypes.Float64
	for _, tc := range []struct {
		fn   string
		ts   []arrow.DataType
		args func() []arrow.Array
	}{
		{FuncArrayAgg, []arrow.DataType{i32}, func() []arrow.Array { return []arrow.Array{int32Array(1, nil, 3)} }},
		{FuncJSONArrayAgg, []arrow.DataType{i32}, func() []arrow.Array { return []arrow.Array{int32Array(1, 2, 3)} }},
		{FuncJSONObjectAgg, []arrow.DataType{str, i32}, func() []arrow.Array {
			return []arrow.Array{stringArray(sp("a"), sp("b"), sp("c")), int32Array(1, nil, 3)}
		}},
		{FuncPercentile, []arrow.DataType{i32, f64}, func() []arrow.Array { return []arrow.Array{int32Array(1, 2, 7), float64Const(0.5, 3)} }},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			mk := func() Stepper {
				s, err := NewStepper(tc.fn, tc.ts, nil, false, true)
				require.NoError(t, err)
				s.Resize(2)
				return s
			}
			a := mk()
			args := tc.args()
			defer release(args)
			out, err := a.Step(memory.DefaultAllocator, []uint32{0, 0, 1}, []Op{OpAdd, OpAdd, OpAdd}, args, make([]bool, 3))
			require.NoError(t, err)
			out.Release()
			st, err := AsStepStater(a, tc.fn)
			require.NoError(t, err)
			state, err := st.StepState(memory.DefaultAllocator, []uint32{0, 1})
			require.NoError(t, err)
			defer release(state)
			b := mk()
			require.NoError(t, b.(StepStater).SetStepState([]uint32{0, 1}, state))
			// the same retraction on both gives the same before/after values
			ra, err := a.Step(memory.DefaultAllocator, []uint32{0, 1}, []Op{OpRetract, OpSkip}, args, make([]bool, 2))
			require.NoError(t, err)
			defer ra.Release()
			rb, err := b.Step(memory.DefaultAllocator, []uint32{0, 1}, []Op{OpRetract, OpSkip}, args, make([]bool, 2))
			require.NoError(t, err)
			defer rb.Release()
			require.True(t, array.Equal(ra, rb), "%s vs %s", ra, rb)
		})
	}
}
