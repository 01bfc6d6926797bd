package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ArrowType maps a logical type to the Arrow type that carries its values in
// record batches. Nullability is carried by the arrow.Field, not the type.
//
//	BOOLEAN → bool; TINYINT..BIGINT → int8..int64; FLOAT/DOUBLE → float32/64;
//	DECIMAL(p,s) → decimal128(p,s); CHAR/VARCHAR → utf8; BINARY/VARBINARY →
//	binary; DATE → date32; TIME → time32[ms]; TIMESTAMP(0..6) →
//	timestamp[us], TIMESTAMP(7..9) → timestamp[ns]; TIMESTAMP_LTZ → the
//	same with tz=UTC; INTERVAL DAY TO SECOND →
//	duration[ms]; INTERVAL YEAR TO MONTH → month_interval; ARRAY → list;
//	MAP → map; ROW → struct; NULL → null.
func ArrowType(t Type) (arrow.DataType, error) {
	switch t.Kind {
	case Null:
		return arrow.Null, nil
	case Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case TinyInt:
		return arrow.PrimitiveTypes.Int8, nil
	case SmallInt:
		return arrow.PrimitiveTypes.Int16, nil
	case Int:
		return arrow.PrimitiveTypes.Int32, nil
	case BigInt:
		return arrow.PrimitiveTypes.Int64, nil
	case Float:
		return arrow.PrimitiveTypes.Float32, nil
	case Double:
		return arrow.PrimitiveTypes.Float64, nil
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, nil
	case Char, VarChar:
		return arrow.BinaryTypes.String, nil
	case Binary, VarBinary:
		return arrow.BinaryTypes.Binary, nil
	case Date:
		return arrow.FixedWidthTypes.Date32, nil
	case Time:
		return arrow.FixedWidthTypes.Time32ms, nil
	case Timestamp:
		if t.Precision > 9 {
			return nil, fmt.Errorf("not supported yet: %s (fractional seconds beyond nanoseconds)", t)
		}
		if IsNanoTimestamp(t) {
			return &arrow.TimestampType{Unit: arrow.Nanosecond}, nil
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	case TimestampLTZ:
		if t.Precision > 9 {
			return nil, fmt.Errorf("not supported yet: %s (fractional seconds beyond nanoseconds)", t)
		}
		if IsNanoTimestamp(t) {
			return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, nil
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
	case IntervalDayTime:
		return arrow.FixedWidthTypes.Duration_ms, nil
	case IntervalYearMonth:
		return arrow.FixedWidthTypes.MonthInterval, nil
	case Array:
		et, err := ArrowType(*t.Elem)
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "element", Type: et, Nullable: t.Elem.Nullable()}), nil
	case Map:
		kt, err := ArrowType(*t.Elem)
		if err != nil {
			return nil, err
		}
		vt, err := ArrowType(*t.Value)
		if err != nil {
			return nil, err
		}
		m := arrow.MapOf(kt, vt)
		m.SetItemNullable(t.Value.Nullable())
		return m, nil
	case Row:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			ft, err := ArrowType(f.Type)
			if err != nil {
				return nil, err
			}
			fs[i] = arrow.Field{Name: f.Name, Type: ft, Nullable: f.Type.Nullable()}
		}
		return arrow.StructOf(fs...), nil
	}
	return nil, fmt.Errorf("not supported yet: Arrow mapping of %s", t)
}

// ArrowSchema maps a schema to an Arrow schema.
func ArrowSchema(s Schema) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(s))
	for i, f := range s {
		at, err := ArrowType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		fs[i] = arrow.Field{Name: f.Name, Type: at, Nullable: f.Type.Nullable()}
	}
	return arrow.NewSchema(fs, nil), nil
}

// MustArrowSchema is ArrowSchema for schemas already validated by the
// planner (every type of a validated plan has an Arrow mapping). It panics
// on an invariant violation only.
func MustArrowSchema(s Schema) *arrow.Schema {
	as, err := ArrowSchema(s)
	if err != nil {
		panic(fmt.Sprintf("types: unmappable validated schema: %v", err))
	}
	return as
}

// FromArrow maps an Arrow type back to the logical type that ArrowType maps
// to it (strings become STRING, binaries BYTES, timestamps with a zone
// TIMESTAMP_LTZ; timestamp[us] is precision 6, timestamp[ns] precision 9).
func FromArrow(dt arrow.DataType, nullable bool) (Type, error) {
	var t Type
	switch d := dt.(type) {
	case *arrow.BooleanType:
		t = BooleanT
	case *arrow.Int8Type:
		t = TinyIntT
	case *arrow.Int16Type:
		t = SmallIntT
	case *arrow.Int32Type:
		t = IntT
	case *arrow.Int64Type:
		t = BigIntT
	case *arrow.Float32Type:
		t = FloatT
	case *arrow.Float64Type:
		t = DoubleT
	case *arrow.Decimal128Type:
		t = DecimalOf(int(d.Precision), int(d.Scale))
	case *arrow.StringType:
		t = StringT
	case *arrow.BinaryType:
		t = BytesT
	case *arrow.Date32Type:
		t = DateT
	case *arrow.Time32Type:
		if d.Unit != arrow.Millisecond {
			return Type{}, fmt.Errorf("not supported yet: Arrow %s (TIME is time32[ms])", dt)
		}
		t = TimeOf(3)
	case *arrow.TimestampType:
		p := 6
		switch d.Unit {
		case arrow.Microsecond:
		case arrow.Nanosecond:
			p = 9
		default:
			return Type{}, fmt.Errorf("not supported yet: Arrow %s (timestamps are timestamp[us] or timestamp[ns])", dt)
		}
		if d.TimeZone != "" {
			t = TimestampLTZOf(p)
		} else {
			t = TimestampOf(p)
		}
	case *arrow.DurationType:
		if d.Unit != arrow.Millisecond {
			return Type{}, fmt.Errorf("not supported yet: Arrow %s (intervals are duration[ms])", dt)
		}
		t = IntervalDT
	case *arrow.MonthIntervalType:
		t = IntervalYM
	case *arrow.MapType:
		k, err := FromArrow(d.KeyType(), false)
		if err != nil {
			return Type{}, err
		}
		v, err := FromArrow(d.ItemType(), d.ItemField().Nullable)
		if err != nil {
			return Type{}, err
		}
		t = MapOf(k, v)
	case *arrow.ListType:
		e, err := FromArrow(d.Elem(), d.ElemField().Nullable)
		if err != nil {
			return Type{}, err
		}
		t = ArrayOf(e)
	case *arrow.StructType:
		fs := make([]Field, d.NumFields())
		for i, f := range d.Fields() {
			ft, err := FromArrow(f.Type, f.Nullable)
			if err != nil {
				return Type{}, err
			}
			fs[i] = Field{Name: f.Name, Type: ft}
		}
		t = RowOf(fs...)
	default:
		return Type{}, fmt.Errorf("not supported yet: Arrow type %s", dt)
	}
	return t.WithNullable(nullable), nil
}
