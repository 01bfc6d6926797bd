package gateway

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

// logicalType is Flink's JSON form of a logical type
// (LogicalTypeJsonSerializer): the type root, nullability and the
// attributes of that root.
type logicalType struct {
	Type                string         `json:"type"`
	Nullable            bool           `json:"nullable"`
	Length              *int           `json:"length,omitempty"`
	Precision           *int           `json:"precision,omitempty"`
	Scale               *int           `json:"scale,omitempty"`
	FractionalPrecision *int           `json:"fractionalPrecision,omitempty"`
	Resolution          string         `json:"resolution,omitempty"`
	ElementType         *logicalType   `json:"elementType,omitempty"`
	KeyType             *logicalType   `json:"keyType,omitempty"`
	ValueType           *logicalType   `json:"valueType,omitempty"`
	Fields              []logicalField `json:"fields,omitempty"`
}

type logicalField struct {
	Name        string      `json:"name"`
	FieldType   logicalType `json:"fieldType"`
	Description *string     `json:"description,omitempty"`
}

// column is a result column as the gateway sends it (ColumnInfo).
type column struct {
	Name        string      `json:"name"`
	LogicalType logicalType `json:"logicalType"`
	Comment     *string     `json:"comment"`
}

func intp(i int) *int { return &i }

// toLogicalType maps a tablerun type to Flink's JSON form.
func toLogicalType(t types.Type) logicalType {
	lt := logicalType{Nullable: !t.NotNull}
	switch t.Kind {
	case types.Null:
		lt.Type = "NULL"
		lt.Nullable = true
	case types.Boolean:
		lt.Type = "BOOLEAN"
	case types.TinyInt:
		lt.Type = "TINYINT"
	case types.SmallInt:
		lt.Type = "SMALLINT"
	case types.Int:
		lt.Type = "INTEGER"
	case types.BigInt:
		lt.Type = "BIGINT"
	case types.Float:
		lt.Type = "FLOAT"
	case types.Double:
		lt.Type = "DOUBLE"
	case types.Decimal:
		lt.Type, lt.Precision, lt.Scale = "DECIMAL", intp(t.Precision), intp(t.Scale)
	case types.Char:
		lt.Type, lt.Length = "CHAR", intp(t.Precision)
	case types.VarChar:
		lt.Type, lt.Length = "VARCHAR", intp(t.Precision)
	case types.Binary:
		lt.Type, lt.Length = "BINARY", intp(t.Precision)
	case types.VarBinary:
		lt.Type, lt.Length = "VARBINARY", intp(t.Precision)
	case types.Date:
		lt.Type = "DATE"
	case types.Time:
		lt.Type, lt.Precision = "TIME_WITHOUT_TIME_ZONE", intp(t.Precision)
	case types.Timestamp:
		lt.Type, lt.Precision = "TIMESTAMP_WITHOUT_TIME_ZONE", intp(t.Precision)
	case types.TimestampLTZ:
		lt.Type, lt.Precision = "TIMESTAMP_WITH_LOCAL_TIME_ZONE", intp(t.Precision)
	case types.IntervalDayTime:
		lt.Type = "INTERVAL_DAY_TIME"
		lt.Precision, lt.FractionalPrecision = intp(t.Scale), intp(t.Precision)
		lt.Resolution = resolution(t.Unit, "DAY_TO_SECOND")
	case types.IntervalYearMonth:
		lt.Type = "INTERVAL_YEAR_MONTH"
		lt.Precision = intp(t.Scale)
		lt.Resolution = resolution(t.Unit, "YEAR_TO_MONTH")
	case types.Array:
		lt.Type = "ARRAY"
		e := toLogicalType(elem(t.Elem))
		lt.ElementType = &e
	case types.Map:
		lt.Type = "MAP"
		k, v := toLogicalType(elem(t.Elem)), toLogicalType(elem(t.Value))
		lt.KeyType, lt.ValueType = &k, &v
	case types.Row:
		lt.Type = "ROW"
		lt.Fields = make([]logicalField, len(t.Fields))
		for i, f := range t.Fields {
			lf := logicalField{Name: f.Name, FieldType: toLogicalType(f.Type)}
			if f.Description != "" {
				d := f.Description
				lf.Description = &d
			}
			lt.Fields[i] = lf
		}
	default:
		lt.Type = strings.ToUpper(t.String())
	}
	return lt
}

func elem(t *types.Type) types.Type {
	if t == nil {
		return types.NullType
	}
	return *t
}

// resolution spells an interval unit as Flink's DayTimeResolution /
// YearMonthResolution ("DAY TO SECOND" → "DAY_TO_SECOND").
func resolution(unit, def string) string {
	if unit == "" {
		return def
	}
	return strings.ReplaceAll(strings.ToUpper(unit), " ", "_")
}

