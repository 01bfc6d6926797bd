package function

import (
	"fmt"
	"strings"

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

// AggregateResultType infers the result type of a built-in aggregate with
// Flink's rules. grouped is false for a global aggregate (no GROUP BY), where
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
	name = strings.ToUpper(name)
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
