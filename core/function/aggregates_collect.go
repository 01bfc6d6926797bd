package function

import (
	"fmt"

	"github.com/tablerun/tablerun/core/types"
)

// collectAggResultType types the collecting aggregates; ok is false for
// other names.
//
//	ARRAY_AGG(T)                 ARRAY<T> (nullable: NULL without input rows)
//	JSON_ARRAYAGG(T)             STRING NOT NULL ('[]' without input rows)
//	JSON_OBJECTAGG(STRING, T)    STRING NOT NULL ('{}' without input rows)
//
// The ON NULL variants have their own names (as Flink's internal
// functions): JSON_ARRAYAGG_NULL_ON_NULL and JSON_OBJECTAGG_ABSENT_ON_NULL;
// JSON_ARRAYAGG is ABSENT ON NULL and JSON_OBJECTAGG NULL ON NULL.
func collectAggResultType(name string, args []types.Type) (types.Type, bool, error) {
	if name == "PERCENTILE" {
		t, err := percentileResultType(args)
		return t, true, err
	}
	switch name {
	case "JSON_ARRAYAGG_NULL_ON_NULL":
		name = "JSON_ARRAYAGG"
	case "JSON_OBJECTAGG_ABSENT_ON_NULL":
		name = "JSON_OBJECTAGG"
	}
	want := map[string]int{"ARRAY_AGG": 1, "JSON_ARRAYAGG": 1, "JSON_OBJECTAGG": 2}[name]
	if want == 0 {
		return types.Type{}, false, nil
	}
	if len(args) != want {
		return types.Type{}, true, fmt.Errorf("Invalid number of arguments to function '%s'. Was expecting %d arguments", name, want)
	}
	switch name {
	case "ARRAY_AGG":
		if args[0].Kind == types.Null {
			return types.Type{}, true, CallError(name, args)
		}
		return types.ArrayOf(args[0].WithNullable(true)).WithNullable(true), true, nil
	case "JSON_OBJECTAGG":
		if !args[0].IsString() {
			return types.Type{}, true, CallError(name, args)
		}
	}
	return types.StringT.WithNullable(false), true, nil
}

// AggregateArity returns how many arguments the built-in aggregate name
// takes (COUNT(*) counts as zero): the validator checks calls with it.
func AggregateArity(name string) (min, max int) {
	if d, ok := BuiltinAggregate(name); ok {
		return d.MinArgs, d.MaxArgs
	}
	return 1, 1
}

func aggregateArity(name string) (min, max int) {
	switch name {
	case "COUNT":
		return 0, 1
	case "LISTAGG":
		return 1, 2
	case "JSON_OBJECTAGG", "JSON_OBJECTAGG_ABSENT_ON_NULL":
		return 2, 2
	case "PERCENTILE":
		return 2, 3
	}
	return 1, 1
}

// percentileResultType types PERCENTILE(value, percentage [, frequency]):
// value numeric, percentage a numeric literal in [0, 1] or an ARRAY of
// them, frequency an integer. The result is DOUBLE, or ARRAY<DOUBLE> for an
// array of percentages; NULL without rows.
func percentileResultType(args []types.Type) (types.Type, error) {
	if len(args) < 2 || len(args) > 3 {
		return types.Type{}, fmt.Errorf("Invalid number of arguments to function 'PERCENTILE'. Was expecting 2 or 3 arguments")
	}
	if !args[0].IsNumeric() {
		return types.Type{}, CallError("PERCENTILE", args)
	}
	if len(args) == 3 && !args[2].IsInteger() {
		return types.Type{}, CallError("PERCENTILE", args)
	}
	p := args[1]
	switch {
	case p.IsNumeric():
		return types.DoubleT.WithNullable(true), nil
	case p.Kind == types.Array && elemOf(p).IsNumeric():
		return types.ArrayOf(types.DoubleT).WithNullable(true), nil
	}
	return types.Type{}, CallError("PERCENTILE", args)
}
