package function

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tablerun/tablerun/core/types"
)

// JSON functions with Flink's semantics (Calcite's JsonFunctions):
//
//   - JSON_VALUE(json, path) → STRING; the extended form the validator
//     builds for the keyword clauses is JSON_VALUE(json, path, onEmpty,
//     emptyDefault, onError, errorDefault) where onEmpty / onError are
//     STRING literals 'NULL', 'ERROR' or 'DEFAULT' and the defaults are of
//     the result type (the validator sets Call.T to the RETURNING type;
//     Eval casts the extracted text to it).
//   - JSON_QUERY(json, path) → STRING; extended form JSON_QUERY(json, path,
//     wrapper, onEmpty, onError) with wrapper 'WITHOUT ARRAY',
//     'WITH CONDITIONAL ARRAY' or 'WITH UNCONDITIONAL ARRAY' and the
//     behaviours 'NULL', 'ERROR', 'EMPTY ARRAY' or 'EMPTY OBJECT'.
//   - JSON_EXISTS(json, path[, onError]) → BOOLEAN with onError 'TRUE',
//     'FALSE' (the default), 'UNKNOWN' or 'ERROR'.
//   - "IS JSON", "IS JSON VALUE", "IS JSON SCALAR", "IS JSON ARRAY",
//     "IS JSON OBJECT" and their "IS NOT JSON …" forms → BOOLEAN NOT NULL.
//   - JSON_OBJECT(k1, v1, …) (NULL ON NULL), JSON_ARRAY(v…) (ABSENT ON
//     NULL) and the validator's "$JSON_OBJECT" / "$JSON_ARRAY" forms (see
//     registerJSON) → STRING NOT NULL.
//   - JSON_STRING(value) → STRING.
//
// Paths follow SQL/JSON in lax (default) or strict mode, the subset Flink
// supports: '$', '.key', '.*', '[''key'']', '["key"]', '[n]', '[*]'.

// jsonObject is a parsed JSON object keeping its key order.
type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) get(k string) (any, bool) {
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// jsonNull stands for a JSON null inside parsed documents (nil means "no
// value").
type jsonNullT struct{}

var jsonNull = jsonNullT{}

// parseJSON parses one JSON document: values are jsonNull, bool,
// json.Number, string, []any and *jsonObject.
func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := parseJSONValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func parseJSONValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			o := &jsonObject{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseJSONValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", x)
	case nil:
		return jsonNull, nil
	}
	return t, nil
}

// writeJSONString appends s as a JSON string literal (no HTML escaping,
// as Jackson writes it).
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else if r == utf8.RuneError {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// writeJSON serializes a parsed value compactly.
func writeJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case jsonNullT, nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(string(x))
	case jsonRaw:
		b.WriteString(string(x))
	case string:
		writeJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			writeJSON(b, x.vals[i])
		}
		b.WriteByte('}')
	default:
		writeJSONString(b, fmt.Sprint(x))
	}
}

func jsonText(v any) string {
	var b bytes.Buffer
	writeJSON(&b, v)
	return b.String()
}

// jsonRaw is already-serialized JSON text.
type jsonRaw string

// jsonPathStep is one accessor of a path.
type jsonPathStep struct {
	kind  byte // 'k' member, 'i' index, '*' wildcard
	key   string
	index int
}

// jsonPath is a parsed SQL/JSON path.
type jsonPath struct {
	strict bool
	steps  []jsonPathStep
}

// errJSONPath reports an invalid path expression.
func errJSONPath(p, why string) error {
	return fmt.Errorf("Illegal jsonpath spec: %s, %s", p, why)
}

