package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// GetValue reads row i of an Arrow array holding values of logical type t
// and returns its canonical Go value (nil for NULL). It is the slow,
// general path: for tests, printing, constants and reference evaluation,
// never for hot loops.
func GetValue(arr arrow.Array, i int, t Type) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Date32:
		return int32(a.Value(i))
	case *array.Time32:
		return int32(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Duration:
		return int64(a.Value(i))
	case *array.MonthInterval:
		return int32(a.Value(i))
	case *array.Map:
		// Map must come before List: a Map is also a List.
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		mv := &MapValue{}
		for j := int(start); j < int(end); j++ {
			mv.Keys = append(mv.Keys, GetValue(keys, j, *t.Elem))
			mv.Values = append(mv.Values, GetValue(items, j, *t.Value))
		}
		return mv
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, GetValue(vals, j, *t.Elem))
		}
		return out
	case *array.Struct:
		out := make([]any, a.NumField())
		for f := 0; f < a.NumField(); f++ {
			out[f] = GetValue(a.Field(f), i, t.Fields[f].Type)
		}
		return out
	case *array.Null:
		return nil
	}
	return fmt.Sprintf("<unsupported %s>", arr.DataType())
}

// AppendValue appends a canonical Go value (nil for NULL) to a builder made
// for ArrowType(t). Integer values of another Go width are accepted and
// converted, so constants need not match exactly.
func AppendValue(b array.Builder, v any, t Type) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(x)
	case *array.Int8Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(int8(x))
	case *array.Int16Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(int16(x))
	case *array.Int32Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(int32(x))
	case *array.Int64Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(x)
	case *array.Float32Builder:
		switch x := v.(type) {
		case float32:
			bb.Append(x)
		case float64:
			bb.Append(float32(x))
		default:
			return badValue(v, t)
		}
	case *array.Float64Builder:
		switch x := v.(type) {
		case float64:
			bb.Append(x)
		case float32:
			bb.Append(float64(x))
		default:
			return badValue(v, t)
		}
	case *array.Decimal128Builder:
		x, ok := v.(decimal128.Num)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(x)
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(x)
	case *array.BinaryBuilder:
		x, ok := v.([]byte)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(x)
	case *array.Date32Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(arrow.Date32(x))
	case *array.Time32Builder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(arrow.Time32(x))
	case *array.TimestampBuilder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(arrow.Timestamp(x))
	case *array.DurationBuilder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(arrow.Duration(x))
	case *array.MonthIntervalBuilder:
		x, ok := asInt64(v)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(arrow.MonthInterval(x))
	case *array.MapBuilder:
		m, ok := v.(*MapValue)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(true)
		for j := range m.Keys {
			if err := AppendValue(bb.KeyBuilder(), m.Keys[j], *t.Elem); err != nil {
				return err
			}
			if err := AppendValue(bb.ItemBuilder(), m.Values[j], *t.Value); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		xs, ok := v.([]any)
		if !ok {
			return badValue(v, t)
		}
		bb.Append(true)
		for _, x := range xs {
			if err := AppendValue(bb.ValueBuilder(), x, *t.Elem); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		xs, ok := v.([]any)
		if !ok || len(xs) != len(t.Fields) {
			return badValue(v, t)
		}
		bb.Append(true)
		for f := range xs {
			if err := AppendValue(bb.FieldBuilder(f), xs[f], t.Fields[f].Type); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("not supported yet: building Arrow %T for %s", b, t)
	}
	return nil
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

func badValue(v any, t Type) error {
	return fmt.Errorf("internal: value %v (%T) does not fit type %s", v, v, t)
}

// BuildArray builds an Arrow array of logical type t from canonical values.
func BuildArray(mem memory.Allocator, t Type, vals []any) (arrow.Array, error) {
	at, err := ArrowType(t)
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, at)
	defer b.Release()
	b.Reserve(len(vals))
	for _, v := range vals {
		if err := AppendValue(b, v, t); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// BuildRecord builds a record batch of schema s from rows of canonical
// values.
func BuildRecord(mem memory.Allocator, s Schema, rows [][]any) (arrow.RecordBatch, error) {
	as, err := ArrowSchema(s)
	if err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, len(s))
	col := make([]any, len(rows))
	for c := range s {
		for r := range rows {
			col[r] = rows[r][c]
		}
		arr, err := BuildArray(mem, s[c].Type, col)
		if err != nil {
			return nil, err
		}
		cols[c] = arr
	}
	return array.NewRecordBatch(as, cols, int64(len(rows))), nil
}

// RecordRows reads every row of a record batch as canonical values.
func RecordRows(rec arrow.RecordBatch, s Schema) [][]any {
	n := int(rec.NumRows())
	out := make([][]any, n)
	for r := 0; r < n; r++ {
		row := make([]any, len(s))
		for c := range s {
			row[c] = GetValue(rec.Column(c), r, s[c].Type)
		}
		out[r] = row
	}
	return out
}
