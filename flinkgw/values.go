package flinkgw

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/types"
)

// TypeOf converts the gateway's JSON logical type to tablerun's type.
func TypeOf(lt LogicalType) (types.Type, error) {
	var t types.Type
	n := func(p *int, def int) int {
		if p == nil {
			return def
		}
		return *p
	}
	switch lt.Type {
	case "BOOLEAN":
		t = types.BooleanT
	case "TINYINT":
		t = types.TinyIntT
	case "SMALLINT":
		t = types.SmallIntT
	case "INTEGER":
		t = types.IntT
	case "BIGINT":
		t = types.BigIntT
	case "FLOAT":
		t = types.FloatT
	case "DOUBLE":
		t = types.DoubleT
	case "DECIMAL":
		t = types.DecimalOf(n(lt.Precision, 10), n(lt.Scale, 0))
	case "CHAR":
		t = types.CharOf(n(lt.Length, 1))
	case "VARCHAR":
		t = types.VarCharOf(n(lt.Length, 1))
	case "BINARY":
		t = types.Type{Kind: types.Binary, Precision: n(lt.Length, 1)}
	case "VARBINARY":
		t = types.Type{Kind: types.VarBinary, Precision: n(lt.Length, 1)}
	case "DATE":
		t = types.DateT
	case "TIME_WITHOUT_TIME_ZONE":
		t = types.TimeOf(n(lt.Precision, 0))
	case "TIMESTAMP_WITHOUT_TIME_ZONE":
		t = types.TimestampOf(n(lt.Precision, 6))
	case "TIMESTAMP_WITH_LOCAL_TIME_ZONE":
		t = types.TimestampLTZOf(n(lt.Precision, 6))
	case "INTERVAL_DAY_TIME":
		t = types.Type{Kind: types.IntervalDayTime, Precision: n(lt.FractionalPrecision, 6), Scale: n(lt.Precision, 2), Unit: strings.ReplaceAll(lt.Resolution, "_", " ")}
	case "INTERVAL_YEAR_MONTH":
		t = types.Type{Kind: types.IntervalYearMonth, Scale: n(lt.Precision, 2), Unit: strings.ReplaceAll(lt.Resolution, "_", " ")}
	case "NULL":
		t = types.NullType
	case "ARRAY", "MULTISET":
		if lt.ElementType == nil {
			return t, fmt.Errorf("%s without elementType", lt.Type)
		}
		e, err := TypeOf(*lt.ElementType)
		if err != nil {
			return t, err
		}
		if lt.Type == "MULTISET" {
			t = types.MapOf(e, types.IntT.WithNullable(false))
		} else {
			t = types.ArrayOf(e)
		}
	case "MAP":
		if lt.KeyType == nil || lt.ValueType == nil {
			return t, fmt.Errorf("MAP without keyType/valueType")
		}
		k, err := TypeOf(*lt.KeyType)
		if err != nil {
			return t, err
		}
		v, err := TypeOf(*lt.ValueType)
		if err != nil {
			return t, err
		}
		t = types.MapOf(k, v)
	case "ROW":
		var fs []types.Field
		for _, f := range lt.Fields {
			ft, err := TypeOf(f.FieldType)
			if err != nil {
				return t, err
			}
			fs = append(fs, types.Field{Name: f.Name, Type: ft})
		}
		t = types.RowOf(fs...)
	default:
		return t, fmt.Errorf("not supported yet: Flink logical type %s in a result", lt.Type)
	}
	return t.WithNullable(lt.Nullable), nil
}

