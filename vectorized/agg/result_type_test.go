package agg

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// typeClasses are the argument type classes of the result-type check: one
// or two members of every kind of Flink type.
var typeClasses = []types.Type{
	types.TinyIntT, types.SmallIntT, types.IntT, types.BigIntT, types.FloatT, types.DoubleT,
	types.DecimalOf(10, 2), types.DecimalOf(38, 18), types.BooleanT,
	types.CharOf(3), types.VarCharOf(10), types.StringT, types.BytesT,
	types.DateT, types.TimeOf(3), types.TimestampOf(3), types.TimestampOf(9), types.TimestampLTZOf(3),
	types.IntervalDT, types.IntervalYM,
	types.ArrayOf(types.IntT), types.ArrayOf(types.DoubleT), types.MapOf(types.StringT, types.IntT),
	types.RowOf(types.Field{Name: "a", Type: types.IntT}), types.NullType,
}

// TestResultTypeIsTheDefinitions: for every built-in aggregate over every
// combination of argument type classes its arity allows, vectorized/agg's
// ResultType and the definition the validator types the call with never
// differ: a call the definition rejects is rejected, a call both accept
// has the definition's type in Arrow, and a call only the definition
// accepts is an ErrNotSupported gap of the accumulators.
func TestResultTypeIsTheDefinitions(t *testing.T) {
	var agree, rejected int
	var gaps []string
	for _, name := range function.AggregateNames() {
		def, ok := function.BuiltinAggregate(name)
		require.True(t, ok, name)
		for n := def.MinArgs; n <= def.MaxArgs; n++ {
			forEachArgs(n, func(args []types.Type) {
				at := make([]arrow.DataType, n)
				for i, a := range args {
					var err error
					if at[i], err = types.ArrowType(a); err != nil {
						return // no Arrow form (NULL): nothing reaches the accumulators
					}
				}
				vname := name
				if name == FuncCount && n == 0 {
					vname = FuncCountStar
				}
				call := fmt.Sprintf("%s%v", name, args)
				want, errS := def.AggregateResultType(args, true)
				got, errA := ResultType(vname, at)
				gotOf, errOf := ResultTypeOf(def, at) // the definition's path: the same answer
				require.Equal(t, errA == nil, errOf == nil, "%s: %v / %v", call, errA, errOf)
				if errA == nil {
					require.True(t, arrow.TypeEqual(got, gotOf), "%s: %s / %s", call, got, gotOf)
				}
				switch {
				case errS != nil:
					require.Error(t, errA, "%s: the definition rejects it (%v), ResultType gave %v", call, errS, got)
					rejected++
				case errA != nil:
					require.True(t, errors.Is(errA, ErrNotSupported), "%s: %v", call, errA)
					gaps = append(gaps, call)
				default:
					wat, err := types.ArrowType(want)
					require.NoError(t, err, call)
					require.True(t, arrow.TypeEqual(wat, got), "%s: definition %s (%s), ResultType %s", call, want, wat, got)
					agree++
				}
			})
		}
	}
	t.Logf("%d calls agree, %d rejected by both, %d accumulator gaps", agree, rejected, len(gaps))
	require.Positive(t, agree)
	// the accumulators' known gaps: COUNT of nested values (no key codec),
	// a NULL-typed argument of the string aggregates, MIN/MAX of a
	// year-month interval
	require.ElementsMatch(t, []string{
		"COUNT[ARRAY<INT>]", "COUNT[ARRAY<DOUBLE>]", "COUNT[MAP<STRING, INT>]", "COUNT[ROW<`a` INT>]",
		"JSON_ARRAYAGG[NULL]", "JSON_ARRAYAGG_NULL_ON_NULL[NULL]",
		"JSON_OBJECTAGG[CHAR(3) NULL]", "JSON_OBJECTAGG[VARCHAR(10) NULL]", "JSON_OBJECTAGG[STRING NULL]",
		"JSON_OBJECTAGG_ABSENT_ON_NULL[CHAR(3) NULL]", "JSON_OBJECTAGG_ABSENT_ON_NULL[VARCHAR(10) NULL]", "JSON_OBJECTAGG_ABSENT_ON_NULL[STRING NULL]",
		"LISTAGG[NULL]", "LISTAGG[CHAR(3) NULL]", "LISTAGG[VARCHAR(10) NULL]", "LISTAGG[STRING NULL]",
		"LISTAGG[NULL CHAR(3)]", "LISTAGG[NULL VARCHAR(10)]", "LISTAGG[NULL STRING]", "LISTAGG[NULL NULL]",
		"MAX[INTERVAL YEAR(2) TO MONTH]", "MIN[INTERVAL YEAR(2) TO MONTH]",
	}, gaps)
}

// forEachArgs calls f with every n-tuple of typeClasses.
func forEachArgs(n int, f func([]types.Type)) {
	args := make([]types.Type, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			f(append([]types.Type(nil), args...))
			return
		}
		for _, c := range typeClasses {
			args[i] = c
			rec(i + 1)
		}
	}
	rec(0)
}

// TestBuiltinAggregateDefinitions: every built-in aggregate has a
// definition with its arity, and the package functions read it.
func TestBuiltinAggregateDefinitions(t *testing.T) {
	for _, name := range function.AggregateNames() {
		def, ok := function.BuiltinAggregate(name)
		require.True(t, ok, name)
		require.Equal(t, function.Aggregate, def.Kind, name)
		lo, hi := function.AggregateArity(name)
		require.Equal(t, [2]int{def.MinArgs, def.MaxArgs}, [2]int{lo, hi}, name)
	}
	require.Same(t, function.AggCount, func() *function.Definition { d, _ := function.BuiltinAggregate("count"); return d }())
}

// TestFactoriesOfDefinitions: the accumulator and stepper factories take
// an AggCall's definition as well as a name (COUNT without arguments is
// COUNT(*)).
func TestFactoriesOfDefinitions(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	s, err := NewStepperOf(function.AggCount, nil, i64, false, true)
	require.NoError(t, err)
	require.IsType(t, &countStep{}, s)
	_, err = NewStepperOf(function.AggSum, []arrow.DataType{arrow.BinaryTypes.String}, nil, false, false)
	require.ErrorIs(t, err, ErrNotSupported)
	acc, err := NewAccumulatorOf(function.AggCount, nil, nil, false)
	require.NoError(t, err)
	require.Equal(t, &countAcc{star: true}, acc)
	acc, err = NewAccumulatorOf(function.AggSum, []arrow.DataType{i64}, i64, false)
	require.NoError(t, err)
	want, err := NewAccumulator(FuncSum, []arrow.DataType{i64}, i64, false)
	require.NoError(t, err)
	require.IsType(t, want, acc)
	_, err = NewAccumulatorOf(function.AggCount, nil, nil, true)
	require.ErrorIs(t, err, ErrNotSupported) // COUNT(DISTINCT *)
}
