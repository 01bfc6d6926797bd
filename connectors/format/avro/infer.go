package avro

import (
	"fmt"
	"io"

	havro "github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/tablerun/tablerun/core/types"
)

// FileSchema returns the columns of an Avro object container file as
// tablerun types (a table declared without columns), mapped as Flink's
// AvroSchemaConverter maps Avro to SQL types: a union with null is a
// nullable type, timestamp-millis/-micros TIMESTAMP(3)/(6) (Flink's
// legacy mapping, its default), enums STRING, fixed BYTES.
func FileSchema(r io.Reader, name string) (types.Schema, error) {
	dec, err := ocf.NewDecoder(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rs, ok := dec.Schema().(*havro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("reading %s: the file's schema is %s, not a record", name, dec.Schema().Type())
	}
	var out types.Schema
	for _, f := range rs.Fields() {
		t, err := sqlType(f.Type())
		if err != nil {
			return nil, fmt.Errorf("column '%s' of %s: %w", f.Name(), name, err)
		}
		out = append(out, types.Field{Name: f.Name(), Type: t})
	}
	return out, nil
}

// sqlType maps an Avro schema to a SQL type (NOT NULL unless a union
// with null).
func sqlType(s havro.Schema) (types.Type, error) {
	notNull := func(t types.Type) (types.Type, error) { return t.WithNullable(false), nil }
	switch x := s.(type) {
	case *havro.UnionSchema:
		var other []havro.Schema
		for _, u := range x.Types() {
			if u.Type() != havro.Null {
				other = append(other, u)
			}
		}
		if len(other) != 1 {
			return types.Type{}, fmt.Errorf("not supported yet: the Avro union %s (only a union of null and one type maps to a SQL type)", s)
		}
		t, err := sqlType(other[0])
		return t.WithNullable(len(other) < len(x.Types())), err
	case *havro.PrimitiveSchema:
		if l := x.Logical(); l != nil {
			switch l.Type() {
			case havro.Date:
				return notNull(types.DateT)
			case havro.TimeMillis:
				return notNull(types.TimeOf(3))
			case havro.TimestampMillis, havro.LocalTimestampMillis:
				return notNull(types.TimestampOf(3))
			case havro.TimestampMicros, havro.LocalTimestampMicros:
				return notNull(types.TimestampOf(6))
			case havro.Decimal:
				if d, ok := l.(*havro.DecimalLogicalSchema); ok {
					return notNull(types.DecimalOf(d.Precision(), d.Scale()))
				}
			}
		}
		switch x.Type() {
		case havro.Boolean:
			return notNull(types.BooleanT)
		case havro.Int:
			return notNull(types.IntT)
		case havro.Long:
			return notNull(types.BigIntT)
		case havro.Float:
			return notNull(types.FloatT)
		case havro.Double:
			return notNull(types.DoubleT)
		case havro.String:
			return notNull(types.StringT)
		case havro.Bytes:
			return notNull(types.BytesT)
		}
	case *havro.FixedSchema:
		if l := x.Logical(); l != nil && l.Type() == havro.Decimal {
			if d, ok := l.(*havro.DecimalLogicalSchema); ok {
				return notNull(types.DecimalOf(d.Precision(), d.Scale()))
			}
		}
		return notNull(types.BytesT)
	case *havro.EnumSchema:
		return notNull(types.StringT)
	case *havro.ArraySchema:
		e, err := sqlType(x.Items())
		if err != nil {
			return types.Type{}, err
		}
		return notNull(types.ArrayOf(e))
	case *havro.MapSchema:
		v, err := sqlType(x.Values())
		if err != nil {
			return types.Type{}, err
		}
		return notNull(types.MapOf(types.StringT.WithNullable(false), v))
	case *havro.RecordSchema:
		var fs []types.Field
		for _, f := range x.Fields() {
			t, err := sqlType(f.Type())
			if err != nil {
				return types.Type{}, err
			}
			fs = append(fs, types.Field{Name: f.Name(), Type: t})
		}
		return notNull(types.RowOf(fs...))
	}
	return types.Type{}, fmt.Errorf("not supported yet: the Avro type %s", s.Type())
}