// Value converts one JSON field of the gateway's rowFormat=JSON (Flink's
// RowData-to-JSON conversion: ISO-8601 date/time strings, base64 binary
// strings, intervals as numbers, ROW as an object by field name, MAP as an
// object or a list of key/value entries) to tablerun's canonical value of
// type t. The gateway writes a TIMESTAMP_LTZ as the wall clock of the
// session's time zone followed by a 'Z': loc is that zone (nil: UTC), so
// that the value is the instant.
func Value(raw json.RawMessage, t types.Type, loc *time.Location) (any, error) {
	if loc == nil {
		loc = time.UTC
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	str := func() (string, error) {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	switch t.Kind {
	case types.Boolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		x, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case types.TinyInt:
			return int8(x), nil
		case types.SmallInt:
			return int16(x), nil
		case types.Int:
			return int32(x), nil
		}
		return x, nil
	case types.Float, types.Double:
		s := string(raw)
		if raw[0] == '"' {
			s, _ = str()
		}
		var f float64
		switch s {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			bits := 64
			if t.Kind == types.Float {
				bits = 32
			}
			var err error
			if f, err = strconv.ParseFloat(s, bits); err != nil {
				return nil, err
			}
		}
		if t.Kind == types.Float {
			return float32(f), nil
		}
		return f, nil
	case types.Decimal:
		s := string(raw)
		if raw[0] == '"' {
			s, _ = str()
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return nil, fmt.Errorf("bad DECIMAL %s", raw)
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
		if !r.IsInt() {
			return nil, fmt.Errorf("DECIMAL %s has more than %d decimals", raw, t.Scale)
		}
		return decimal128.FromBigInt(r.Num()), nil
	case types.Char, types.VarChar:
		return str()
	case types.Binary, types.VarBinary:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(s)
	case types.Date:
		s, err := str()
		if err != nil {
			return nil, err
		}
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, err
		}
		return int32(d.Unix() / 86400), nil
	case types.Time:
		s, err := str()
		if err != nil {
			return nil, err
		}
		d, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return nil, err
		}
		return int32(d.Hour()*3600000 + d.Minute()*60000 + d.Second()*1000 + d.Nanosecond()/1e6), nil
	case types.Timestamp, types.TimestampLTZ:
		s, err := str()
		if err != nil {
			return nil, err
		}
		zone := time.UTC
		if t.Kind == types.TimestampLTZ {
			s, zone = strings.TrimSuffix(s, "Z"), loc
		}
		ts, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, zone)
		if err != nil {
			return nil, err
		}
		if t.Precision > 6 {
			return ts.UnixNano(), nil
		}
		return ts.UnixMicro(), nil
	case types.IntervalDayTime:
		return strconv.ParseInt(string(raw), 10, 64)
	case types.IntervalYearMonth:
		x, err := strconv.ParseInt(string(raw), 10, 32)
		return int32(x), err
	case types.Array:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			v, err := Value(e, *t.Elem, loc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case types.Row:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			var list []json.RawMessage
			if err2 := json.Unmarshal(raw, &list); err2 != nil {
				return nil, err
			}
			obj = map[string]json.RawMessage{}
			for i, f := range t.Fields {
				if i < len(list) {
					obj[f.Name] = list[i]
				}
			}
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v, err := Value(obj[f.Name], f.Type, loc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case types.Map:
		m := &types.MapValue{}
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			var entries []struct {
				Key   json.RawMessage `json:"key"`
				Value json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(raw, &entries); err != nil {
				return nil, err
			}
			for _, e := range entries {
				k, err := Value(e.Key, *t.Elem, loc)
				if err != nil {
					return nil, err
				}
				v, err := Value(e.Value, *t.Value, loc)
				if err != nil {
					return nil, err
				}
				m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
			}
			return m, nil
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			var vraw json.RawMessage
			if err := dec.Decode(&vraw); err != nil {
				return nil, err
			}
			ks, _ := kt.(string)
			kraw := json.RawMessage(strconv.Quote(ks))
			if !t.Elem.IsString() {
				kraw = json.RawMessage(ks)
				if k := t.Elem.Kind; k == types.Date || k == types.Time || k == types.Timestamp || k == types.TimestampLTZ || k == types.Binary || k == types.VarBinary {
					kraw = json.RawMessage(strconv.Quote(ks))
				}
			}
			k, err := Value(kraw, *t.Elem, loc)
			if err != nil {
				return nil, err
			}
			v, err := Value(vraw, *t.Value, loc)
			if err != nil {
				return nil, err
			}
			m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
		}
		return m, nil
	case types.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("not supported yet: JSON values of type %s", t)
}
