package function

import (
	"github.com/tablerun/tablerun/core/types"
)

// CommonType returns Flink's least restrictive type of ts (LogicalTypeMerging
// in Flink, leastRestrictive in Calcite): the type every input converts to
// implicitly, as used for UNION columns, CASE branches, COALESCE, IN lists
// and comparison operands. The result is nullable if any input is nullable
// or of the NULL type. ok is false when the types have no common type
// (e.g. INT and STRING).
//
// The rules:
//
//   - NULL adopts the other types; all NULL gives NULL.
//   - TINYINT < SMALLINT < INT < BIGINT; an integer and a DECIMAL give a
//     DECIMAL wide enough for both (integers count as DECIMAL(3|5|10|19, 0));
//     DECIMALs merge to scale max(s) and precision max(p-s)+max(s), capped
//     at 38.
//   - any DOUBLE gives DOUBLE; FLOAT with integers gives FLOAT; FLOAT with a
//     DECIMAL gives DOUBLE.
//   - CHAR(n) with CHAR(n) stays CHAR(n); otherwise CHAR/VARCHAR give
//     VARCHAR(max length). BINARY/VARBINARY likewise.
//   - DATE with TIMESTAMP gives TIMESTAMP; TIMESTAMP(p) precision is the
//     maximum; TIMESTAMP with TIMESTAMP_LTZ gives TIMESTAMP_LTZ; TIME(p)
//     merges precision.
//   - intervals of the same family merge (DAY TO SECOND / YEAR TO MONTH).
//   - ARRAY, MAP and ROW merge element-wise (ROWs need equal arity; field
//     names come from the first ROW).
func CommonType(ts ...types.Type) (types.Type, bool) {
	if len(ts) == 0 {
		return types.Type{}, false
	}
	nullable := false
	var res *types.Type
	for _, t := range ts {
		if t.Nullable() {
			nullable = true
		}
		if t.Kind == types.Null {
			continue
		}
		if res == nil {
			c := t
			res = &c
			continue
		}
		m, ok := merge2(*res, t)
		if !ok {
			return types.Type{}, false
		}
		res = &m
	}
	if res == nil {
		return types.NullType, true
	}
	return res.WithNullable(nullable), true
}

// intDecimal returns the DECIMAL type that holds every value of an integer
// type.
func intDecimal(t types.Type) types.Type {
	switch t.Kind {
	case types.TinyInt:
		return types.DecimalOf(3, 0)
	case types.SmallInt:
		return types.DecimalOf(5, 0)
	case types.Int:
		return types.DecimalOf(10, 0)
	case types.BigInt:
		return types.DecimalOf(19, 0)
	}
	return t
}

// mergeDecimal merges two DECIMAL types: scale max(s), integer digits
// max(p-s), capped at 38 (the scale shrinks, down to 0, to keep the integer
// digits).
func mergeDecimal(a, b types.Type) types.Type {
	s := max(a.Scale, b.Scale)
	ip := max(a.Precision-a.Scale, b.Precision-b.Scale)
	p := ip + s
	if p > types.MaxDecimalPrecision {
		p = types.MaxDecimalPrecision
		s = max(0, min(s, p-ip))
	}
	return types.DecimalOf(p, s)
}

