package ops

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/python"
	"github.com/tablerun/tablerun/vectorized/agg"
)

const isumBody = `class isum:
    def create_accumulator(self):
        return [0]

    def accumulate(self, acc, v):
        if v is not None:
            acc[0] += v

    def retract(self, acc, v):
        if v is not None:
            acc[0] -= v

    def get_value(self, acc):
        return acc[0]
`

func distinctStepper(t *testing.T) (agg.Stepper, func()) {
	t.Helper()
	def, err := python.Compile(udf.Spec{Name: "isum", Kind: function.Aggregate,
		Params: []types.Field{{Name: "v", Type: types.BigIntT}}, Returns: types.BigIntT, Body: isumBody})
	require.NoError(t, err)
	ectx := &function.EvalContext{Loc: time.UTC}
	s, ok, err := NewScriptStepper(ectx, logical.AggCall{Name: "isum", Args: []int{0}, Distinct: true, Filter: -1, T: types.BigIntT, User: true, Def: def},
		[]types.Type{types.BigIntT}, true)
	require.NoError(t, err)
	require.True(t, ok)
	return s, func() { s.(interface{ Close() }).Close(); udf.Release(def) }
}

func int64Col(t *testing.T, vals ...any) arrow.Array {
	a, err := types.BuildArray(memory.DefaultAllocator, types.BigIntT, vals)
	require.NoError(t, err)
	return a
}

// stepValues runs one Step and returns the values after each row.
func stepValues(t *testing.T, s agg.Stepper, ids []uint32, ops []agg.Op, vals ...any) []any {
	t.Helper()
	out, err := s.Step(memory.DefaultAllocator, ids, ops, []arrow.Array{int64Col(t, vals...)}, make([]bool, len(ids)))
	require.NoError(t, err)
	var after []any
	for i := range ids {
		after = append(after, types.GetValue(out, 2*i+1, types.BigIntT))
	}
	return after
}

func TestScriptDistinctStepper(t *testing.T) {
	s, done := distinctStepper(t)
	defer done()
	s.Resize(2)
	add, ret := agg.OpAdd, agg.OpRetract
	require.Equal(t, []any{int64(1), int64(1), int64(3), int64(5), int64(5)},
		stepValues(t, s, []uint32{0, 0, 0, 1, 1}, []agg.Op{add, add, add, add, add}, int64(1), int64(1), int64(2), int64(5), int64(5)))
	// one copy of 1 leaves: 1 stays in group 0
	require.Equal(t, []any{int64(3)}, stepValues(t, s, []uint32{0}, []agg.Op{ret}, int64(1)))

	// snapshot and restore into a fresh stepper
	st, ok := s.(agg.StepStater)
	require.True(t, ok)
	require.Len(t, st.StepStateTypes(), 2)
	state, err := st.StepState(memory.DefaultAllocator, []uint32{0, 1})
	require.NoError(t, err)
	r, done2 := distinctStepper(t)
	defer done2()
	r.Resize(2)
	require.NoError(t, r.(agg.StepStater).SetStepState([]uint32{0, 1}, state))
	// the last 1 leaves group 0 (3 → 2); a third 5 in group 1 changes
	// nothing; a retracted 7 that group 1 never held changes nothing
	require.Equal(t, []any{int64(2), int64(5), int64(5)},
		stepValues(t, r, []uint32{0, 1, 1}, []agg.Op{ret, add, ret}, int64(1), int64(5), int64(7)))
	// NULL is a value: its first copy is accumulated (isum ignores it)
	require.Equal(t, []any{int64(2), int64(2)}, stepValues(t, r, []uint32{0, 0}, []agg.Op{add, add}, nil, nil))
}
