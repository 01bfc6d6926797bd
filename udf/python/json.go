package python

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-python/gpython/py"
)

// The json module for UDFs: loads(s) and dumps(obj, indent=None,
// sort_keys=False, ensure_ascii=True, separators=None). Objects become
// dicts (str keys), arrays lists, integers int, other numbers float.
// gpython dicts do not keep insertion order, so dumps always writes keys
// in sorted order.

func init() {
	py.RegisterModule(&py.ModuleImpl{
		Info: py.ModuleInfo{Name: "json", Doc: "JSON encoding and decoding (tablerun UDF subset)"},
		Methods: []*py.Method{
			py.MustNewMethod("loads", jsonLoads, 0, "loads(s) -> object"),
			py.MustNewMethod("dumps", jsonDumps, 0, "dumps(obj, indent=None, sort_keys=False, ensure_ascii=True, separators=None) -> str"),
		},
	})
}

func jsonLoads(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
	if len(args) != 1 {
		return nil, py.ExceptionNewf(py.TypeError, "loads() takes exactly one argument (%d given)", len(args))
	}
	var data []byte
	switch x := args[0].(type) {
	case py.String:
		data = []byte(x)
	case py.Bytes:
		data = []byte(x)
	default:
		return nil, py.ExceptionNewf(py.TypeError, "the JSON object must be str or bytes, not %s", x.Type().Name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, py.ExceptionNewf(py.ValueError, "Expecting value: %v", err)
	}
	if dec.More() {
		return nil, py.ExceptionNewf(py.ValueError, "Extra data")
	}
	return jsonToPy(v)
}

func jsonToPy(v any) (py.Object, error) {
	switch x := v.(type) {
	case nil:
		return py.None, nil
	case bool:
		return py.Bool(x), nil
	case string:
		return py.String(x), nil
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return py.Int(i), nil
			}
			if b, ok := new(big.Int).SetString(s, 10); ok {
				return (*py.BigInt)(b), nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, py.ExceptionNewf(py.ValueError, "bad number %s", s)
		}
		return py.Float(f), nil
	case []any:
		items := make([]py.Object, len(x))
		for i, e := range x {
			o, err := jsonToPy(e)
			if err != nil {
				return nil, err
			}
			items[i] = o
		}
		return py.NewListFromItems(items), nil
	case map[string]any:
		d := py.NewStringDictSized(len(x))
		for k, e := range x {
			o, err := jsonToPy(e)
			if err != nil {
				return nil, err
			}
			d[k] = o
		}
		return d, nil
	}
	return nil, py.ExceptionNewf(py.ValueError, "unexpected JSON value")
}

type jsonOpts struct {
	indent    string
	useIndent bool
	asciiOnly bool
	itemSep   string
	keySep    string
}

func jsonDumps(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
	if len(args) != 1 {
		return nil, py.ExceptionNewf(py.TypeError, "dumps() takes exactly one positional argument (%d given)", len(args))
	}
	o := jsonOpts{asciiOnly: true, itemSep: ", ", keySep: ": "}
	for k, v := range kwargs {
		switch k {
		case "indent":
			switch x := v.(type) {
			case py.Int:
				o.indent, o.useIndent = strings.Repeat(" ", int(x)), true
			case py.String:
				o.indent, o.useIndent = string(x), true
			case py.NoneType:
			default:
				return nil, py.ExceptionNewf(py.TypeError, "indent must be int or str")
			}
		case "sort_keys":
			// keys are always sorted
		case "ensure_ascii":
			o.asciiOnly = v == py.True
		case "separators":
			t, ok := v.(py.Tuple)
			if !ok || len(t) != 2 {
				return nil, py.ExceptionNewf(py.TypeError, "separators must be a (item_separator, key_separator) tuple")
			}
			a, ok1 := t[0].(py.String)
			b, ok2 := t[1].(py.String)
			if !ok1 || !ok2 {
				return nil, py.ExceptionNewf(py.TypeError, "separators must be strings")
			}
			o.itemSep, o.keySep = string(a), string(b)
		default:
			return nil, py.ExceptionNewf(py.TypeError, "dumps() got an unexpected keyword argument '%s'", k)
		}
	}
	if o.useIndent {
		if _, ok := kwargs["separators"]; !ok {
			o.itemSep = ","
		}
	}
	var b strings.Builder
	if err := o.write(&b, args[0], 0); err != nil {
		return nil, err
	}
	return py.String(b.String()), nil
}

func (o *jsonOpts) newline(b *strings.Builder, depth int) {
	if o.useIndent {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(o.indent, depth))
	}
}

func (o *jsonOpts) write(b *strings.Builder, v py.Object, depth int) error {
	if depth > 200 {
		return py.ExceptionNewf(py.ValueError, "Circular reference detected")
	}
	switch x := v.(type) {
	case py.NoneType:
		b.WriteString("null")
	case py.Bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case py.Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case *py.BigInt:
		b.WriteString((*big.Int)(x).String())
	case py.Float:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			s, err := py.ReprAsString(x)
			if err != nil {
				return err
			}
			b.WriteString(s)
		}
	case py.String:
		o.writeString(b, string(x))
	case *py.List:
		return o.writeSeq(b, x.Items, depth)
	case py.Tuple:
		return o.writeSeq(b, x, depth)
	case py.StringDict:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			o.newline(b, depth+1)
			o.writeString(b, k)
			b.WriteString(o.keySep)
			if err := o.write(b, x[k], depth+1); err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			o.newline(b, depth)
		}
		b.WriteByte('}')
	default:
		return py.ExceptionNewf(py.TypeError, "Object of type %s is not JSON serializable", v.Type().Name)
	}
	return nil
}

func (o *jsonOpts) writeSeq(b *strings.Builder, items []py.Object, depth int) error {
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(o.itemSep)
		}
		o.newline(b, depth+1)
		if err := o.write(b, it, depth+1); err != nil {
			return err
		}
	}
	if len(items) > 0 {
		o.newline(b, depth)
	}
	b.WriteByte(']')
	return nil
}

func (o *jsonOpts) writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (o.asciiOnly && r > 0x7f):
			if r > 0xffff {
				r -= 0x10000
				b.WriteString(`\u` + hex4(0xd800+(r>>10)) + `\u` + hex4(0xdc00+(r&0x3ff)))
			} else {
				b.WriteString(`\u` + hex4(r))
			}
		default:
			if r == utf8.RuneError {
				b.WriteString(`\ufffd`)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
