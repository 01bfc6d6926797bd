package js

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/internal/udftest"
)

func TestCallArrowMatchesEval(t *testing.T) {
	dec := types.DecimalOf(10, 2)
	d1, _ := decimal128.FromString("1.25", 10, 2)
	udftest.CheckMatchesEval(t, ectx, Compile, []udftest.Case{
		{Name: "bigint", Body: "function f(a, b) { return a === null || b === null ? null : a + b; }", Params: []types.Type{types.BigIntT, types.BigIntT}, Ret: types.BigIntT,
			Rows: [][]any{{int64(1), int64(2)}, {nil, int64(3)}, {int64(-5), nil}, {int64(1) << 40, int64(7)}}},
		{Name: "constant argument", Body: "function f(a, b) { return a === null ? null : a * b; }", Params: []types.Type{types.BigIntT, types.BigIntT}, Ret: types.BigIntT,
			Rows: [][]any{{int64(1), int64(3)}, {int64(2), int64(3)}, {nil, int64(3)}}, Consts: []bool{false, true}},
		{Name: "NULL constant", Body: "function f(a, b) { return b === null ? a : b; }", Params: []types.Type{types.IntT, types.IntT}, Ret: types.IntT,
			Rows: [][]any{{int32(1), nil}, {int32(2), nil}}, Consts: []bool{false, true}},
		{Name: "small ints and floats", Body: "function f(a, b, c, d) { return a + b + c + d; }",
			Params: []types.Type{types.TinyIntT, types.SmallIntT, types.FloatT, types.DoubleT}, Ret: types.DoubleT,
			Rows: [][]any{{int8(1), int16(2), float32(0.5), 0.25}, {int8(-1), int16(300), float32(1), 2.0}}},
		{Name: "integral double for a BIGINT result", Body: "function f(a) { return a / 2; }", Params: []types.Type{types.BigIntT}, Ret: types.BigIntT,
			Rows: [][]any{{int64(4)}, {int64(10)}}},
		{Name: "boolean", Body: "function f(a) { return a === null ? null : !a; }", Params: []types.Type{types.BooleanT}, Ret: types.BooleanT,
			Rows: [][]any{{true}, {false}, {nil}}},
		{Name: "strings", Body: "function f(s, t) { return s === null ? null : s.toUpperCase() + '/' + t; }", Params: []types.Type{types.StringT, types.StringT}, Ret: types.StringT,
			Rows: [][]any{{"abc", "x"}, {nil, "y"}, {"grüße", nil}, {"", ""}}},
		{Name: "int result of a string", Body: "function f(s) { return s.length; }", Params: []types.Type{types.StringT}, Ret: types.IntT,
			Rows: [][]any{{"abc"}, {"grüße"}}},
		{Name: "date and decimal through the generic path", Body: "function f(d, x) { return d.toISOString() + ' ' + x; }", Params: []types.Type{types.DateT, dec}, Ret: types.StringT,
			Rows: [][]any{{int32(19000), d1}, {int32(0), d1}}},
		{Name: "array argument and result", Body: "function f(a) { return a.map(x => x * 2); }", Params: []types.Type{types.ArrayOf(types.IntT)}, Ret: types.ArrayOf(types.IntT),
			Rows: [][]any{{[]any{int32(1), int32(2)}}, {[]any{}}}},
		{Name: "NULL results", Body: "function f(a) { return undefined; }", Params: []types.Type{types.BigIntT}, Ret: types.StringT,
			Rows: [][]any{{int64(1)}, {nil}}},
	})
}

func TestCallArrowSlicedAndNullOnNull(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.StringT, types.BigIntT), Returns: types.StringT, Body: "function f(s, n) { return s + n; }"})
	require.NoError(t, err)
	args := udftest.Columns(t, []types.Type{types.StringT, types.BigIntT},
		[][]any{{"a", int64(1)}, {"bb", int64(2)}, {nil, int64(3)}, {"dddd", nil}, {"e", int64(5)}}, nil)
	sliced := make([]udf.ArrowArg, len(args))
	for i, a := range args {
		sliced[i].Array = array.NewSlice(a.Array, 1, 5)
	}
	got, err := udftest.CallArrow(t, ectx, def, types.StringT, sliced, 4, true)
	require.NoError(t, err)
	require.Equal(t, []any{"bb2", nil, nil, "e5"}, got)
	got, err = udftest.CallArrow(t, ectx, def, types.StringT, []udf.ArrowArg{{Value: "x"}, {Value: nil}}, 3, true)
	require.NoError(t, err)
	require.Equal(t, []any{nil, nil, nil}, got)
}

func TestCallArrowErrors(t *testing.T) {
	cases := []struct {
		name, body string
		timeout    time.Duration
		want       string
	}{
		{"exception names the input row", "function f(a, b) {\n  if (b === 0) throw new Error('zero');\n  return a / b;\n}", 0,
			"JavaScript UDF 'f' failed at inline body of f, line 2, column 22: Error: zero (input row: (4, 0))"},
		{"wrong result type", "function f(a, b) { return 'x'; }", 0,
			"JavaScript UDF 'f' failed at inline body of f: returned string for BIGINT result (input row: (2, 1))"},
		{"timeout", "function f(a, b) { if (b === 0) { for (;;) {} } return a; }", 50 * time.Millisecond,
			"JavaScript UDF 'f' failed at inline body of f, line 1: timed out: the call ran longer than 50ms (input row: (4, 0))"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def, err := Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: c.body, Timeout: c.timeout})
			require.NoError(t, err)
			args := udftest.Columns(t, []types.Type{types.BigIntT, types.BigIntT}, [][]any{{int64(2), int64(1)}, {int64(4), int64(0)}}, nil)
			_, err = udftest.CallArrow(t, ectx, def, types.BigIntT, args, 2, false)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			// The runtime stays usable.
			ok := udftest.Columns(t, []types.Type{types.BigIntT, types.BigIntT}, [][]any{{int64(6), int64(3)}}, nil)
			if c.name != "wrong result type" {
				got, err := udftest.CallArrow(t, ectx, def, types.BigIntT, ok, 1, false)
				require.NoError(t, err)
				require.Len(t, got, 1)
			}
		})
	}
}

func TestCallArrowConcurrent(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: "function f(a, b) { return a + b; }"})
	require.NoError(t, err)
	udftest.CheckConcurrent(t, ectx, def)
}
