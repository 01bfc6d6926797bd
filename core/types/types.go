// Package types holds Flink's logical SQL types, their printed names and
// their mapping to Apache Arrow types.
//
// A Type is a small value. Nested types (ARRAY, MAP, ROW) point to their
// element types. Types are immutable once built: functions that derive a
// type return a new value.
//
// Every SQL value has one canonical Go representation, used by constants,
// the row-at-a-time reference evaluator, connectors and printers:
//
//	BOOLEAN                 bool
//	TINYINT SMALLINT        int8, int16
//	INT BIGINT              int32, int64
//	FLOAT DOUBLE            float32, float64
//	DECIMAL(p,s)            decimal128.Num (unscaled; the scale is the type's)
//	CHAR VARCHAR STRING     string
//	BINARY VARBINARY BYTES  []byte
//	DATE                    int32 days since 1970-01-01
//	TIME(p)                 int32 milliseconds of the day
//	TIMESTAMP(p)            int64 microseconds (p ≤ 6) or nanoseconds (p 7..9) since 1970-01-01T00:00 (wall clock, no zone)
//	TIMESTAMP_LTZ(p)        int64 microseconds (p ≤ 6) or nanoseconds (p 7..9) since the epoch (an instant, UTC)
//	INTERVAL DAY TO SECOND  int64 milliseconds
//	INTERVAL YEAR TO MONTH  int32 months
//	ARRAY<T>                []any
//	MAP<K,V>                *MapValue
//	ROW<…>                  []any
//	NULL (any type)         nil
package types

import (
	"fmt"
	"strings"
)

// Kind is the root of a logical type.
type Kind uint8

// The logical type kinds, following Flink's LogicalTypeRoot.
const (
	Null Kind = iota
	Boolean
	TinyInt
	SmallInt
	Int
	BigInt
	Float
	Double
	Decimal
	Char
	VarChar
	Binary
	VarBinary
	Date
	Time
	Timestamp
	TimestampLTZ
	IntervalDayTime
	IntervalYearMonth
	Array
	Map
	Row
)

// MaxLength is the length of STRING (VARCHAR(2147483647)) and BYTES.
const MaxLength = 2147483647

// MaxDecimalPrecision is Flink's maximum DECIMAL precision.
const MaxDecimalPrecision = 38

// Type is a Flink logical type.
type Type struct {
	Kind Kind
	// NotNull is true for types declared NOT NULL. The zero value is nullable,
	// as in SQL.
	NotNull bool
	// Precision is the DECIMAL precision, the CHAR/VARCHAR/BINARY/VARBINARY
	// length, or the fractional-second precision of TIME/TIMESTAMP/
	// TIMESTAMP_LTZ and of the seconds of a day-time interval.
	Precision int
	// Scale is the DECIMAL scale. For intervals it is the leading field's
	// precision (DAY(p) / YEAR(p)).
	Scale int
	// Unit is the interval resolution (for example "DAY TO SECOND", "SECOND",
	// "YEAR TO MONTH"); empty for other kinds.
	Unit string
	// Elem is the element type of ARRAY and the key type of MAP.
	Elem *Type
	// Value is the value type of MAP.
	Value *Type
	// Fields are the fields of ROW.
	Fields []Field
}

// Field is a named field of a ROW type or a column of a schema.
type Field struct {
	Name        string
	Type        Type
	Description string
}

// Constructors for the common types (all nullable).
var (
	NullType   = Type{Kind: Null}
	BooleanT   = Type{Kind: Boolean}
	TinyIntT   = Type{Kind: TinyInt}
	SmallIntT  = Type{Kind: SmallInt}
	IntT       = Type{Kind: Int}
	BigIntT    = Type{Kind: BigInt}
	FloatT     = Type{Kind: Float}
	DoubleT    = Type{Kind: Double}
	StringT    = Type{Kind: VarChar, Precision: MaxLength}
	BytesT     = Type{Kind: VarBinary, Precision: MaxLength}
	DateT      = Type{Kind: Date}
	IntervalDT = Type{Kind: IntervalDayTime, Precision: 3, Scale: 2, Unit: "DAY TO SECOND"}
	IntervalYM = Type{Kind: IntervalYearMonth, Scale: 2, Unit: "YEAR TO MONTH"}
)

