package core

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// FromValues registers Go values as a temporary table at path: values is a
// slice or array of structs (or pointers to structs), or an iterator
// (iter.Seq) of them. Every exported field becomes a column named after
// the field, or after its `tablerun:"name"` tag (`tablerun:"-"` skips the
// field). Types map as:
//
//	bool                       BOOLEAN
//	int8 int16 int32 int64 int TINYINT SMALLINT INT BIGINT BIGINT
//	uint8 uint16 uint32        SMALLINT INT BIGINT
//	float32 float64            FLOAT DOUBLE
//	string, []byte             STRING, BYTES
//	time.Time                  TIMESTAMP_LTZ(6) (an instant); with the tag
//	                           option `tablerun:"name,timestamp"` TIMESTAMP(6)
//	                           (the wall clock in the value's location)
//	time.Duration              INTERVAL DAY TO SECOND(3)
//	[]T, map[K]V, struct       ARRAY<T>, MAP<K, V>, ROW<…>
//
// Value types are NOT NULL; pointers, slices and maps are nullable (nil is
// NULL). The table lives in memory for the session (see FromRecords).
func (e *TableEnvironment) FromValues(path string, values any) error {
	v := reflect.ValueOf(values)
	if !v.IsValid() {
		return classify(KindValidation, fmt.Errorf("FromValues needs a slice, array or iterator of structs, got nil"))
	}
	var elem reflect.Type
	var each func(yield func(reflect.Value) bool)
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		elem = v.Type().Elem()
		each = func(yield func(reflect.Value) bool) {
			for i := 0; i < v.Len(); i++ {
				if !yield(v.Index(i)) {
					return
				}
			}
		}
	case reflect.Func:
		t := v.Type()
		if t.NumIn() != 1 || t.NumOut() != 0 || t.In(0).Kind() != reflect.Func ||
			t.In(0).NumIn() != 1 || t.In(0).NumOut() != 1 || t.In(0).Out(0).Kind() != reflect.Bool {
			return classify(KindValidation, fmt.Errorf("FromValues needs a slice, array or iter.Seq of structs, got %s", t))
		}
		elem = t.In(0).In(0)
		each = func(yield func(reflect.Value) bool) {
			fn := reflect.MakeFunc(t.In(0), func(args []reflect.Value) []reflect.Value {
				return []reflect.Value{reflect.ValueOf(yield(args[0]))}
			})
			v.Call([]reflect.Value{fn})
		}
	default:
		return classify(KindValidation, fmt.Errorf("FromValues needs a slice, array or iter.Seq of structs, got %s", v.Type()))
	}
	st := elem
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return classify(KindValidation, fmt.Errorf("FromValues needs structs, got elements of type %s", elem))
	}
	fields, err := structFields(st)
	if err != nil {
		return classify(KindValidation, err)
	}
	schema := make(types.Schema, len(fields))
	for i, f := range fields {
		schema[i] = types.Field{Name: f.name, Type: f.typ}
	}
	arrowSchema, err := types.ArrowSchema(schema)
	if err != nil {
		return classify(KindValidation, err)
	}
	var records []arrow.RecordBatch
	var rows [][]any
	var convErr error
	flush := func() bool {
		if len(rows) == 0 {
			return true
		}
		rec, err := types.BuildRecord(vectorized.Mem, schema, rows)
		if err != nil {
			convErr = err
			return false
		}
		records = append(records, rec)
		rows = rows[:0]
		return true
	}
	each(func(x reflect.Value) bool {
		if x.Kind() == reflect.Pointer {
			if x.IsNil() {
				convErr = fmt.Errorf("FromValues: a nil %s element", elem)
				return false
			}
			x = x.Elem()
		}
		row := make([]any, len(fields))
		for i, f := range fields {
			val, err := goValue(x.FieldByIndex(f.index), f.typ, f.wallClock)
			if err != nil {
				convErr = fmt.Errorf("field %s: %w", f.name, err)
				return false
			}
			row[i] = val
		}
		rows = append(rows, row)
		if len(rows) == vectorized.DefaultBatchSize {
			return flush()
		}
		return true
	})
	if convErr == nil {
		flush()
	}
	if convErr != nil {
		return classify(KindValidation, convErr)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fromRecords(path, arrowSchema, records)
}

type structField struct {
	name      string
	index     []int
	typ       types.Type
	wallClock bool
}

