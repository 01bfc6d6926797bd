package textconv

import (
	"encoding/base64"
	"fmt"
	"math"

	"github.com/tablerun/tablerun/core/types"
)

// ParseScalar parses the text of a value of scalar type t the way Flink's
// csv format converts a text node: Java number parsing of the trimmed
// text, Boolean.parseBoolean, ISO dates and times, timestamps in the given
// style, base64 for binary strings, BigDecimal fitted to the DECIMAL type
// (nil, a NULL, when it does not fit). Intervals are integers (months, or
// milliseconds). String types return the text as is.
func ParseScalar(b []byte, t types.Type, style TimestampStyle) (any, error) {
	switch t.Kind {
	case types.Boolean:
		return ParseBool(b), nil
	case types.TinyInt:
		v, err := ParseIntRange(b, math.MinInt8, math.MaxInt8)
		return int8(v), err
	case types.SmallInt:
		v, err := ParseIntRange(b, math.MinInt16, math.MaxInt16)
		return int16(v), err
	case types.Int, types.IntervalYearMonth:
		v, err := ParseIntRange(b, math.MinInt32, math.MaxInt32)
		return int32(v), err
	case types.BigInt, types.IntervalDayTime:
		v, ok := ParseInt64(b)
		if !ok {
			return nil, inputErr(b)
		}
		return v, nil
	case types.Float:
		f, err := ParseFloat(b, 32)
		return float32(f), err
	case types.Double:
		return ParseFloat(b, 64)
	case types.Decimal:
		n, ok, err := ParseDecimal(b, t.Precision, t.Scale)
		if err != nil || !ok {
			return nil, err
		}
		return n, nil
	case types.Char, types.VarChar:
		return string(b), nil
	case types.Binary, types.VarBinary:
		out, err := base64.StdEncoding.DecodeString(string(trim(b)))
		if err != nil {
			return nil, &ParseError{Msg: fmt.Sprintf("Unable to deserialize byte array: %v", err)}
		}
		return out, nil
	case types.Date:
		return ParseDate(b)
	case types.Time:
		if t.Precision > 3 {
			return nil, &ParseError{Msg: fmt.Sprintf("Csv does not support TIME type with precision: %d, it only supports precision 0 ~ 3.", t.Precision)}
		}
		return ParseTime(b, t.Precision)
	case types.Timestamp:
		return ParseTimestampOf(b, style, false, t)
	case types.TimestampLTZ:
		if style == SQL {
			// The csv format writes TIMESTAMP_LTZ with a trailing 'Z'.
			tb := trim(b)
			if n := len(tb); n > 0 && tb[n-1] == 'Z' {
				tb = tb[:n-1]
			}
			return ParseTimestampOf(tb, style, false, t)
		}
		return ParseTimestampOf(b, style, style != Lenient, t)
	case types.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("not supported yet: reading %s from text", t)
}
