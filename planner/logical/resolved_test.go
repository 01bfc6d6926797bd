package logical

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// TestCallDefinition: a call answers with the definition it carries; a
// call without one is an internal error naming the function, both in
// Definition and when it is evaluated, even when a built-in has its name
// (no lookup by name behind it).
func TestCallDefinition(t *testing.T) {
	own := &function.Definition{Name: "UPPER", Kind: function.Scalar}
	d, err := (&Call{Name: "UPPER", Def: own}).Definition()
	require.NoError(t, err)
	require.Same(t, own, d)
	_, err = (&Call{Name: "NO_SUCH_FN"}).Definition()
	require.EqualError(t, err, "No match found for function signature NO_SUCH_FN (internal error: the call carries no resolved function definition)")
	_, err = Eval(nil, function.Builtins(), &Call{Name: "NO_SUCH_FN", Args: []Expr{&Literal{Value: "a", T: types.StringT}}, T: types.StringT}, nil)
	require.ErrorContains(t, err, "internal error")
	require.ErrorContains(t, err, "NO_SUCH_FN")
	_, err = (&Call{Name: "UPPER"}).Definition()
	require.EqualError(t, err, "No match found for function signature UPPER (internal error: the call carries no resolved function definition)")
}

// TestSynthesisedCallsCarryBuiltins: the handles the planner builds calls
// with are the definitions every session's registry holds under the same
// name, and And builds calls that evaluate.
func TestSynthesisedCallsCarryBuiltins(t *testing.T) {
	reg := function.Builtins()
	for _, d := range []*function.Definition{function.OpEquals, function.OpAnd, function.OpOr, function.OpIsNull,
		function.OpIsNotFalse, function.OpIn, function.OpGreater, function.OpGreaterEq, function.FnIf,
		function.OpMod, function.OpField, function.FnHashCode} {
		got, ok := reg.Lookup(d.Name)
		require.True(t, ok, d.Name)
		require.Same(t, got, d, d.Name)
	}
	b := types.BooleanT
	c := And(&Literal{Value: true, T: b}, &Literal{Value: false, T: b})
	require.Same(t, function.OpAnd, c.(*Call).Def)
	v, err := Eval(nil, nil, c, nil)
	require.NoError(t, err)
	require.Equal(t, false, v)
	// internal definitions are never folded and never evaluated
	require.True(t, TemporalJoinConditionDef.Nondeterministic)
	require.Nil(t, TemporalJoinConditionDef.Eval)
	_, err = Eval(nil, nil, NewCall(CurrentWatermarkDef, types.TimestampOf(3), &Literal{T: types.TimestampOf(3)}), nil)
	require.ErrorContains(t, err, "No match found for function signature CURRENT_WATERMARK")
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

// TestCheckResolved names the first call without a definition, however
// deep, and accepts an expression whose calls all carry one.
func TestCheckResolved(t *testing.T) {
	b := types.BooleanT
	x := &ColumnRef{Index: 0, T: b}
	require.NoError(t, CheckResolved(And(x, NewCall(function.OpIsNull, b, x))))
	bad := And(x, NewCall(function.OpOr, b, x, &Call{Name: "IS NULL", Args: []Expr{x}, T: b}))
	require.EqualError(t, CheckResolved(bad), "No match found for function signature IS NULL (internal error: the call carries no resolved function definition)")
}