// DecimalOf returns DECIMAL(p, s).
func DecimalOf(p, s int) Type { return Type{Kind: Decimal, Precision: p, Scale: s} }

// VarCharOf returns VARCHAR(n).
func VarCharOf(n int) Type { return Type{Kind: VarChar, Precision: n} }

// CharOf returns CHAR(n).
func CharOf(n int) Type { return Type{Kind: Char, Precision: n} }

// TimestampOf returns TIMESTAMP(p).
func TimestampOf(p int) Type { return Type{Kind: Timestamp, Precision: p} }

// TimestampLTZOf returns TIMESTAMP_LTZ(p).
func TimestampLTZOf(p int) Type { return Type{Kind: TimestampLTZ, Precision: p} }

// TimeOf returns TIME(p).
func TimeOf(p int) Type { return Type{Kind: Time, Precision: p} }

// ArrayOf returns ARRAY<elem>.
func ArrayOf(elem Type) Type { return Type{Kind: Array, Elem: &elem} }

// MapOf returns MAP<k, v>.
func MapOf(k, v Type) Type { return Type{Kind: Map, Elem: &k, Value: &v} }

// RowOf returns ROW<fields>.
func RowOf(fields ...Field) Type { return Type{Kind: Row, Fields: fields} }

// WithNullable returns t with its nullability set.
func (t Type) WithNullable(nullable bool) Type {
	t.NotNull = !nullable
	return t
}

// Nullable reports whether the type admits NULL.
func (t Type) Nullable() bool { return !t.NotNull }

// IsInteger reports TINYINT, SMALLINT, INT or BIGINT.
func (t Type) IsInteger() bool {
	return t.Kind >= TinyInt && t.Kind <= BigInt
}

// IsApprox reports FLOAT or DOUBLE.
func (t Type) IsApprox() bool { return t.Kind == Float || t.Kind == Double }

// IsNumeric reports the exact and approximate numeric types.
func (t Type) IsNumeric() bool { return t.IsInteger() || t.IsApprox() || t.Kind == Decimal }

// IsString reports CHAR or VARCHAR.
func (t Type) IsString() bool { return t.Kind == Char || t.Kind == VarChar }

// IsBinary reports BINARY or VARBINARY.
func (t Type) IsBinary() bool { return t.Kind == Binary || t.Kind == VarBinary }

// IsTemporal reports DATE, TIME, TIMESTAMP and TIMESTAMP_LTZ.
func (t Type) IsTemporal() bool {
	return t.Kind == Date || t.Kind == Time || t.Kind == Timestamp || t.Kind == TimestampLTZ
}

// IsInterval reports the two interval kinds.
func (t Type) IsInterval() bool { return t.Kind == IntervalDayTime || t.Kind == IntervalYearMonth }

// Equal reports whether two types are identical, nullability included.
func (t Type) Equal(o Type) bool {
	if t.Kind != o.Kind || t.NotNull != o.NotNull || t.Precision != o.Precision || t.Scale != o.Scale || t.Unit != o.Unit {
		return false
	}
	if (t.Elem == nil) != (o.Elem == nil) || (t.Value == nil) != (o.Value == nil) || len(t.Fields) != len(o.Fields) {
		return false
	}
	if t.Elem != nil && !t.Elem.Equal(*o.Elem) {
		return false
	}
	if t.Value != nil && !t.Value.Equal(*o.Value) {
		return false
	}
	for i := range t.Fields {
		if t.Fields[i].Name != o.Fields[i].Name || !t.Fields[i].Type.Equal(o.Fields[i].Type) {
			return false
		}
	}
	return true
}

// EqualIgnoringNull reports whether two types are identical apart from the
// top-level nullability.
func (t Type) EqualIgnoringNull(o Type) bool {
	return t.WithNullable(true).Equal(o.WithNullable(true))
}

