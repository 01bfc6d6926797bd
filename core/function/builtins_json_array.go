package function

import (
	"errors"
	"fmt"
	"strconv"

	"encoding/json"

	"github.com/tablerun/tablerun/core/types"
)

// $JSON_QUERY_ARRAY(json, path, wrapper, onEmpty, onError) is
// JSON_QUERY(json, path RETURNING ARRAY<STRING> …) (planner/validate/
// json.go binds it): the selected JSON array as an ARRAY<STRING>, as
// Flink's SqlJsonUtils.jsonQuery with return type ARRAY does — string
// and other scalar elements as their value's text, objects and arrays as
// JSON text, JSON nulls as NULL elements. A selected object is an error;
// EMPTY ARRAY gives an empty array, EMPTY OBJECT is not allowed.
func registerJSONQueryArray(r *Registry) {
	r.Register(&Definition{Name: "$JSON_QUERY_ARRAY",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 5 {
				return types.Type{}, nil, arityError("JSON_QUERY", len(args))
			}
			for _, a := range args[:2] {
				if _, ok := aJSONIn(a); !ok {
					return types.Type{}, nil, CallError("JSON_QUERY", args)
				}
			}
			return types.ArrayOf(types.StringT), nil, nil
		},
		Eval: evalJSONQueryArray,
		Doc: Doc{Summary: "Internal: JSON_QUERY … RETURNING ARRAY<STRING>, the selected JSON array as an array of strings.",
			Args: "jsonValue, path, wrapper, onEmpty, onError", Example: `JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>) → ['c1', 'c2']`}})
}

func evalJSONQueryArray(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil
	}
	wrapper, onEmpty, onError := jsonBehavior(a, 2), jsonBehavior(a, 3), jsonBehavior(a, 4)
	rtErr := func(msg string) error {
		return &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException", Msg: msg}
	}
	behave := func(kind string, err error, what string) (any, error) {
		switch kind {
		case "ERROR":
			if what == "empty" {
				return nil, rtErr("Empty result of JSON_QUERY function is not allowed")
			}
			return nil, rtErr("JSON_QUERY: " + err.Error())
		case "EMPTY ARRAY":
			return []any{}, nil
		case "EMPTY OBJECT":
			return nil, rtErr(fmt.Sprintf("Illegal %s behavior '%s' specified in JSON_QUERY function", map[string]string{"empty": "empty", "error": "error"}[what], "EMPTY_OBJECT"))
		}
		return nil, nil
	}
	path, _ := jsonArgString(a[1])
	jp, perr := parseJSONPathCached(path)
	v, found, err := jsonLookup(jsonInputText(a[0], ct.Args[0]), path)
	if err != nil || perr != nil {
		if err == nil {
			err = perr
		}
		return behave(onError, err, "error")
	}
	if !found || v == jsonNull {
		return behave(onEmpty, errors.New("empty result"), "empty")
	}
	_, isArr := v.([]any)
	_, isObj := v.(*jsonObject)
	switch wrapper {
	case "WITH UNCONDITIONAL ARRAY":
		v, isArr, isObj = []any{v}, true, false
	case "WITH CONDITIONAL ARRAY":
		if !isArr {
			v, isArr, isObj = []any{v}, true, false
		}
	}
	if !isArr && !isObj {
		if jp.strict {
			return behave(onError, fmt.Errorf("Strict jsonpath mode requires array or object value, and the actual value is: '%s'", jsonScalarText(v)), "error")
		}
		return behave(onEmpty, errors.New("empty result"), "empty")
	}
	list, ok := v.([]any)
	if !ok {
		return behave(onError, fmt.Errorf("class java.util.LinkedHashMap cannot be cast to class java.util.List"), "error")
	}
	out := make([]any, len(list))
	for i, el := range list {
		switch x := el.(type) {
		case jsonNullT:
			out[i] = nil
		case []any, *jsonObject:
			out[i] = jsonText(x)
		default:
			out[i] = jsonScalarText(x)
		}
	}
	return out, nil
}

// jsonScalarText is a scalar's text as Java's String.valueOf prints the
// parsed value: strings unquoted, numbers and booleans as written.
func jsonScalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return string(x)
	case jsonNullT:
		return "null"
	}
	return jsonText(v)
}
