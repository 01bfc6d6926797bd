package core

import (
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

// Decimal is a DECIMAL(p, s) value as Collect returns it: exact, with its
// scale. The zero value is 0 with scale 0. Decimals compare with == when
// their scales are equal (DECIMAL(10, 2) 1.50 and 1.5 of DECIMAL(10, 1)
// differ); compare Rat values otherwise.
type Decimal struct {
	num              decimal128.Num
	precision, scale int32
}

// NewDecimal returns the decimal unscaled·10^-scale of the given
// precision, e.g. NewDecimal(4990, 10, 2) is 49.90.
func NewDecimal(unscaled int64, precision, scale int32) Decimal {
	return Decimal{num: decimal128.FromI64(unscaled), precision: precision, scale: scale}
}

// String returns the value with exactly Scale digits after the point, as
// Flink prints it ("49.90", "-0.05", "12").
func (d Decimal) String() string {
	return types.DecimalString(d.num, int(d.scale))
}

// Unscaled returns the integer the value is made of: the value is
// Unscaled·10^-Scale.
func (d Decimal) Unscaled() *big.Int { return d.num.BigInt() }

// Precision returns the type's number of digits.
func (d Decimal) Precision() int32 { return d.precision }

// Scale returns the number of digits after the point.
func (d Decimal) Scale() int32 { return d.scale }

// Rat returns the exact value as a rational number.
func (d Decimal) Rat() *big.Rat {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil)
	return new(big.Rat).SetFrac(d.Unscaled(), den)
}

// Float64 returns the nearest float64 (inexact for most decimals).
func (d Decimal) Float64() float64 {
	f, _ := d.Rat().Float64()
	return f
}

// collectValue converts a canonical value of type t (see package types) to the
// value Collect hands to Go code; see Collect for the mapping. loc is the
// session time zone TIMESTAMP_LTZ values are shown in.
func collectValue(v any, t types.Type, loc *time.Location) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case types.Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return Decimal{num: n, precision: int32(t.Precision), scale: int32(t.Scale)}
		}
	case types.Date:
		if d, ok := v.(int32); ok {
			return time.Unix(int64(d)*86400, 0).UTC()
		}
	case types.Time:
		if ms, ok := v.(int32); ok {
			return time.Duration(ms) * time.Millisecond
		}
	case types.Timestamp:
		if x, ok := v.(int64); ok {
			return types.TimestampToTime(x, t)
		}
	case types.TimestampLTZ:
		if x, ok := v.(int64); ok {
			return types.TimestampToTime(x, t).In(loc)
		}
	case types.IntervalDayTime:
		if ms, ok := v.(int64); ok {
			return time.Duration(ms) * time.Millisecond
		}
	case types.Array:
		if xs, ok := v.([]any); ok && t.Elem != nil {
			out := make([]any, len(xs))
			for i, x := range xs {
				out[i] = collectValue(x, *t.Elem, loc)
			}
			return out
		}
	case types.Row:
		if xs, ok := v.([]any); ok {
			out := make([]any, len(xs))
			for i, x := range xs {
				if i < len(t.Fields) {
					out[i] = collectValue(x, t.Fields[i].Type, loc)
				} else {
					out[i] = x
				}
			}
			return out
		}
	case types.Map:
		if m, ok := v.(*types.MapValue); ok && t.Elem != nil && t.Value != nil {
			out := &types.MapValue{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
			for i, k := range m.Keys {
				out.Keys[i] = collectValue(k, *t.Elem, loc)
			}
			for i, x := range m.Values {
				out.Values[i] = collectValue(x, *t.Value, loc)
			}
			return out
		}
	}
	return v
}

// collectRow converts one row of canonical values (see collectValue).
func collectRow(row []any, schema types.Schema, loc *time.Location) Row {
	out := make(Row, len(row))
	for i, v := range row {
		if i < len(schema) {
			out[i] = collectValue(v, schema[i].Type, loc)
		} else {
			out[i] = v
		}
	}
	return out
}
