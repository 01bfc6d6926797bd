package js

import (
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"time"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// toJS converts a canonical Go value of type t to a JavaScript value (see
// the package doc for the mapping).
func (it *interp) toJS(v any, t types.Type, loc *time.Location) (goja.Value, error) {
	rt := it.rt
	if v == nil {
		return goja.Null(), nil
	}
	switch x := v.(type) {
	case bool:
		return rt.ToValue(x), nil
	case int8:
		return rt.ToValue(int64(x)), nil
	case int16:
		return rt.ToValue(int64(x)), nil
	case int32:
		switch t.Kind {
		case types.Date:
			return it.date(int64(x) * 86400000)
		case types.Time:
			return rt.ToValue(udf.TemporalText(v, t, loc)), nil
		}
		return rt.ToValue(int64(x)), nil
	case int64:
		switch t.Kind {
		case types.Timestamp, types.TimestampLTZ:
			return it.date(floorDiv(x, types.TimestampUnitsPerSecond(t)/1000))
		}
		return rt.ToValue(x), nil
	case float32:
		return rt.ToValue(float64(x)), nil
	case float64:
		return rt.ToValue(x), nil
	case string:
		return rt.ToValue(x), nil
	case []byte:
		buf := rt.NewArrayBuffer(append([]byte(nil), x...))
		return rt.New(it.u8Ctor, rt.ToValue(buf))
	case []any:
		switch t.Kind {
		case types.Array:
			items := make([]any, len(x))
			for i, e := range x {
				jv, err := it.toJS(e, *t.Elem, loc)
				if err != nil {
					return nil, err
				}
				items[i] = jv
			}
			return rt.NewArray(items...), nil
		case types.Row:
			o := rt.NewObject()
			for i, e := range x {
				if i >= len(t.Fields) {
					break
				}
				jv, err := it.toJS(e, t.Fields[i].Type, loc)
				if err != nil {
					return nil, err
				}
				if err := o.Set(t.Fields[i].Name, jv); err != nil {
					return nil, err
				}
			}
			return o, nil
		}
	case *types.MapValue:
		if t.Kind != types.Map {
			break
		}
		if t.Elem.IsString() {
			o := rt.NewObject()
			for i, k := range x.Keys {
				ks, ok := k.(string)
				if !ok {
					continue
				}
				jv, err := it.toJS(x.Values[i], *t.Value, loc)
				if err != nil {
					return nil, err
				}
				if err := o.Set(ks, jv); err != nil {
					return nil, err
				}
			}
			return o, nil
		}
		m, err := rt.New(it.mapCtor)
		if err != nil {
			return nil, err
		}
		set, _ := goja.AssertFunction(m.Get("set"))
		for i := range x.Keys {
			k, err := it.toJS(x.Keys[i], *t.Elem, loc)
			if err != nil {
				return nil, err
			}
			val, err := it.toJS(x.Values[i], *t.Value, loc)
			if err != nil {
				return nil, err
			}
			if _, err := set(m, k, val); err != nil {
				return nil, err
			}
		}
		return m, nil
	default:
		if t.Kind == types.Decimal {
			return rt.ToValue(udf.DecimalFloat(v, t)), nil
		}
	}
	return nil, fmt.Errorf("not supported yet: passing %T as %s to JavaScript", v, t)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (it *interp) date(ms int64) (goja.Value, error) {
	return it.rt.New(it.dateCtor, it.rt.ToValue(ms))
}

var (
	mapType    = reflect.TypeOf([][2]any(nil))
	bytesType  = reflect.TypeOf([]uint8(nil))
	bufferType = reflect.TypeOf(goja.ArrayBuffer{})
	objectType = reflect.TypeOf(map[string]any(nil))
)

// other marks a JavaScript value without a plain Go counterpart.
type other struct{ name string }

// fromJS converts a JavaScript value to a plain Go value for udf.Coerce.
func fromJS(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		switch x := v.Export().(type) {
		case bool, int64, float64, string:
			return x
		case *big.Int:
			if x.IsInt64() {
				return x.Int64()
			}
			return x
		}
		return other{name: "symbol"}
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		out := make([]any, n)
		for i := 0; i < n; i++ {
			out[i] = fromJS(o.Get(strconv.Itoa(i)))
		}
		return out
	case "Date":
		if t, ok := o.Export().(time.Time); ok {
			return t
		}
		return nil
	}
	switch o.ExportType() {
	case mapType:
		pairs, _ := o.Export().([][2]any)
		m := &udf.Map{Keys: make([]any, len(pairs)), Values: make([]any, len(pairs))}
		for i, p := range pairs {
			m.Keys[i] = exported(p[0])
			m.Values[i] = exported(p[1])
		}
		return m
	case bufferType:
		if b, ok := o.Export().(goja.ArrayBuffer); ok {
			return append([]byte(nil), b.Bytes()...)
		}
	case bytesType:
		if b, ok := o.Export().([]uint8); ok {
			return append([]byte(nil), b...)
		}
	case objectType:
		if _, isFn := goja.AssertFunction(o); isFn {
			break
		}
		keys := o.Keys()
		m := &udf.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			m.Keys[i] = k
			m.Values[i] = fromJS(o.Get(k))
		}
		return m
	}
	return other{name: o.ClassName()}
}

