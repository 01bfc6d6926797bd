package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TestCallCarriesDefinition: the compiler runs the definition the call
// carries (logical.Call.Def, set by the validator) and does not look the
// name up again: TWICE is in no registry.
func TestCallCarriesDefinition(t *testing.T) {
	def := &function.Definition{
		Name: "TWICE", Kind: function.Scalar, NullOnNull: true,
		Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
			return args[0].(int32) * 2, nil
		},
	}
	s := types.Schema{{Name: "x", Type: types.IntT}}
	rec := buildRec(t, s, [][]any{{int32(1)}, {nil}, {int32(-4)}})
	defer rec.Release()
	call := &logical.Call{Name: "TWICE", Args: []logical.Expr{&logical.ColumnRef{Index: 0, T: types.IntT}}, T: types.IntT, Def: def}
	ev, err := Compile(call, s, testReg, testCtx)
	require.NoError(t, err)
	out, err := ev.Eval(rec)
	require.NoError(t, err)
	defer out.Release()
	got := out.(*array.Int32)
	require.Equal(t, int32(2), got.Value(0))
	require.True(t, got.IsNull(1))
	require.Equal(t, int32(-8), got.Value(2))

	// The same call without its definition is not found by name.
	_, err = Compile(&logical.Call{Name: "TWICE", Args: call.Args, T: types.IntT}, s, testReg, testCtx)
	require.ErrorContains(t, err, "No match found")
}