func parseJSONPath(p string) (*jsonPath, error) {
	s := strings.TrimSpace(p)
	jp := &jsonPath{}
	low := strings.ToLower(s)
	switch {
	case strings.HasPrefix(low, "strict ") || strings.HasPrefix(low, "strict$"):
		jp.strict = true
		s = strings.TrimSpace(s[len("strict"):])
	case strings.HasPrefix(low, "lax ") || strings.HasPrefix(low, "lax$"):
		s = strings.TrimSpace(s[len("lax"):])
	}
	if !strings.HasPrefix(s, "$") {
		return nil, errJSONPath(p, "the path must start with '$'")
	}
	i := 1
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ':
			i++
		case c == '.':
			i++
			if i < len(s) && s[i] == '[' {
				continue
			}
			if i < len(s) && s[i] == '*' {
				jp.steps = append(jp.steps, jsonPathStep{kind: '*'})
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ' ' {
				j++
			}
			if j == i {
				return nil, errJSONPath(p, "empty member name")
			}
			jp.steps = append(jp.steps, jsonPathStep{kind: 'k', key: s[i:j]})
			i = j
		case c == '[':
			end := strings.IndexByte(s[i:], ']')
			in := ""
			if end > 0 {
				in = strings.TrimSpace(s[i+1 : i+end])
			}
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') {
				q := in[0]
				// find the closing quote (doubled quotes escape it)
				j := i + 1
				for j < len(s) && s[j] == ' ' {
					j++
				}
				j++
				var key strings.Builder
				for {
					if j >= len(s) {
						return nil, errJSONPath(p, "unterminated quoted member name")
					}
					if s[j] == q {
						if j+1 < len(s) && s[j+1] == q {
							key.WriteByte(q)
							j += 2
							continue
						}
						break
					}
					key.WriteByte(s[j])
					j++
				}
				j++
				for j < len(s) && s[j] == ' ' {
					j++
				}
				if j >= len(s) || s[j] != ']' {
					return nil, errJSONPath(p, "expected ']'")
				}
				jp.steps = append(jp.steps, jsonPathStep{kind: 'k', key: key.String()})
				i = j + 1
				continue
			}
			if end < 0 {
				return nil, errJSONPath(p, "expected ']'")
			}
			if in == "*" {
				jp.steps = append(jp.steps, jsonPathStep{kind: '*'})
			} else {
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 {
					return nil, errJSONPath(p, fmt.Sprintf("invalid array index %q", in))
				}
				jp.steps = append(jp.steps, jsonPathStep{kind: 'i', index: n})
			}
			i += end + 1
		default:
			return nil, errJSONPath(p, fmt.Sprintf("unexpected %q at position %d", c, i))
		}
	}
	return jp, nil
}

// indefinite reports whether the path may select several items.
func (jp *jsonPath) indefinite() bool {
	for _, s := range jp.steps {
		if s.kind == '*' {
			return true
		}
	}
	return false
}

// eval applies the path. For a definite path it returns the selected item
// (found false when there is none); for an indefinite path a []any of every
// selected item (always found). Strict mode reports structural errors.
func (jp *jsonPath) eval(doc any) (any, bool, error) {
	cur := []any{doc}
	for _, st := range jp.steps {
		var next []any
		for _, n := range cur {
			switch st.kind {
			case 'k':
				o, ok := n.(*jsonObject)
				if !ok {
					if jp.strict {
						return nil, false, fmt.Errorf("No results for path: $['%s']", st.key)
					}
					continue
				}
				v, ok := o.get(st.key)
				if !ok {
					if jp.strict {
						return nil, false, fmt.Errorf("No results for path: $['%s']", st.key)
					}
					continue
				}
				next = append(next, v)
			case 'i':
				a, ok := n.([]any)
				if !ok || st.index >= len(a) {
					if jp.strict {
						return nil, false, fmt.Errorf("No results for path: $[%d]", st.index)
					}
					continue
				}
				next = append(next, a[st.index])
			case '*':
				switch x := n.(type) {
				case []any:
					next = append(next, x...)
				case *jsonObject:
					next = append(next, x.vals...)
				default:
					if jp.strict {
						return nil, false, errors.New("wildcard on a scalar")
					}
				}
			}
		}
		cur = next
	}
	if jp.indefinite() {
		if cur == nil {
			cur = []any{}
		}
		return cur, true, nil
	}
	if len(cur) == 0 {
		return nil, false, nil
	}
	return cur[0], true, nil
}

// jsonLookup parses the document and applies the path: (item, found,
// error).
func jsonLookup(doc, path string) (any, bool, error) {
	jp, err := parseJSONPathCached(path)
	if err != nil {
		return nil, false, err
	}
	if !jp.indefinite() && jsonValid(doc) { // json_lazy.go
		return jp.lazyEval(doc)
	}
	v, err := parseJSON(doc)
	if err != nil {
		return nil, false, fmt.Errorf("Invalid JSON text: %w", err)
	}
	return jp.eval(v)
}

func jsonArgString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// jsonInputText renders a non-string JSON input (JSON_QUERY(1, '$')) as
// its text.
func jsonInputText(v any, t types.Type) string {
	if s, ok := v.(string); ok {
		return s
	}
	return types.FormatValue(v, t, nil)
}

