package python

import (
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// toPy converts a canonical Go value of type t to a Python object.
//
// Mapping: NULL → None; BOOLEAN → bool; TINYINT…BIGINT → int; FLOAT,
// DOUBLE → float; DECIMAL → float; CHAR/VARCHAR → str; BINARY/VARBINARY →
// bytes; DATE → 'yyyy-MM-dd', TIME → 'HH:mm:ss[.fff]', TIMESTAMP →
// 'yyyy-MM-dd HH:mm:ss[.ffffff]' (str; TIMESTAMP_LTZ in the session time
// zone); INTERVAL DAY TO SECOND → int milliseconds; INTERVAL YEAR TO
// MONTH → int months; ARRAY → list; MAP with CHAR/VARCHAR keys → dict,
// other MAPs → list of (key, value) tuples; ROW → tuple.
func toPy(v any, t types.Type, loc *time.Location) (py.Object, error) {
	if v == nil {
		return py.None, nil
	}
	switch x := v.(type) {
	case bool:
		return py.Bool(x), nil
	case int8:
		return py.Int(x), nil
	case int16:
		return py.Int(x), nil
	case int32:
		switch t.Kind {
		case types.Date, types.Time:
			return py.String(udf.TemporalText(v, t, loc)), nil
		}
		return py.Int(x), nil
	case int64:
		switch t.Kind {
		case types.Timestamp, types.TimestampLTZ:
			return py.String(udf.TemporalText(v, t, loc)), nil
		}
		return py.Int(x), nil
	case float32:
		return py.Float(x), nil
	case float64:
		return py.Float(x), nil
	case string:
		return py.String(x), nil
	case []byte:
		return py.Bytes(append([]byte(nil), x...)), nil
	case []any:
		switch t.Kind {
		case types.Array:
			items := make([]py.Object, len(x))
			for i, it := range x {
				o, err := toPy(it, *t.Elem, loc)
				if err != nil {
					return nil, err
				}
				items[i] = o
			}
			return py.NewListFromItems(items), nil
		case types.Row:
			items := make(py.Tuple, len(x))
			for i, it := range x {
				var ft types.Type
				if i < len(t.Fields) {
					ft = t.Fields[i].Type
				}
				o, err := toPy(it, ft, loc)
				if err != nil {
					return nil, err
				}
				items[i] = o
			}
			return items, nil
		}
	case *types.MapValue:
		if t.Kind != types.Map {
			break
		}
		if t.Elem.IsString() {
			d := py.NewStringDictSized(len(x.Keys))
			for i, k := range x.Keys {
				ks, ok := k.(string)
				if !ok {
					continue // a NULL key cannot be a dict key
				}
				o, err := toPy(x.Values[i], *t.Value, loc)
				if err != nil {
					return nil, err
				}
				d[ks] = o
			}
			return d, nil
		}
		items := make([]py.Object, len(x.Keys))
		for i := range x.Keys {
			k, err := toPy(x.Keys[i], *t.Elem, loc)
			if err != nil {
				return nil, err
			}
			val, err := toPy(x.Values[i], *t.Value, loc)
			if err != nil {
				return nil, err
			}
			items[i] = py.Tuple{k, val}
		}
		return py.NewListFromItems(items), nil
	default:
		if t.Kind == types.Decimal {
			return py.Float(udf.DecimalFloat(v, t)), nil
		}
	}
	return nil, fmt.Errorf("not supported yet: passing %T as %s to Python", v, t)
}

// other marks a Python object without a plain Go counterpart.
type other struct{ name string }

// fromPy converts a Python object to a plain Go value for udf.Coerce.
func fromPy(o py.Object) any {
	switch x := o.(type) {
	case py.NoneType:
		return nil
	case py.Bool:
		return bool(x)
	case py.Int:
		return int64(x)
	case *py.BigInt:
		if i, err := x.GoInt64(); err == nil {
			return i
		}
		return (*big.Int)(x)
	case py.Float:
		return float64(x)
	case py.String:
		return string(x)
	case py.Bytes:
		return []byte(x)
	case *py.List:
		out := make([]any, len(x.Items))
		for i, it := range x.Items {
			out[i] = fromPy(it)
		}
		return out
	case py.Tuple:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = fromPy(it)
		}
		return out
	case *pyDate:
		return x.t
	case *pyDatetime:
		return x.t
	case py.StringDict:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &udf.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			m.Keys[i] = k
			m.Values[i] = fromPy(x[k])
		}
		return m
	}
	return other{name: o.Type().Name}
}

// plainToPy converts a plain Go value (as made by fromPy) back to Python,
// for accumulators moved between interpreters.
func plainToPy(v any) (py.Object, error) {
	switch x := v.(type) {
	case nil:
		return py.None, nil
	case bool:
		return py.Bool(x), nil
	case int64:
		return py.Int(x), nil
	case *big.Int:
		return (*py.BigInt)(new(big.Int).Set(x)), nil
	case float64:
		return py.Float(x), nil
	case string:
		return py.String(x), nil
	case []byte:
		return py.Bytes(append([]byte(nil), x...)), nil
	case []any:
		items := make([]py.Object, len(x))
		for i, it := range x {
			o, err := plainToPy(it)
			if err != nil {
				return nil, err
			}
			items[i] = o
		}
		return py.NewListFromItems(items), nil
	case *udf.Map:
		d := py.NewStringDictSized(len(x.Keys))
		for i, k := range x.Keys {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("dict key %v is not a str", k)
			}
			o, err := plainToPy(x.Values[i])
			if err != nil {
				return nil, err
			}
			d[ks] = o
		}
		return d, nil
	case map[string]any:
		return plainToPy(sortedMap(x))
	case opaque:
		return x.obj, nil
	}
	return nil, fmt.Errorf("cannot import %T into Python", v)
}

// opaque carries a Python object with no plain form (an instance of a user
// class) between interpreters of the same program.
type opaque struct{ obj py.Object }

// ExportDescription names the object for an export that cannot encode it.
func (o opaque) ExportDescription() string {
	return fmt.Sprintf("a Python %s object (only None, bool, int, float, str, bytes, list, tuple and dict with str keys move between operators)", o.obj.Type().Name)
}

// isPlain reports whether fromPy lost nothing.
func isPlain(v any) bool {
	switch x := v.(type) {
	case other:
		return false
	case []any:
		for _, it := range x {
			if !isPlain(it) {
				return false
			}
		}
	case *udf.Map:
		for _, it := range x.Values {
			if !isPlain(it) {
				return false
			}
		}
	}
	return true
}

// lang names Python types in result errors.
var lang = &udf.Lang{
	Name: "Python",
	TypeName: func(v any) string {
		switch x := v.(type) {
		case nil:
			return "None"
		case bool:
			return "bool"
		case int64, *big.Int:
			return "int"
		case float64:
			return "float"
		case string:
			return "str"
		case []byte:
			return "bytes"
		case []any:
			return "list"
		case *udf.Map:
			return "dict"
		case time.Time:
			return "datetime"
		case other:
			return x.name
		}
		return fmt.Sprintf("%T", v)
	},
}

// sortedMap converts a Go map to a *udf.Map with sorted keys.
func sortedMap(m map[string]any) *udf.Map {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &udf.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
	for i, k := range keys {
		out.Keys[i], out.Values[i] = k, m[k]
	}
	return out
}
