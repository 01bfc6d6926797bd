package udf

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Map is a script mapping (a Python dict, a JavaScript Map or plain
// object) converted to Go: parallel keys and values in iteration order.
type Map struct {
	Keys   []any
	Values []any
}

// Lang describes how a runtime names the plain Go values its script values
// convert to, for "returned str for INT result" messages.
type Lang struct {
	// Name is "Python" or "JavaScript".
	Name string
	// TypeName names the script type a plain value came from.
	TypeName func(v any) string
	// LooseInts accepts integral floats for integer results (JavaScript
	// numbers are doubles).
	LooseInts bool
}

// Plain script results are converted by the runtimes into these Go values
// before Coerce checks them against the declared type: nil, bool, int64,
// *big.Int (integers beyond int64), float64, string, []byte, []any
// (lists, tuples, arrays), *Map, time.Time (JavaScript Date).

// Coerce converts a plain script result to the canonical Go value of t,
// or returns an error such as "returned str for INT result".
func Coerce(ctx *function.EvalContext, lang *Lang, v any, t types.Type) (any, error) {
	if v == nil {
		if t.NotNull {
			return nil, fmt.Errorf("returned %s for %s result", lang.TypeName(nil), t)
		}
		return nil, nil
	}
	bad := func() error {
		return fmt.Errorf("returned %s for %s result", lang.TypeName(v), t.SummaryString())
	}
	switch t.Kind {
	case types.Null:
		return nil, nil
	case types.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
		case *big.Int:
			return nil, fmt.Errorf("returned int %s out of range for %s result", x, t.SummaryString())
		case float64:
			if !lang.LooseInts || x != math.Trunc(x) || math.IsInf(x, 0) {
				return nil, bad()
			}
			if x < -9.223372036854775808e18 || x >= 9.223372036854775808e18 {
				return nil, fmt.Errorf("returned %v out of range for %s result", x, t.SummaryString())
			}
			i = int64(x)
		default:
			return nil, bad()
		}
		return intOf(i, t)
	case types.Float:
		switch x := v.(type) {
		case float64:
			return float32(x), nil
		case int64:
			return float32(x), nil
		case *big.Int:
			f, _ := new(big.Float).SetInt(x).Float32()
			return f, nil
		}
	case types.Double:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case *big.Int:
			f, _ := new(big.Float).SetInt(x).Float64()
			return f, nil
		}
	case types.Decimal:
		var (
			d   decimal128.Num
			err error
		)
		switch x := v.(type) {
		case int64:
			d, err = decimal128.FromString(fmt.Sprint(x), int32(t.Precision), int32(t.Scale))
		case *big.Int:
			d, err = decimal128.FromString(x.String(), int32(t.Precision), int32(t.Scale))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("returned %v for %s result", x, t.SummaryString())
			}
			d, err = decimal128.FromFloat64(x, int32(t.Precision), int32(t.Scale))
		case string:
			d, err = decimal128.FromString(x, int32(t.Precision), int32(t.Scale))
		default:
			return nil, bad()
		}
		if err != nil || !d.FitsInPrecision(int32(t.Precision)) {
			return nil, fmt.Errorf("returned %s %v that does not fit %s", lang.TypeName(v), v, t.SummaryString())
		}
		return d, nil
	case types.Char, types.VarChar:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case types.Binary, types.VarBinary:
		if b, ok := v.([]byte); ok {
			return b, nil
		}
	case types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		return coerceTemporal(ctx, lang, v, t, bad)
	case types.IntervalDayTime:
		if i, ok := v.(int64); ok {
			return i, nil
		}
		if f, ok := v.(float64); ok && lang.LooseInts && f == math.Trunc(f) {
			return int64(f), nil
		}
	case types.IntervalYearMonth:
		if i, ok := v.(int64); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return int32(i), nil
		}
		if f, ok := v.(float64); ok && lang.LooseInts && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
			return int32(f), nil
		}
	case types.Array:
		items, ok := v.([]any)
		if !ok {
			return nil, bad()
		}
		out := make([]any, len(items))
		for i, it := range items {
			c, err := Coerce(ctx, lang, it, *t.Elem)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case types.Map:
		return coerceMap(ctx, lang, v, t, bad)
	case types.Row:
		return coerceRow(ctx, lang, v, t, bad)
	}
	return nil, bad()
}

func intOf(i int64, t types.Type) (any, error) {
	switch t.Kind {
	case types.TinyInt:
		if i >= math.MinInt8 && i <= math.MaxInt8 {
			return int8(i), nil
		}
	case types.SmallInt:
		if i >= math.MinInt16 && i <= math.MaxInt16 {
			return int16(i), nil
		}
	case types.Int:
		if i >= math.MinInt32 && i <= math.MaxInt32 {
			return int32(i), nil
		}
	case types.BigInt:
		return i, nil
	}
	return nil, fmt.Errorf("returned int %d out of range for %s result", i, t.SummaryString())
}