func aJSONIn(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.StringT, true
	}
	return t, t.IsString() || t.IsNumeric() || t.Kind == types.Boolean
}

func registerJSON(r *Registry) {
	r.Register(&Definition{Name: "JSON_VALUE",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 && len(args) != 6 {
				return types.Type{}, nil, arityError("JSON_VALUE", len(args))
			}
			for _, a := range args[:2] {
				if _, ok := aJSONIn(a); !ok {
					return types.Type{}, nil, CallError("JSON_VALUE", args)
				}
			}
			return types.StringT, nil, nil
		},
		Eval: evalJSONValue,
		Doc: Doc{Summary: "Extracts a scalar from a JSON string (NULL ON EMPTY and NULL ON ERROR by default).",
			Args: "jsonValue, path [RETURNING type] [{NULL | ERROR | DEFAULT expr} ON EMPTY] [{NULL | ERROR | DEFAULT expr} ON ERROR]", Example: `JSON_VALUE('{"a": true}', '$.a') → 'true'`}})
	r.Register(&Definition{Name: "JSON_QUERY",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 && len(args) != 5 {
				return types.Type{}, nil, arityError("JSON_QUERY", len(args))
			}
			for _, a := range args[:2] {
				if _, ok := aJSONIn(a); !ok {
					return types.Type{}, nil, CallError("JSON_QUERY", args)
				}
			}
			return types.StringT, nil, nil
		},
		Eval: evalJSONQuery,
		Doc: Doc{Summary: "Extracts JSON values (an object or array) from a JSON string.",
			Args: "jsonValue, path [{WITHOUT | WITH CONDITIONAL | WITH UNCONDITIONAL} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [… ON ERROR]", Example: `JSON_QUERY('{"a": {"b": 1}}', '$.a') → '{"b":1}'`}})
	r.Register(&Definition{Name: "JSON_EXISTS",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 2 && len(args) != 3 {
				return types.Type{}, nil, arityError("JSON_EXISTS", len(args))
			}
			for _, a := range args[:2] {
				if _, ok := aJSONIn(a); !ok {
					return types.Type{}, nil, CallError("JSON_EXISTS", args)
				}
			}
			return types.BooleanT, nil, nil
		},
		Eval: evalJSONExists,
		Doc: Doc{Summary: "Whether a JSON string satisfies a path (FALSE ON ERROR by default).",
			Args: "jsonValue, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR]", Example: `JSON_EXISTS('{"a": true}', '$.a') → TRUE`}})
	for _, test := range []string{"", " VALUE", " SCALAR", " ARRAY", " OBJECT"} {
		for _, not := range []bool{false, true} {
			name := "IS JSON" + test
			if not {
				name = "IS NOT JSON" + test
			}
			test, not := strings.TrimSpace(test), not
			r.Register(&Definition{Name: name,
				Infer: func(args []types.Type) (types.Type, []types.Type, error) {
					if len(args) != 1 {
						return types.Type{}, nil, arityError(name, len(args))
					}
					if _, ok := aStr(args[0]); !ok {
						return types.Type{}, nil, CallError(name, args)
					}
					return types.BooleanT.WithNullable(false), nil, nil
				},
				Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
					s, ok := jsonArgString(a[0])
					if !ok {
						return not, nil
					}
					return isJSON(s, test) != not, nil
				},
				Doc: Doc{Summary: "Whether a string is valid JSON (of the given kind); IS JSON is FALSE for NULL, IS NOT JSON TRUE.",
					Args: "string", Example: "'[1]' " + name + " → " + strings.ToUpper(strconv.FormatBool(isJSON("[1]", test) != not))}})
		}
	}
	// JSON_OBJECT(k1, v1, …) is NULL ON NULL, JSON_ARRAY(v…) ABSENT ON
	// NULL. The validator's forms with clauses are "$JSON_OBJECT"(onNull,
	// raw, k1, v1, …) and "$JSON_ARRAY"(onNull, raw, v…): onNull a STRING
	// literal 'NULL' or 'ABSENT', raw a STRING literal with one '1' per
	// value that is the result of a nested JSON_OBJECT / JSON_ARRAY call
	// (inserted as JSON, not as a string) and '0' for the others.
	constructor := func(name string, object, internal, absentDefault bool) {
		r.Register(&Definition{Name: name,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				vals := args
				if internal {
					if len(args) < 2 {
						return types.Type{}, nil, arityError(name, len(args))
					}
					vals = args[2:]
				}
				if object {
					if len(vals)%2 != 0 {
						return types.Type{}, nil, arityError(name, len(args))
					}
					for i := 0; i < len(vals); i += 2 {
						if _, ok := aStr(vals[i]); !ok {
							return types.Type{}, nil, CallError(name, args)
						}
					}
				}
				return types.StringT.WithNullable(false), nil, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				absent, raw, argT := absentDefault, "", ct.Args
				if internal {
					absent = jsonBehavior(a, 0) == "ABSENT"
					raw, _ = a[1].(string)
					a, argT = a[2:], argT[2:]
				}
				step := 1
				if object {
					step = 2
				}
				var b bytes.Buffer
				if object {
					b.WriteByte('{')
				} else {
					b.WriteByte('[')
				}
				n := 0
				for i := 0; i+step-1 < len(a); i += step {
					vi := i + step - 1
					if a[vi] == nil && absent {
						continue
					}
					if n > 0 {
						b.WriteByte(',')
					}
					n++
					if object {
						k, ok := a[i].(string)
						if !ok {
							return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "JSON_OBJECT: a key must not be NULL"}
						}
						writeJSONString(&b, k)
						b.WriteByte(':')
					}
					if k := vi / step; k < len(raw) && raw[k] == '1' {
						if s, ok := a[vi].(string); ok {
							b.WriteString(s)
							continue
						}
					}
					writeSQLAsJSON(&b, a[vi], argT[vi])
				}
				if object {
					b.WriteByte('}')
				} else {
					b.WriteByte(']')
				}
				return b.String(), nil
			},
			Doc: map[bool]Doc{
				true: {Summary: "Builds a JSON object string from key-value pairs (NULL ON NULL by default); nested JSON_OBJECT / JSON_ARRAY values are inserted as JSON.",
					Args: "[KEY] key VALUE value, … [{NULL | ABSENT} ON NULL]", Example: `JSON_OBJECT(KEY 'K1' VALUE 'V1') → '{"K1":"V1"}'`},
				false: {Summary: "Builds a JSON array string from values (ABSENT ON NULL by default).",
					Args: "value, … [{NULL | ABSENT} ON NULL]", Example: `JSON_ARRAY(1, 'a') → '[1,"a"]'`},
			}[object]})
	}
	constructor("JSON_OBJECT", true, false, false)
	constructor("$JSON_OBJECT", true, true, false)
	constructor("JSON_ARRAY", false, false, true)
	constructor("$JSON_ARRAY", false, true, true)
	r.Register(&Definition{Name: "JSON_STRING", NullOnNull: true,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 1 {
				return types.Type{}, nil, arityError("JSON_STRING", len(args))
			}
			return types.StringT.WithNullable(args[0].Nullable() || args[0].Kind == types.Null), nil, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			var b bytes.Buffer
			writeSQLAsJSON(&b, a[0], ct.Args[0])
			return b.String(), nil
		},
		Doc: Doc{Summary: "Serializes a value into JSON; NULL for NULL.", Args: "value", Example: `JSON_STRING('a') → '"a"'`}})
}

