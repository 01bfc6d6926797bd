package function

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tablerun/tablerun/core/types"
)

// aggregateNames are the built-in aggregate functions the engine runs.
var aggregateNames = map[string]bool{
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true,
	"FIRST_VALUE": true, "LAST_VALUE": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "STDDEV": true,
	"VAR_POP": true, "VAR_SAMP": true, "VARIANCE": true, "LISTAGG": true,
	"ARRAY_AGG": true, "JSON_ARRAYAGG": true, "JSON_OBJECTAGG": true, // aggregates_collect.go
	"JSON_ARRAYAGG_NULL_ON_NULL": true, "JSON_OBJECTAGG_ABSENT_ON_NULL": true, "PERCENTILE": true,
}

// IsAggregate reports whether name is a built-in aggregate function.
func IsAggregate(name string) bool { return aggregateNames[strings.ToUpper(name)] }

// builtinAggregates holds the definitions of the built-in aggregates,
// built once on first use (after the package's init has filled
// aggregateDocs).
var builtinAggregates = sync.OnceValue(func() map[string]*Definition {
	out := make(map[string]*Definition, len(aggregateNames))
	for name := range aggregateNames {
		lo, hi := aggregateArity(name)
		out[name] = &Definition{Name: name, Kind: Aggregate, Doc: aggregateDocs[name], MinArgs: lo, MaxArgs: hi,
			AggResult: func(args []types.Type, grouped bool) (types.Type, error) {
				return aggregateResultType(name, args, grouped)
			}}
	}
	return out
})

// BuiltinAggregate returns the definition of the built-in aggregate
// function name (case-insensitive): the validator resolves an aggregate
// call with it and logical.AggCall carries it.
func BuiltinAggregate(name string) (*Definition, bool) {
	d, ok := builtinAggregates()[strings.ToUpper(name)]
	return d, ok
}

// AggregateResultType is the result type of a call of the aggregate d
// over args (Flink's rules, see the package function of the same name);
// it is the one place an aggregate's result type is computed: the
// validator and vectorized/agg.ResultType both read it.
func (d *Definition) AggregateResultType(args []types.Type, grouped bool) (types.Type, error) {
	if d.AggResult == nil {
		return types.Type{}, fmt.Errorf("No match found for function signature %s", d.Name)
	}
	return d.AggResult(args, grouped)
}

// AggregateResultType infers the result type of the built-in aggregate
// name (its definition's AggregateResultType) with Flink's rules. grouped is false for a global aggregate (no GROUP BY), where
// every aggregate but COUNT may see no rows and so is nullable.
//
//	COUNT(*) / COUNT(x)           BIGINT NOT NULL
//	SUM(TINYINT..BIGINT)          the same type (wraps on overflow)
//	SUM(FLOAT/DOUBLE)             the same type
//	SUM(DECIMAL(p, s))            DECIMAL(38, s)
//	AVG(TINYINT..BIGINT)          the same type (truncated)
//	AVG(FLOAT/DOUBLE)             the same type
//	AVG(DECIMAL(p, s))            DECIMAL(38, max(s, 6))
//	MIN/MAX(T)                    T
//	STDDEV_POP/STDDEV_SAMP/STDDEV/VAR_POP/VAR_SAMP/VARIANCE
//	                              as AVG, always nullable
//	LISTAGG(STRING[, STRING])     STRING (nullable)
func AggregateResultType(name string, args []types.Type, grouped bool) (types.Type, error) {
	d, ok := BuiltinAggregate(name)
	if !ok {
		return types.Type{}, fmt.Errorf("No match found for function signature %s", strings.ToUpper(name))
	}
	return d.AggregateResultType(args, grouped)
}

func aggregateResultType(name string, args []types.Type, grouped bool) (types.Type, error) {
	if name == "COUNT" {
		return types.BigIntT.WithNullable(false), nil
	}
	if name == "LISTAGG" {
		return listAggResultType(args)
	}
	if t, ok, err := collectAggResultType(name, args); ok { // aggregates_collect.go
		return t, err
	}
	if len(args) != 1 {
		return types.Type{}, fmt.Errorf("Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
	}
	a := args[0]
	// Aggregates other than COUNT are NULL on empty groups and when all
	// inputs are NULL.
	nullable := a.Nullable() || !grouped
	switch name {
	case "SUM", "AVG":
		switch {
		case a.IsInteger() || a.IsApprox():
			return a.WithNullable(nullable), nil
		case a.Kind == types.Decimal:
			s := a.Scale
			if name == "AVG" && s < 6 {
				s = 6
			}
			return types.DecimalOf(types.MaxDecimalPrecision, s).WithNullable(nullable), nil
		}
		return types.Type{}, CallError(name, args)
	case "MIN", "MAX":
		switch a.Kind {
		case types.Array, types.Map, types.Row, types.Null:
			return types.Type{}, CallError(name, args)
		}
		return a.WithNullable(nullable), nil
	case "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE":
		// Calcite's AVG_AGG_FUNCTION return type with Flink's type system,
		// as AVG; VAR_SAMP / STDDEV_SAMP of one row are NULL
		switch {
		case a.IsInteger() || a.IsApprox():
			return a.WithNullable(true), nil
		case a.Kind == types.Decimal:
			return types.DecimalOf(types.MaxDecimalPrecision, max(a.Scale, 6)).WithNullable(true), nil
		}
		return types.Type{}, CallError(name, args)
	case "FIRST_VALUE", "LAST_VALUE":
		// the first (last) non-NULL value; NULL when there is none
		switch a.Kind {
		case types.Array, types.Map, types.Row, types.Null:
			return types.Type{}, CallError(name, args)
		}
		return a.WithNullable(true), nil
	}
	return types.Type{}, fmt.Errorf("No match found for function signature %s", name)
}

// listAggResultType types LISTAGG(expr [, separator]): both character
// strings; the result is STRING, NULL for a group without non-NULL values.
func listAggResultType(args []types.Type) (types.Type, error) {
	if len(args) != 1 && len(args) != 2 {
		return types.Type{}, fmt.Errorf("Invalid number of arguments to function 'LISTAGG'. Was expecting 1 or 2 arguments")
	}
	for _, a := range args {
		if !a.IsString() && a.Kind != types.Null {
			return types.Type{}, CallError("LISTAGG", args)
		}
	}
	return types.StringT.WithNullable(true), nil
}
