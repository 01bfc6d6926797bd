package expr

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestStrMapKernel(t *testing.T) {
	rows := make([][]any, len(nexmarkURLs))
	for i, u := range nexmarkURLs {
		rows[i] = []any{u, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	n := &logical.ColumnRef{Index: 1, Name: "n", T: types.IntT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	for _, tc := range []struct {
		e      logical.Expr
		kernel bool
	}{
		{mustCall(t, "REPLACE", url, s("/"), s("|")), true},
		{mustCall(t, "REGEXP_REPLACE", url, s("[a-c]+"), s("<$0>")), true},
		{mustCall(t, "REGEXP_REPLACE", url, s("("), s("x")), false}, // invalid: the generic adapter's error
		{mustCall(t, "INSTR", url, s("/")), true},
		{mustCall(t, "CHAR_LENGTH", url), true},
		{mustCall(t, "STARTSWITH", url, s("https")), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), lit(int32(2), types.IntT.WithNullable(false))), false}, // its own kernel
		{mustCall(t, "URL_DECODE", url), true},
		{mustCall(t, "JSON_VALUE", url, s("$.a")), true}, // called with the NULL too
		{mustCall(t, "JSON_EXISTS", url, s("$.a")), true},
		{mustCall(t, "JSON_QUERY", url, s("$")), true},
		{mustCall(t, "REPLACE", url, s("/"), lit(nil, types.StringT)), false},
		{mustCall(t, "LOCATE", s("/"), url), false}, // the column is not the first argument
		{mustCall(t, "REPEAT", url, n), false},
		{mustCall(t, "REGEXP_COUNT", url, s("/")), true},
		{mustCall(t, "UNIX_TIMESTAMP", url), false}, // nondeterministic
	} {
		t.Run(tc.e.String(), func(t *testing.T) {
			checkAgainstOracle(t, tc.e, nexmarkSchema, rec)
			ev, err := Compile(tc.e, nexmarkSchema, testReg, testCtx)
			require.NoError(t, err)
			_, ok := ev.(*compiled).root.(*strMapNode)
			require.Equal(t, tc.kernel, ok, "%T", ev.(*compiled).root)
		})
	}
}

func TestStrMapJSON(t *testing.T) {
	docs := []any{nil, `{"a": 1, "b": {"c": "x\"y"}}`, `{"a": [1, 2]}`, `[{"a": true}]`, `not json`, `{"a": null}`, ``, `{"b": 2}`}
	rows := make([][]any, len(docs))
	for i, d := range docs {
		rows[i] = []any{d, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	doc := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	for _, p := range []string{"$.a", "$.b.c", "$[0].a", "$.a[1]", "strict $.a", "$.*"} {
		checkAgainstOracle(t, mustCall(t, "JSON_VALUE", doc, s(p)), nexmarkSchema, rec)
		checkAgainstOracle(t, mustCall(t, "JSON_QUERY", doc, s(p)), nexmarkSchema, rec)
		checkAgainstOracle(t, mustCall(t, "JSON_EXISTS", doc, s(p)), nexmarkSchema, rec)
	}
}
