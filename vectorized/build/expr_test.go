package build

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// Plans whose expressions go through vectorized/expr.
func TestRunCompiledExpressions(t *testing.T) {
	env := &Env{Functions: function.Builtins(), Eval: &function.EvalContext{Loc: time.UTC, Now: time.Unix(0, 0)}}
	k := &logical.ColumnRef{Index: 0, Name: "k", T: types.BigIntT}
	one := &logical.Literal{Value: int64(1), T: types.BigIntT.WithNullable(false)}
	gt := &logical.Call{Name: ">", Def: builtinDef(">"), Args: []logical.Expr{k, one}, T: types.BooleanT}
	plus := &logical.Call{Name: "+", Def: builtinDef("+"), Args: []logical.Expr{k, one}, T: types.BigIntT}
	calc := &physical.Calc{Input: values(kvRows), Condition: gt,
		Projection: []logical.Expr{&logical.ColumnRef{Index: 1, T: types.StringT}, plus},
		Out:        types.Schema{{Name: "v", Type: types.StringT}, {Name: "k1", Type: types.BigIntT}}}
	got, err := collectRows(t, calc, env)
	require.NoError(t, err)
	require.Equal(t, [][]any{{"c", int64(4)}, {"b", int64(3)}}, got)

	// Extra join condition over left ++ right: l.v < r.v.
	lt := &logical.Call{Name: "<", Def: builtinDef("<"), Args: []logical.Expr{
		&logical.ColumnRef{Index: 1, T: types.StringT}, &logical.ColumnRef{Index: 3, T: types.StringT}}, T: types.BooleanT}
	join := &physical.HashJoin{Left: values(kvRows), Right: values(kvRows), Kind: logical.SemiJoin,
		LeftKeys: []int{0}, RightKeys: []int{0}, Extra: lt, Out: kvSchema}
	got, err = collectRows(t, join, env)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int64(1), "a"}}, got)
}

// NOT IN without an equality key runs as a nested-loop anti join whose
// comparison counts unknown as a match.
func TestRunNullAwareNestedLoop(t *testing.T) {
	env := &Env{Functions: function.Builtins(), Eval: &function.EvalContext{Loc: time.UTC, Now: time.Unix(0, 0)}}
	one := &logical.Literal{Value: int64(1), T: types.BigIntT.WithNullable(false)}
	// 1 NOT IN (SELECT k FROM right) for every left row.
	eq := &logical.Call{Name: "=", Def: builtinDef("="), Args: []logical.Expr{one, &logical.ColumnRef{Index: 2, T: types.BigIntT}}, T: types.BooleanT}
	tests := []struct {
		name  string
		right [][]any
		want  int
	}{
		{"no match", [][]any{{int64(2), "x"}}, 5},
		{"match", [][]any{{int64(1), "x"}}, 0},
		{"NULL on the right", [][]any{{int64(2), "x"}, {nil, "y"}}, 0},
		{"empty right", nil, 5},
	}
	for _, tc := range tests {
		plan := &physical.NestedLoopJoin{Left: values(kvRows), Right: values(tc.right), Kind: logical.AntiJoin, Cond: eq, NullAwareAnti: true, Out: kvSchema}
		got, err := collectRows(t, plan, env)
		require.NoError(t, err, tc.name)
		require.Len(t, got, tc.want, tc.name)
	}
}

// SELECT 1 + 1: a Calc over a one-row Values without columns.
func TestRunZeroColumnValues(t *testing.T) {
	env := &Env{Functions: function.Builtins(), Eval: &function.EvalContext{Loc: time.UTC, Now: time.Unix(0, 0)}}
	one := &logical.Literal{Value: int32(1), T: types.IntT.WithNullable(false)}
	plan := &physical.Calc{Input: &physical.Values{Rows: [][]any{{}}, Out: types.Schema{}},
		Projection: []logical.Expr{&logical.Call{Name: "+", Def: builtinDef("+"), Args: []logical.Expr{one, one}, T: types.IntT.WithNullable(false)}},
		Out:        types.Schema{{Name: "EXPR$0", Type: types.IntT.WithNullable(false)}}}
	got, err := collectRows(t, plan, env)
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(2)}}, got)
}

// builtinDef is the built-in definition a call of name carries.
func builtinDef(name string) *function.Definition {
	d, _ := function.Builtin(name)
	return d
}

// A plan with a call that carries no definition does not build: the
// builder's check names the function (no lookup by name behind it).
func TestBuildRejectsUnresolvedCall(t *testing.T) {
	env := &Env{Functions: function.Builtins(), Eval: &function.EvalContext{Loc: time.UTC, Now: time.Unix(0, 0)}}
	k := &logical.ColumnRef{Index: 0, Name: "k", T: types.BigIntT}
	one := &logical.Literal{Value: int64(1), T: types.BigIntT.WithNullable(false)}
	calc := &physical.Calc{Input: values(kvRows),
		Projection: []logical.Expr{&logical.Call{Name: "+", Args: []logical.Expr{k, one}, T: types.BigIntT}},
		Out:        types.Schema{{Name: "k1", Type: types.BigIntT}}}
	_, err := collectRows(t, calc, env)
	require.ErrorContains(t, err, "No match found for function signature + (internal error")
}