// exported converts a value produced by goja's Export (inside a Map) to
// a plain Go value.
func exported(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, time.Time:
		return x
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = exported(e)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &udf.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			m.Keys[i] = k
			m.Values[i] = exported(x[k])
		}
		return m
	case [][2]any:
		m := &udf.Map{Keys: make([]any, len(x)), Values: make([]any, len(x))}
		for i, p := range x {
			m.Keys[i] = exported(p[0])
			m.Values[i] = exported(p[1])
		}
		return m
	case []uint8:
		return append([]byte(nil), x...)
	}
	return other{name: fmt.Sprintf("%T", v)}
}

// plainToJS converts a plain Go value back to JavaScript (accumulators
// moved between runtimes): *udf.Map becomes a plain object.
func (it *interp) plainToJS(v any) (goja.Value, error) {
	rt := it.rt
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case bool, int64, float64, string:
		return rt.ToValue(x), nil
	case *big.Int:
		return rt.ToValue(new(big.Int).Set(x)), nil
	case []byte:
		return rt.New(it.u8Ctor, rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), x...))))
	case time.Time:
		return it.date(x.UnixMilli())
	case []any:
		items := make([]any, len(x))
		for i, e := range x {
			jv, err := it.plainToJS(e)
			if err != nil {
				return nil, err
			}
			items[i] = jv
		}
		return rt.NewArray(items...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &udf.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			m.Keys[i], m.Values[i] = k, x[k]
		}
		return it.plainToJS(m)
	case *udf.Map:
		o := rt.NewObject()
		for i, k := range x.Keys {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("object key %v is not a string", k)
			}
			jv, err := it.plainToJS(x.Values[i])
			if err != nil {
				return nil, err
			}
			if err := o.Set(ks, jv); err != nil {
				return nil, err
			}
		}
		return o, nil
	}
	return nil, fmt.Errorf("cannot import %T into JavaScript", v)
}

func typeName(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if goja.IsNull(v) {
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		if _, ok := goja.AssertFunction(o); ok {
			return "function"
		}
		return o.ClassName()
	}
	return lang.TypeName(fromJS(v))
}

// typeOf names the type of a JavaScript value for errors.
func typeOf(v goja.Value) string { return typeName(v) }

// lang names JavaScript types in result errors.
var lang = &udf.Lang{
	Name:      "JavaScript",
	LooseInts: true,
	TypeName: func(v any) string {
		switch x := v.(type) {
		case nil:
			return "null"
		case bool:
			return "boolean"
		case int64, float64:
			return "number"
		case *big.Int:
			return "bigint"
		case string:
			return "string"
		case []byte:
			return "Uint8Array"
		case []any:
			return "Array"
		case *udf.Map:
			return "object"
		case time.Time:
			return "Date"
		case other:
			return x.name
		}
		return fmt.Sprintf("%T", v)
	},
}

var (
	int64Type   = reflect.TypeOf(int64(0))
	float64Type = reflect.TypeOf(float64(0))
	stringType  = reflect.TypeOf("")
	boolType    = reflect.TypeOf(false)
)