func columnsOf(schema types.Schema) []column {
	out := make([]column, len(schema))
	for i, f := range schema {
		out[i] = column{Name: f.Name, LogicalType: toLogicalType(f.Type)}
	}
	return out
}

// appendJSON appends one value in the form of Flink's RowDataToJsonConverters
// (ISO-8601 timestamps, the gateway's settings): numbers for numeric types
// and intervals, DECIMAL without trailing zeros (Jackson normalizes them),
// ISO strings for DATE, TIME and TIMESTAMP (TIMESTAMP_LTZ in UTC with a
// 'Z'), base64 for binary strings, arrays for ARRAY, objects for ROW (by
// field name) and for MAP with character keys (a list of {"key", "value"}
// entries for other keys).
func appendJSON(b []byte, v any, t types.Type) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch t.Kind {
	case types.Boolean:
		if x, ok := v.(bool); ok {
			return strconv.AppendBool(b, x)
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.IntervalYearMonth, types.IntervalDayTime:
		switch x := v.(type) {
		case int8:
			return strconv.AppendInt(b, int64(x), 10)
		case int16:
			return strconv.AppendInt(b, int64(x), 10)
		case int32:
			return strconv.AppendInt(b, int64(x), 10)
		case int64:
			return strconv.AppendInt(b, x, 10)
		}
	case types.Float:
		if x, ok := v.(float32); ok {
			return appendFloat(b, float64(x), 32)
		}
	case types.Double:
		if x, ok := v.(float64); ok {
			return appendFloat(b, x, 64)
		}
	case types.Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return append(b, plainDecimal(types.DecimalString(n, t.Scale))...)
		}
	case types.Char, types.VarChar:
		if s, ok := v.(string); ok {
			return appendString(b, s)
		}
	case types.Binary, types.VarBinary:
		if x, ok := v.([]byte); ok {
			return appendString(b, base64.StdEncoding.EncodeToString(x))
		}
	case types.Date:
		if d, ok := v.(int32); ok {
			return appendString(b, time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02"))
		}
	case types.Time:
		if ms, ok := v.(int32); ok {
			t := time.UnixMilli(int64(ms)).UTC()
			layout := "15:04:05"
			if ms%1000 != 0 {
				layout = "15:04:05.000"
			}
			return appendString(b, t.Format(layout))
		}
	case types.Timestamp, types.TimestampLTZ:
		if x, ok := v.(int64); ok {
			var tm time.Time
			if t.Precision > 6 {
				tm = time.Unix(0, x).UTC()
			} else {
				tm = time.UnixMicro(x).UTC()
			}
			s := tm.Format("2006-01-02T15:04:05.999999999")
			if t.Kind == types.TimestampLTZ {
				s += "Z"
			}
			return appendString(b, s)
		}
	case types.Array:
		if xs, ok := v.([]any); ok {
			b = append(b, '[')
			for i, x := range xs {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSON(b, x, elem(t.Elem))
			}
			return append(b, ']')
		}
	case types.Row:
		if xs, ok := v.([]any); ok && len(xs) == len(t.Fields) {
			b = append(b, '{')
			for i, f := range t.Fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, f.Name)
				b = append(b, ':')
				b = appendJSON(b, xs[i], f.Type)
			}
			return append(b, '}')
		}
	case types.Map:
		if m, ok := v.(*types.MapValue); ok {
			kt, vt := elem(t.Elem), elem(t.Value)
			if kt.Kind == types.Char || kt.Kind == types.VarChar {
				b = append(b, '{')
				for i := range m.Keys {
					if i > 0 {
						b = append(b, ',')
					}
					k, _ := m.Keys[i].(string)
					if m.Keys[i] == nil {
						k = "null" // Flink's map-null-key literal
					}
					b = appendString(b, k)
					b = append(b, ':')
					b = appendJSON(b, m.Values[i], vt)
				}
				return append(b, '}')
			}
			b = append(b, '[')
			for i := range m.Keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"key":`...)
				b = appendJSON(b, m.Keys[i], kt)
				b = append(b, `,"value":`...)
				b = appendJSON(b, m.Values[i], vt)
				b = append(b, '}')
			}
			return append(b, ']')
		}
	}
	// a value whose Go form the type does not name: its text, never a
	// wrong number
	return appendString(b, types.FormatValue(v, t, time.UTC))
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// plainDecimal strips trailing fractional zeros ("1.50" → "1.5",
// "100.00" → "100"), as Jackson's node factory normalizes BigDecimals.
func plainDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

func appendString(b []byte, s string) []byte {
	q, _ := jsonMarshal(s)
	return append(b, q...)
}
