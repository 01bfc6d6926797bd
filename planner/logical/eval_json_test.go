package logical_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// jsonValueReturning builds the extended JSON_VALUE call the validator makes
// for RETURNING and ON EMPTY / ON ERROR clauses.
func jsonValueReturning(json, path string, t types.Type, onEmpty string, emptyDef any, onError string, errDef any) evalCase {
	return evalCase{e: func(testing.TB) logical.Expr {
		def, _ := function.Builtin("JSON_VALUE")
		return &logical.Call{Name: "JSON_VALUE", T: t, Def: def, Args: []logical.Expr{
			lit(json), lit(path), lit(onEmpty), typed(emptyDef, t), lit(onError), typed(errDef, t)}}
	}}
}

func TestEvalJSON(t *testing.T) {
	cases := []evalCase{
		c("value bool", "true", "JSON_VALUE", `{"a": true}`, "$.a"),
		c("value missing", "NULL", "JSON_VALUE", `{"a": true}`, "$.b"),
		c("value strict missing", "NULL", "JSON_VALUE", `{"a": true}`, "strict $.b"),
		c("value string", "x y", "JSON_VALUE", `{"a": {"b": "x y"}}`, "$.a.b"),
		c("value number", "0.998", "JSON_VALUE", `{"a.b": [0.998,0.996]}`, `$.["a.b"][0]`),
		c("value quoted key", "right", "JSON_VALUE", `{"contains blank": "right"}`, `strict $.['contains blank']`),
		c("value bracket key", "1", "JSON_VALUE", `{"a": [{"b": 1}]}`, `$['a'][0]['b']`),
		c("value object is error", "NULL", "JSON_VALUE", `{"a": {"b": 1}}`, "$.a"),
		c("value json null", "NULL", "JSON_VALUE", `{"a": null}`, "$.a"),
		c("value invalid json", "NULL", "JSON_VALUE", `{"a": `, "$.a"),
		c("value invalid path", "NULL", "JSON_VALUE", `{"a": 1}`, "a"),
		c("value null input", "NULL", "JSON_VALUE", nil, "$.a"),
		c("value root scalar", "12", "JSON_VALUE", `12`, "$"),
		c("value escaped", "a\"b", "JSON_VALUE", `{"k": "a\"b"}`, "$.k"),
		c("value index out of range", "NULL", "JSON_VALUE", `[1, 2]`, "$[5]"),
		c("value wildcard is error", "NULL", "JSON_VALUE", `[1, 2]`, "$[*]"),

		c("query object", `{"b":1}`, "JSON_QUERY", `{ "a": { "b": 1 } }`, "$.a"),
		c("query array", `[1,2]`, "JSON_QUERY", `[1, 2]`, "$"),
		c("query null", "NULL", "JSON_QUERY", nil, "$"),
		c("query wildcard", `["c1","c2"]`, "JSON_QUERY", `{"a":[{"c":"c1"},{"c":"c2"}]}`, "lax $.a[*].c"),
		c("query scalar is error", "NULL", "JSON_QUERY", `{"a": 1}`, "$.a"),
		c("query keeps key order", `{"z":1,"a":[true,null,"x"]}`, "JSON_QUERY", `{"z": 1, "a": [true, null, "x"]}`, "$"),
		c("query scalar input", "NULL", "JSON_QUERY", 1, "$"),
		c("query conditional wrapper", "[{}]", "JSON_QUERY", `{}`, "$", "WITH CONDITIONAL ARRAY", "NULL", "NULL"),
		c("query conditional wrapper array", "[1,2]", "JSON_QUERY", `[1, 2]`, "$", "WITH CONDITIONAL ARRAY", "NULL", "NULL"),
		c("query unconditional wrapper", "[[1,2]]", "JSON_QUERY", `[1, 2]`, "$", "WITH UNCONDITIONAL ARRAY", "NULL", "NULL"),
		c("query wrapped scalar", "[1]", "JSON_QUERY", 1, "$", "WITH CONDITIONAL ARRAY", "NULL", "NULL"),
		c("query empty object on empty", "{}", "JSON_QUERY", `{}`, "lax $.invalid", "WITHOUT ARRAY", "EMPTY OBJECT", "NULL"),
		c("query empty array on error", "[]", "JSON_QUERY", `{}`, "strict $.invalid", "WITHOUT ARRAY", "NULL", "EMPTY ARRAY"),
		cErr("query error on error", "JSON_QUERY", "JSON_QUERY", `{}`, "strict $.invalid", "WITHOUT ARRAY", "NULL", "ERROR"),

		c("exists", "TRUE", "JSON_EXISTS", `{"a": true}`, "$.a"),
		c("exists missing", "FALSE", "JSON_EXISTS", `{"a": true}`, "$.b"),
		c("exists nested", "TRUE", "JSON_EXISTS", `{"a": [{ "b": 1 }]}`, "$.a[0].b"),
		c("exists empty array", "TRUE", "JSON_EXISTS", `{"a": []}`, "$.a"),
		c("exists wildcard none", "FALSE", "JSON_EXISTS", `{"a": []}`, "$.a[*]"),
		c("exists strict true on error", "TRUE", "JSON_EXISTS", `{"a": true}`, "strict $.b", "TRUE"),
		c("exists strict false on error", "FALSE", "JSON_EXISTS", `{"a": true}`, "strict $.b", "FALSE"),
		c("exists strict unknown on error", "NULL", "JSON_EXISTS", `{"a": true}`, "strict $.b", "UNKNOWN"),
		cErr("exists strict error on error", "JSON_EXISTS", "JSON_EXISTS", `{"a": true}`, "strict $.b", "ERROR"),
		c("exists null", "NULL", "JSON_EXISTS", nil, "$.a"),

		c("is json scalar", "TRUE", "IS JSON", "1"),
		c("is json bad", "FALSE", "IS JSON", "{"),
		c("is json null", "FALSE", "IS JSON", nil),
		c("is not json null", "TRUE", "IS NOT JSON", nil),
		c("is json value", "TRUE", "IS JSON VALUE", `"a"`),
		c("is json object", "TRUE", "IS JSON OBJECT", `{"a": 1}`),
		c("is json object of array", "FALSE", "IS JSON OBJECT", `[1]`),
		c("is json array", "TRUE", "IS JSON ARRAY", `[1]`),
		c("is json scalar kind", "TRUE", "IS JSON SCALAR", `true`),
		c("is json scalar of object", "FALSE", "IS JSON SCALAR", `{}`),
		c("is not json array", "TRUE", "IS NOT JSON ARRAY", `{}`),
		c("trailing garbage", "FALSE", "IS JSON", `{} x`),

		c("object", `{"K1":"V1","K2":1,"K3":null}`, "JSON_OBJECT", "K1", "V1", "K2", 1, "K3", nil),
		c("object absent", `{"K1":"V1"}`, "$JSON_OBJECT", "ABSENT", "00", "K1", "V1", "K3", nil),
		c("object raw", `{"K1":{"a":1},"K2":"{\"a\":1}"}`, "$JSON_OBJECT", "NULL", "10", "K1", `{"a":1}`, "K2", `{"a":1}`),
		c("object empty", `{}`, "JSON_OBJECT"),
		c("object escapes", `{"a\"b":"x\ny"}`, "JSON_OBJECT", `a"b`, "x\ny"),
		c("array", `[1,"a",true]`, "JSON_ARRAY", 1, "a", true),
		c("array absent", `[1]`, "JSON_ARRAY", 1, nil),
		c("array null on null", `[1,null]`, "$JSON_ARRAY", "NULL", "00", 1, nil),
		c("array raw", `[[1],"[1]"]`, "$JSON_ARRAY", "ABSENT", "10", "[1]", "[1]"),
		c("array empty", `[]`, "JSON_ARRAY"),

		c("string int", "1", "JSON_STRING", 1),
		c("string bool", "true", "JSON_STRING", true),
		c("string text", `"Hello, World!"`, "JSON_STRING", "Hello, World!"),
		c("string double", "1.5", "JSON_STRING", 1.5),
		c("string null", "NULL", "JSON_STRING", nil),
		{name: "string array", want: "[1,2]", e: func(t testing.TB) logical.Expr {
			return mkCall(t, "JSON_STRING", typed([]any{int32(1), int32(2)}, types.ArrayOf(types.IntT)))
		}},
		{name: "string row", want: `{"a":1,"b":"x"}`, e: func(t testing.TB) logical.Expr {
			return mkCall(t, "JSON_STRING", typed([]any{int32(1), "x"}, types.RowOf(types.Field{Name: "a", Type: types.IntT}, types.Field{Name: "b", Type: types.StringT})))
		}},
	}
	rv := func(name, want string, ec evalCase) evalCase { ec.name, ec.want = name, want; return ec }
	cases = append(cases,
		rv("value returning boolean", "TRUE", jsonValueReturning(`{"a": true}`, "$.a", types.BooleanT, "NULL", nil, "NULL", nil)),
		rv("value returning int", "42", jsonValueReturning(`{"a": 42}`, "$.a", types.IntT, "NULL", nil, "NULL", nil)),
		rv("value default on empty", "FALSE", jsonValueReturning(`{"a": true}`, "lax $.b", types.BooleanT, "DEFAULT", false, "NULL", nil)),
		rv("value default on error", "FALSE", jsonValueReturning(`{"a": true}`, "strict $.b", types.BooleanT, "NULL", nil, "DEFAULT", false)),
		rv("value bad cast default on error", "-1", jsonValueReturning(`{"a": "x"}`, "$.a", types.IntT, "NULL", nil, "DEFAULT", int32(-1))),
		rv("value returning double", "0.998", jsonValueReturning(`{"a.b": [0.998,0.996]}`, `$.["a.b"][0]`, types.DoubleT, "NULL", nil, "NULL", nil)),
	)
	runCases(t, cases)
	t.Run("error on empty", func(t *testing.T) {
		e := jsonValueReturning(`{}`, "$.a", types.StringT, "ERROR", nil, "NULL", nil).e(t)
		_, err := show(t, e)
		require.ErrorContains(t, err, "Empty result of JSON_VALUE function is not allowed")
	})
}
