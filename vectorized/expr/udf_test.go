package expr

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/js"
	"github.com/tablerun/tablerun/udf/python"
)

func TestScriptCall(t *testing.T) {
	schema := types.Schema{{Name: "a", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	rows := make([][]any, 5000)
	for i := range rows {
		rows[i] = []any{int64(i), "x"}
		if i%3 == 0 {
			rows[i][0] = nil
		}
	}
	mem := memory.NewGoAllocator()
	rec, err := types.BuildRecord(mem, schema, rows)
	require.NoError(t, err)
	defer rec.Release()
	params := []types.Field{{Name: "a", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	compile := map[string]func(udf.Spec) (*function.Definition, error){"python": python.Compile, "js": js.Compile}
	bodies := map[string]string{
		"python": "def f(a, s):\n    return None if a is None else s + str(a * 2)\n",
		"js":     "function f(a, s) { return a === null ? null : s + String(a * 2); }",
	}
	for lang, comp := range compile {
		for _, nullOnNull := range []bool{false, true} {
			def, err := comp(udf.Spec{Name: "f", Params: params, Returns: types.StringT, Body: bodies[lang]})
			require.NoError(t, err)
			def.NullOnNull = nullOnNull
			c := &compiler{input: schema, ctx: &function.EvalContext{Loc: time.UTC}}
			call := &logical.Call{Name: "f", Args: []logical.Expr{
				&logical.ColumnRef{Index: 0, Name: "a", T: types.BigIntT},
				&logical.Literal{Value: "v", T: types.StringT},
			}, T: types.StringT}
			args := []node{&colNode{idx: 0, t: types.BigIntT}, &litNode{v: "v", t: types.StringT}}
			n, ok, err := c.scriptCall(call, def, args)
			require.NoError(t, err)
			require.True(t, ok)
			require.True(t, n.canFail())
			require.Equal(t, types.StringT, n.typ())
			out, err := n.eval(rec, mem)
			require.NoError(t, err)
			require.Equal(t, 5000, out.Len())
			for i := 0; i < 5000; i += 499 {
				got := types.GetValue(out, i, types.StringT)
				if i%3 == 0 {
					require.Nil(t, got, "%s row %d", lang, i)
				} else {
					require.Equal(t, fmt.Sprint("v", i*2), got, "%s row %d", lang, i)
				}
			}
			out.Release()
		}
	}
	// Other functions are not script calls.
	c := &compiler{input: schema}
	_, ok, err := c.scriptCall(&logical.Call{Name: "UPPER", T: types.StringT}, &function.Definition{Name: "UPPER"}, nil)
	require.NoError(t, err)
	require.False(t, ok)
}