// writeSQLAsJSON serializes a SQL value of type t as JSON.
func writeSQLAsJSON(b *bytes.Buffer, v any, t types.Type) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch t.Kind {
	case types.Boolean:
		b.WriteString(strconv.FormatBool(v == true))
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Decimal:
		b.WriteString(types.FormatValue(v, t, nil))
	case types.Float, types.Double:
		f, _ := toFloat64(v, t)
		b.WriteString(types.FormatJava(f, types.DoubleT))
	case types.Array:
		xs, _ := v.([]any)
		b.WriteByte('[')
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeSQLAsJSON(b, x, *t.Elem)
		}
		b.WriteByte(']')
	case types.Map:
		m, _ := v.(*types.MapValue)
		b.WriteByte('{')
		if m != nil {
			for i, k := range m.Keys {
				if i > 0 {
					b.WriteByte(',')
				}
				if ks, ok := k.(string); ok {
					writeJSONString(b, ks)
				} else {
					writeJSONString(b, types.FormatValue(k, *t.Elem, nil))
				}
				b.WriteByte(':')
				writeSQLAsJSON(b, m.Values[i], *t.Value)
			}
		}
		b.WriteByte('}')
	case types.Row:
		xs, _ := v.([]any)
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, f.Name)
			b.WriteByte(':')
			var x any
			if i < len(xs) {
				x = xs[i]
			}
			writeSQLAsJSON(b, x, f.Type)
		}
		b.WriteByte('}')
	default:
		if s, ok := v.(string); ok {
			writeJSONString(b, s)
			return
		}
		writeJSONString(b, types.FormatValue(v, t, nil))
	}
}

