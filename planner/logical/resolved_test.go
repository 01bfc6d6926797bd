package logical

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// TestCallDefinition: a call's carried definition wins over the registry;
// only calls without one (synthesised by the planner) are resolved by name.
func TestCallDefinition(t *testing.T) {
	reg := function.Builtins()
	own := &function.Definition{Name: "UPPER", Kind: function.Scalar}
	d, ok := (&Call{Name: "UPPER", Def: own}).Definition(reg)
	require.True(t, ok)
	require.Same(t, own, d)
	d, ok = (&Call{Name: "UPPER"}).Definition(reg)
	require.True(t, ok)
	require.NotSame(t, own, d)
	_, ok = (&Call{Name: "UPPER"}).Definition(nil)
	require.False(t, ok)
	d, ok = (&Call{Name: "UPPER", Def: own}).Definition(nil)
	require.True(t, ok)
	require.Same(t, own, d)
}

// TestEvalUsesCarriedDefinition: the reference evaluator runs the call's
// definition, not the one the registry holds under the same name.
func TestEvalUsesCarriedDefinition(t *testing.T) {
	def := &function.Definition{Name: "TWICE", Kind: function.Scalar, NullOnNull: true,
		Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
			return args[0].(int32) * 2, nil
		}}
	c := &Call{Name: "TWICE", Args: []Expr{&Literal{Value: int32(21), T: types.IntT}}, T: types.IntT, Def: def}
	v, err := Eval(nil, function.NewRegistry(), c, nil)
	require.NoError(t, err)
	require.Equal(t, int32(42), v)
}