func structFields(t reflect.Type) ([]structField, error) {
	var out []structField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, wall := f.Name, false
		if tag, ok := f.Tag.Lookup("tablerun"); ok {
			parts := strings.Split(tag, ",")
			if parts[0] == "-" {
				continue
			}
			if parts[0] != "" {
				name = parts[0]
			}
			for _, o := range parts[1:] {
				if o == "timestamp" {
					wall = true
				}
			}
		}
		typ, err := goType(f.Type, wall)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		out = append(out, structField{name: name, index: f.Index, typ: typ, wallClock: wall})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("struct %s has no exported fields", t)
	}
	return out, nil
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
	bytesType    = reflect.TypeOf([]byte(nil))
)

// goType maps a Go type to the SQL type of its column.
func goType(t reflect.Type, wall bool) (types.Type, error) {
	nullable := false
	if t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	var out types.Type
	switch {
	case t == timeType && wall:
		out = types.TimestampOf(6)
	case t == timeType:
		out = types.TimestampLTZOf(6)
	case t == durationType:
		out = types.IntervalDT
	case t == bytesType:
		out, nullable = types.BytesT, true
	default:
		switch t.Kind() {
		case reflect.Bool:
			out = types.BooleanT
		case reflect.Int8:
			out = types.TinyIntT
		case reflect.Int16, reflect.Uint8:
			out = types.SmallIntT
		case reflect.Int32, reflect.Uint16:
			out = types.IntT
		case reflect.Int64, reflect.Int, reflect.Uint32:
			out = types.BigIntT
		case reflect.Float32:
			out = types.FloatT
		case reflect.Float64:
			out = types.DoubleT
		case reflect.String:
			out = types.StringT
		case reflect.Slice, reflect.Array:
			et, err := goType(t.Elem(), false)
			if err != nil {
				return out, err
			}
			out, nullable = types.ArrayOf(et), nullable || t.Kind() == reflect.Slice
		case reflect.Map:
			kt, err := goType(t.Key(), false)
			if err != nil {
				return out, err
			}
			vt, err := goType(t.Elem(), false)
			if err != nil {
				return out, err
			}
			out, nullable = types.MapOf(kt, vt), true
		case reflect.Struct:
			fs, err := structFields(t)
			if err != nil {
				return out, err
			}
			var fields []types.Field
			for _, f := range fs {
				fields = append(fields, types.Field{Name: f.name, Type: f.typ})
			}
			out = types.RowOf(fields...)
		default:
			return out, fmt.Errorf("the Go type %s has no SQL type", t)
		}
	}
	return out.WithNullable(nullable), nil
}

// goValue converts a field value to the canonical Go value of typ.
func goValue(v reflect.Value, typ types.Type, wall bool) (any, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch typ.Kind {
	case types.Boolean:
		return v.Bool(), nil
	case types.TinyInt:
		return int8(v.Int()), nil
	case types.SmallInt:
		if v.Kind() == reflect.Uint8 {
			return int16(v.Uint()), nil
		}
		return int16(v.Int()), nil
	case types.Int:
		if v.Kind() == reflect.Uint16 {
			return int32(v.Uint()), nil
		}
		return int32(v.Int()), nil
	case types.BigInt:
		if v.Kind() == reflect.Uint32 {
			return int64(v.Uint()), nil
		}
		return v.Int(), nil
	case types.Float:
		return float32(v.Float()), nil
	case types.Double:
		return v.Float(), nil
	case types.VarChar:
		return v.String(), nil
	case types.VarBinary:
		if v.IsNil() {
			return nil, nil
		}
		return append([]byte(nil), v.Bytes()...), nil
	case types.Timestamp, types.TimestampLTZ:
		t := v.Interface().(time.Time)
		if wall {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		}
		return t.UnixMicro(), nil
	case types.IntervalDayTime:
		return time.Duration(v.Int()).Milliseconds(), nil
	case types.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			x, err := goValue(v.Index(i), *typ.Elem, false)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case types.Map:
		if v.IsNil() {
			return nil, nil
		}
		mv := &types.MapValue{}
		keys := v.MapKeys()
		// a deterministic order: by the keys' text
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Interface()) < fmt.Sprint(keys[j].Interface()) })
		for _, key := range keys {
			k, err := goValue(key, *typ.Elem, false)
			if err != nil {
				return nil, err
			}
			x, err := goValue(v.MapIndex(key), *typ.Value, false)
			if err != nil {
				return nil, err
			}
			mv.Keys, mv.Values = append(mv.Keys, k), append(mv.Values, x)
		}
		return mv, nil
	case types.Row:
		fs, err := structFields(v.Type())
		if err != nil {
			return nil, err
		}
		out := make([]any, len(fs))
		for i, f := range fs {
			x, err := goValue(v.FieldByIndex(f.index), f.typ, f.wallClock)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}