// isJSON implements IS JSON [VALUE | SCALAR | ARRAY | OBJECT].
func isJSON(s, test string) bool {
	v, err := parseJSON(s)
	if err != nil {
		return false
	}
	switch test {
	case "SCALAR":
		switch v.(type) {
		case []any, *jsonObject:
			return false
		}
		return true
	case "ARRAY":
		_, ok := v.([]any)
		return ok
	case "OBJECT":
		_, ok := v.(*jsonObject)
		return ok
	}
	return true
}

// jsonBehavior reads the literal behaviour argument i ("" when absent).
func jsonBehavior(a []any, i int) string {
	if i < len(a) {
		if s, ok := a[i].(string); ok {
			return strings.ToUpper(s)
		}
	}
	return ""
}

func evalJSONValue(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	onEmpty, onError := jsonBehavior(a, 2), jsonBehavior(a, 4)
	fail := func(err error) (any, error) {
		switch onError {
		case "ERROR":
			return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "JSON_VALUE: " + err.Error()}
		case "DEFAULT":
			return a[5], nil
		}
		return nil, nil
	}
	path, _ := jsonArgString(a[1])
	v, found, err := jsonLookup(jsonInputText(a[0], ct.Args[0]), path)
	if err != nil {
		return fail(err)
	}
	if !found || v == jsonNull {
		switch onEmpty {
		case "ERROR":
			return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "Empty result of JSON_VALUE function is not allowed"}
		case "DEFAULT":
			return a[3], nil
		}
		return nil, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case bool:
		s = strconv.FormatBool(x)
	case json.Number:
		s = string(x)
	default:
		return fail(fmt.Errorf("Strict jsonpath mode requires scalar value, and the actual value is: '%s'", jsonText(v)))
	}
	if ct.Result.Kind == types.VarChar || ct.Result.Kind == types.Char || ct.Result.Kind == types.Null {
		return s, nil
	}
	out, err := CastValue(ctx, s, types.StringT, ct.Result)
	if err != nil {
		return fail(err)
	}
	return out, nil
}

func evalJSONQuery(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	wrapper, onEmpty, onError := jsonBehavior(a, 2), jsonBehavior(a, 3), jsonBehavior(a, 4)
	behave := func(kind string, err error) (any, error) {
		switch kind {
		case "ERROR":
			return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "JSON_QUERY: " + err.Error()}
		case "EMPTY ARRAY":
			return "[]", nil
		case "EMPTY OBJECT":
			return "{}", nil
		}
		return nil, nil
	}
	path, _ := jsonArgString(a[1])
	v, found, err := jsonLookup(jsonInputText(a[0], ct.Args[0]), path)
	if err != nil {
		return behave(onError, err)
	}
	if !found || v == jsonNull {
		if onEmpty == "ERROR" {
			return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "Empty result of JSON_QUERY function is not allowed"}
		}
		return behave(onEmpty, errors.New("empty result"))
	}
	_, isArr := v.([]any)
	_, isObj := v.(*jsonObject)
	switch wrapper {
	case "WITH UNCONDITIONAL ARRAY":
		v = []any{v}
	case "WITH CONDITIONAL ARRAY":
		if !isArr {
			v = []any{v}
		}
	default:
		if !isArr && !isObj {
			return behave(onError, fmt.Errorf("Strict jsonpath mode requires array or object value, and the actual value is: '%s'", jsonText(v)))
		}
	}
	return jsonText(v), nil
}

func evalJSONExists(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	path, _ := jsonArgString(a[1])
	v, found, err := jsonLookup(jsonInputText(a[0], ct.Args[0]), path)
	if err != nil {
		switch jsonBehavior(a, 2) {
		case "TRUE":
			return true, nil
		case "UNKNOWN":
			return nil, nil
		case "ERROR":
			return nil, &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: "JSON_EXISTS: " + err.Error()}
		}
		return false, nil
	}
	if xs, ok := v.([]any); ok && found && len(xs) == 0 {
		if jp, err := parseJSONPath(path); err == nil && jp.indefinite() {
			return false, nil
		}
	}
	return found && v != jsonNull, nil
}