func coerceTemporal(ctx *function.EvalContext, lang *Lang, v any, t types.Type, bad func() error) (any, error) {
	switch x := v.(type) {
	case string:
		out, err := function.CastValue(ctx, x, types.StringT, t)
		if err != nil {
			return nil, fmt.Errorf("returned str '%s' that is not a valid %s: %w", x, t.SummaryString(), err)
		}
		return out, nil
	case time.Time:
		switch t.Kind {
		case types.Date:
			u := x.UTC()
			d := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
			return int32(d.Unix() / 86400), nil
		case types.Time:
			u := x.UTC()
			return int32(((u.Hour()*60+u.Minute())*60+u.Second())*1000 + u.Nanosecond()/1e6), nil
		case types.Timestamp, types.TimestampLTZ:
			// A JavaScript Date is an instant; for TIMESTAMP its UTC wall
			// clock is the value (the inverse of the input mapping); micros,
			// or nanos for precision 7..9.
			return types.TimestampFromTime(x, t)
		}
	case int64:
		switch t.Kind {
		case types.Date:
			if x >= math.MinInt32 && x <= math.MaxInt32 {
				return int32(x), nil
			}
		case types.Time:
			if x >= 0 && x < 86400000 {
				return int32(x), nil
			}
		}
	}
	return nil, bad()
}

func coerceMap(ctx *function.EvalContext, lang *Lang, v any, t types.Type, bad func() error) (any, error) {
	var keys, vals []any
	switch x := v.(type) {
	case *Map:
		keys, vals = x.Keys, x.Values
	case []any:
		// A list of (key, value) pairs.
		for i, it := range x {
			p, ok := it.([]any)
			if !ok || len(p) != 2 {
				return nil, fmt.Errorf("returned a list whose item %d is not a (key, value) pair for %s result", i, t.SummaryString())
			}
			keys = append(keys, p[0])
			vals = append(vals, p[1])
		}
	default:
		return nil, bad()
	}
	out := &types.MapValue{Keys: make([]any, len(keys)), Values: make([]any, len(vals))}
	for i := range keys {
		k, err := Coerce(ctx, lang, keys[i], *t.Elem)
		if err == nil {
			out.Keys[i] = k
			out.Values[i], err = Coerce(ctx, lang, vals[i], *t.Value)
		}
		if err != nil {
			return nil, fmt.Errorf("map entry %d: %w", i, err)
		}
	}
	return out, nil
}

func coerceRow(ctx *function.EvalContext, lang *Lang, v any, t types.Type, bad func() error) (any, error) {
	out := make([]any, len(t.Fields))
	switch x := v.(type) {
	case []any:
		if len(x) != len(t.Fields) {
			return nil, fmt.Errorf("returned %d values for %s result with %d fields", len(x), t.SummaryString(), len(t.Fields))
		}
		for i, f := range t.Fields {
			c, err := Coerce(ctx, lang, x[i], f.Type)
			if err != nil {
				return nil, fmt.Errorf("field '%s': %w", f.Name, err)
			}
			out[i] = c
		}
	case *Map:
		for i, f := range t.Fields {
			for j, k := range x.Keys {
				if s, ok := k.(string); ok && s == f.Name {
					c, err := Coerce(ctx, lang, x.Values[j], f.Type)
					if err != nil {
						return nil, fmt.Errorf("field '%s': %w", f.Name, err)
					}
					out[i] = c
					break
				}
			}
		}
	default:
		return nil, bad()
	}
	return out, nil
}

// TemporalText renders a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ value as
// the script-side string ("2024-01-31", "12:30:00", "2024-01-31
// 12:30:00.123", LTZ in the session zone), i.e. CAST(v AS STRING).
func TemporalText(v any, t types.Type, loc *time.Location) string {
	return types.FormatValue(v, t, loc)
}

// DecimalFloat returns a DECIMAL value as a float64.
func DecimalFloat(v any, t types.Type) float64 {
	if d, ok := v.(decimal128.Num); ok {
		return d.ToFloat64(int32(t.Scale))
	}
	return 0
}

// Infer returns the InferFunc of a script function: the argument count
// must match and each argument must be implicitly castable to the declared
// parameter type; the arguments are then cast to the declared types.
func Infer(s Spec) function.InferFunc {
	params := s.ParamTypes()
	ret := s.Returns
	return func(args []types.Type) (types.Type, []types.Type, error) {
		if len(args) != len(params) {
			return types.Type{}, nil, function.CallError(s.Name, args)
		}
		for i, a := range args {
			if a.Kind == types.Null || a.EqualIgnoringNull(params[i]) {
				continue
			}
			if !function.CanImplicitCast(a, params[i]) {
				return types.Type{}, nil, function.CallError(s.Name, args)
			}
		}
		return ret, append([]types.Type(nil), params...), nil
	}
}