// String prints the type as Flink's LogicalType.asSummaryString does,
// including NOT NULL (for example "INT NOT NULL", "VARCHAR(10)", "STRING",
// "DECIMAL(10, 2)", "TIMESTAMP(3)", "ARRAY<INT>", "ROW<`a` INT, `b` STRING>").
func (t Type) String() string {
	s := t.base()
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}

// SummaryString is String without the top-level NOT NULL, as DESCRIBE prints
// types.
func (t Type) SummaryString() string { return t.base() }

func (t Type) base() string {
	switch t.Kind {
	case Null:
		return "NULL"
	case Boolean:
		return "BOOLEAN"
	case TinyInt:
		return "TINYINT"
	case SmallInt:
		return "SMALLINT"
	case Int:
		return "INT"
	case BigInt:
		return "BIGINT"
	case Float:
		return "FLOAT"
	case Double:
		return "DOUBLE"
	case Decimal:
		return fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case Char:
		return fmt.Sprintf("CHAR(%d)", t.Precision)
	case VarChar:
		if t.Precision == MaxLength {
			return "STRING"
		}
		return fmt.Sprintf("VARCHAR(%d)", t.Precision)
	case Binary:
		return fmt.Sprintf("BINARY(%d)", t.Precision)
	case VarBinary:
		if t.Precision == MaxLength {
			return "BYTES"
		}
		return fmt.Sprintf("VARBINARY(%d)", t.Precision)
	case Date:
		return "DATE"
	case Time:
		return fmt.Sprintf("TIME(%d)", t.Precision)
	case Timestamp:
		return fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case TimestampLTZ:
		return fmt.Sprintf("TIMESTAMP_LTZ(%d)", t.Precision)
	case IntervalDayTime:
		return intervalString(t)
	case IntervalYearMonth:
		return intervalString(t)
	case Array:
		return "ARRAY<" + t.Elem.String() + ">"
	case Map:
		return "MAP<" + t.Elem.String() + ", " + t.Value.String() + ">"
	case Row:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = "`" + strings.ReplaceAll(f.Name, "`", "``") + "` " + f.Type.String()
			if f.Description != "" {
				parts[i] += " '" + strings.ReplaceAll(f.Description, "'", "''") + "'"
			}
		}
		return "ROW<" + strings.Join(parts, ", ") + ">"
	}
	return fmt.Sprintf("UNKNOWN(%d)", t.Kind)
}

// intervalString prints intervals as Flink does, e.g.
// "INTERVAL DAY(2) TO SECOND(3)", "INTERVAL SECOND(3)", "INTERVAL YEAR(2) TO MONTH".
func intervalString(t Type) string {
	unit := t.Unit
	if unit == "" {
		if t.Kind == IntervalDayTime {
			unit = "DAY TO SECOND"
		} else {
			unit = "YEAR TO MONTH"
		}
	}
	parts := strings.Split(unit, " TO ")
	lead := parts[0]
	var b strings.Builder
	b.WriteString("INTERVAL ")
	b.WriteString(lead)
	if lead != "MONTH" && lead != "HOUR" && lead != "MINUTE" {
		if lead == "SECOND" {
			fmt.Fprintf(&b, "(%d)", t.Precision)
		} else {
			fmt.Fprintf(&b, "(%d)", t.Scale)
		}
	}
	if len(parts) == 2 {
		b.WriteString(" TO ")
		b.WriteString(parts[1])
		if parts[1] == "SECOND" {
			fmt.Fprintf(&b, "(%d)", t.Precision)
		}
	}
	return b.String()
}

// MapValue is the canonical Go value of a MAP: parallel key and value slices
// in insertion order.
type MapValue struct {
	Keys   []any
	Values []any
}

// Schema is an ordered list of named, typed columns.
type Schema []Field

// Names returns the column names.
func (s Schema) Names() []string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.Name
	}
	return out
}

// Types returns the column types.
func (s Schema) Types() []Type {
	out := make([]Type, len(s))
	for i, f := range s {
		out[i] = f.Type
	}
	return out
}

// Index returns the position of the first column named name, or -1.
func (s Schema) Index(name string) int {
	for i, f := range s {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// AsRow returns the schema as a ROW type.
func (s Schema) AsRow() Type { return RowOf(s...) }