// merge2 merges two non-NULL types, ignoring the top-level nullability
// (CommonType sets it). Nested types keep their element nullability
// (nullable if either is).
func merge2(a, b types.Type) (types.Type, bool) {
	a = a.WithNullable(true)
	b = b.WithNullable(true)
	switch {
	case a.IsNumeric() && b.IsNumeric():
		return mergeNumeric(a, b), true
	case a.IsString() && b.IsString():
		if a.Kind == types.Char && b.Kind == types.Char && a.Precision == b.Precision {
			return a, true
		}
		return types.VarCharOf(max(a.Precision, b.Precision)), true
	case a.IsBinary() && b.IsBinary():
		if a.Kind == types.Binary && b.Kind == types.Binary && a.Precision == b.Precision {
			return a, true
		}
		return types.Type{Kind: types.VarBinary, Precision: max(a.Precision, b.Precision)}, true
	case a.Kind == types.Boolean && b.Kind == types.Boolean:
		return a, true
	case a.Kind == types.Date && b.Kind == types.Date:
		return a, true
	case a.Kind == types.Time && b.Kind == types.Time:
		return types.TimeOf(max(a.Precision, b.Precision)), true
	case isTimestampish(a) && isTimestampish(b):
		p := max(tsPrecision(a), tsPrecision(b))
		if a.Kind == types.TimestampLTZ || b.Kind == types.TimestampLTZ {
			return types.TimestampLTZOf(p), true
		}
		return types.TimestampOf(p), true
	case a.Kind == types.IntervalDayTime && b.Kind == types.IntervalDayTime:
		if a.Unit == b.Unit {
			a.Precision = max(a.Precision, b.Precision)
			a.Scale = max(a.Scale, b.Scale)
			return a, true
		}
		r := types.IntervalDT
		r.Precision = max(a.Precision, b.Precision)
		r.Scale = max(a.Scale, b.Scale, 2)
		return r, true
	case a.Kind == types.IntervalYearMonth && b.Kind == types.IntervalYearMonth:
		if a.Unit == b.Unit {
			a.Scale = max(a.Scale, b.Scale)
			return a, true
		}
		r := types.IntervalYM
		r.Scale = max(a.Scale, b.Scale, 2)
		return r, true
	case a.Kind == types.Array && b.Kind == types.Array:
		e, ok := mergeNested(*a.Elem, *b.Elem)
		if !ok {
			return types.Type{}, false
		}
		return types.ArrayOf(e), true
	case a.Kind == types.Map && b.Kind == types.Map:
		k, ok := mergeNested(*a.Elem, *b.Elem)
		if !ok {
			return types.Type{}, false
		}
		v, ok := mergeNested(*a.Value, *b.Value)
		if !ok {
			return types.Type{}, false
		}
		return types.MapOf(k, v), true
	case a.Kind == types.Row && b.Kind == types.Row:
		if len(a.Fields) != len(b.Fields) {
			return types.Type{}, false
		}
		fs := make([]types.Field, len(a.Fields))
		for i := range a.Fields {
			ft, ok := mergeNested(a.Fields[i].Type, b.Fields[i].Type)
			if !ok {
				return types.Type{}, false
			}
			fs[i] = types.Field{Name: a.Fields[i].Name, Type: ft, Description: a.Fields[i].Description}
		}
		return types.RowOf(fs...), true
	}
	return types.Type{}, false
}

// mergeNested merges element types, keeping NOT NULL only when both are.
func mergeNested(a, b types.Type) (types.Type, bool) {
	return CommonType(a, b)
}

func isTimestampish(t types.Type) bool {
	return t.Kind == types.Date || t.Kind == types.Timestamp || t.Kind == types.TimestampLTZ
}

func tsPrecision(t types.Type) int {
	if t.Kind == types.Date {
		return 0
	}
	return t.Precision
}

func mergeNumeric(a, b types.Type) types.Type {
	switch {
	case a.Kind == types.Double || b.Kind == types.Double:
		return types.DoubleT
	case a.Kind == types.Float || b.Kind == types.Float:
		if a.Kind == types.Decimal || b.Kind == types.Decimal {
			return types.DoubleT
		}
		return types.FloatT
	case a.Kind == types.Decimal || b.Kind == types.Decimal:
		return mergeDecimal(intDecimal(a), intDecimal(b))
	}
	if a.Kind >= b.Kind {
		return a
	}
	return b
}

// CanImplicitCast reports whether a value of type from converts to type to
// without an explicit CAST (Flink's LogicalTypeCasts.supportsImplicitCast):
// NULL to anything, numeric widening (integers → wider integers → DECIMAL →
// FLOAT → DOUBLE), CHAR → VARCHAR, BINARY → VARBINARY, DATE → TIMESTAMP,
// TIMESTAMP ↔ TIMESTAMP_LTZ, TIME/TIMESTAMP precision changes, intervals of
// the same family, and nested types element-wise. Nullability is not
// checked (NOT NULL constraints are enforced elsewhere).
func CanImplicitCast(from, to types.Type) bool {
	if from.Kind == types.Null {
		return true
	}
	switch {
	case from.IsNumeric() && to.IsNumeric():
		return numericRank(from) <= numericRank(to) || (from.IsInteger() && to.Kind == types.Decimal)
	case from.IsString() && to.IsString():
		return true
	case from.IsBinary() && to.IsBinary():
		return true
	case from.Kind == types.Boolean && to.Kind == types.Boolean:
		return true
	case from.Kind == types.Date && to.Kind == types.Date:
		return true
	case from.Kind == types.Time && to.Kind == types.Time:
		return true
	case isTimestampish(from) && (to.Kind == types.Timestamp || to.Kind == types.TimestampLTZ):
		return true
	case from.Kind == types.IntervalDayTime && to.Kind == types.IntervalDayTime,
		from.Kind == types.IntervalYearMonth && to.Kind == types.IntervalYearMonth:
		return true
	case from.Kind == types.Array && to.Kind == types.Array:
		return CanImplicitCast(*from.Elem, *to.Elem)
	case from.Kind == types.Map && to.Kind == types.Map:
		return CanImplicitCast(*from.Elem, *to.Elem) && CanImplicitCast(*from.Value, *to.Value)
	case from.Kind == types.Row && to.Kind == types.Row:
		if len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			if !CanImplicitCast(from.Fields[i].Type, to.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return false
}

// numericRank orders the numeric types for implicit widening.
func numericRank(t types.Type) int {
	switch t.Kind {
	case types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int:
		return 3
	case types.BigInt:
		return 4
	case types.Decimal:
		return 5
	case types.Float:
		return 6
	case types.Double:
		return 7
	}
	return 0
}

// CanCast reports whether CAST(x AS to) is legal for x of type from
// (Flink's LogicalTypeCasts.supportsExplicitCast, new cast behaviour):
// everything implicit, plus numeric ↔ numeric, numeric ↔ BOOLEAN,
// anything scalar → CHAR/VARCHAR, CHAR/VARCHAR → BOOLEAN, numeric,
// DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, BINARY/VARBINARY; BINARY ↔
// CHAR/VARCHAR; DATE/TIME ↔ TIMESTAMP(_LTZ); ARRAY, MAP, ROW → STRING and
// element-wise to their own kind; exact numerics → single-field intervals
// are not supported.
func CanCast(from, to types.Type) bool {
	if CanImplicitCast(from, to) {
		return true
	}
	switch {
	case to.IsString():
		// Every type prints.
		return true
	case from.IsNumeric() && to.IsNumeric():
		return true
	case from.IsNumeric() && to.Kind == types.Boolean, from.Kind == types.Boolean && to.IsNumeric():
		return true
	case from.IsString():
		switch {
		case to.Kind == types.Boolean, to.IsNumeric(), to.IsTemporal(), to.IsBinary():
			return true
		}
		return false
	case from.IsBinary() && to.IsBinary():
		return true
	case from.IsTemporal() && to.IsTemporal():
		// DATE ↔ TIME is not allowed.
		if (from.Kind == types.Date && to.Kind == types.Time) || (from.Kind == types.Time && to.Kind == types.Date) {
			return false
		}
		return true
	case from.IsInteger() && to.Kind == types.TimestampLTZ:
		return true
	case from.Kind == types.Array && to.Kind == types.Array:
		return CanCast(*from.Elem, *to.Elem)
	case from.Kind == types.Map && to.Kind == types.Map:
		return CanCast(*from.Elem, *to.Elem) && CanCast(*from.Value, *to.Value)
	case from.Kind == types.Row && to.Kind == types.Row:
		if len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			if !CanCast(from.Fields[i].Type, to.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return false
}

// ComparisonType returns the type the operands of one comparison are cast
// to when they are compared together, as Calcite's type coercion does for
// BETWEEN (all three operands at once) and binary comparisons: their
// common type, or, where strings meet date/time values, the date/time type
// (a string compares with a date/time by being cast to it). ok is false
// when the operands do not compare.
func ComparisonType(ts ...types.Type) (types.Type, bool) {
	if t, ok := CommonType(ts...); ok {
		return t, true
	}
	var temporal []types.Type
	nullable := false
	for _, t := range ts {
		nullable = nullable || t.Nullable()
		switch {
		case t.IsTemporal():
			temporal = append(temporal, t)
		case t.IsString(), t.Kind == types.Null:
		default:
			return types.Type{}, false
		}
	}
	if len(temporal) == 0 {
		return types.Type{}, false
	}
	t, ok := CommonType(temporal...)
	if !ok {
		return types.Type{}, false
	}
	return t.WithNullable(nullable), true
}
