package python

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
		{Name: "bigint", Body: "def f(a, b):\n    return None if a is None or b is None else a + b\n", Params: []types.Type{types.BigIntT, types.BigIntT}, Ret: types.BigIntT,
			Rows: [][]any{{int64(1), int64(2)}, {nil, int64(3)}, {int64(-5), nil}, {int64(1) << 40, int64(7)}}},
		{Name: "constant argument", Body: "def f(a, b):\n    return None if a is None else a * b\n", Params: []types.Type{types.BigIntT, types.BigIntT}, Ret: types.BigIntT,
			Rows: [][]any{{int64(1), int64(3)}, {int64(2), int64(3)}, {nil, int64(3)}}, Consts: []bool{false, true}},
		{Name: "NULL constant", Body: "def f(a, b):\n    return a if b is None else b\n", Params: []types.Type{types.IntT, types.IntT}, Ret: types.IntT,
			Rows: [][]any{{int32(1), nil}, {int32(2), nil}}, Consts: []bool{false, true}},
		{Name: "small ints and floats", Body: "def f(a, b, c, d):\n    return a + b + c + d\n",
			Params: []types.Type{types.TinyIntT, types.SmallIntT, types.FloatT, types.DoubleT}, Ret: types.DoubleT,
			Rows: [][]any{{int8(1), int16(2), float32(0.5), 0.25}, {int8(-1), int16(300), float32(1), 2.0}}},
		{Name: "int result out of range goes the checked way", Body: "def f(a):\n    return a * 1000\n", Params: []types.Type{types.IntT}, Ret: types.BigIntT,
			Rows: [][]any{{int32(5)}, {int32(1 << 30)}}},
		{Name: "boolean", Body: "def f(a):\n    return None if a is None else not a\n", Params: []types.Type{types.BooleanT}, Ret: types.BooleanT,
			Rows: [][]any{{true}, {false}, {nil}}},
		{Name: "strings", Body: "def f(s, t):\n    return None if s is None else s.upper() + '/' + str(t)\n", Params: []types.Type{types.StringT, types.StringT}, Ret: types.StringT,
			Rows: [][]any{{"abc", "x"}, {nil, "y"}, {"grüße", nil}, {"", ""}}},
		{Name: "int result of a string", Body: "def f(s):\n    return len(s)\n", Params: []types.Type{types.StringT}, Ret: types.IntT,
			Rows: [][]any{{"abc"}, {"grüße"}}},
		{Name: "date and decimal through the generic path", Body: "def f(d, x):\n    return d + ' ' + str(x)\n", Params: []types.Type{types.DateT, dec}, Ret: types.StringT,
			Rows: [][]any{{int32(19000), d1}, {int32(0), d1}}},
		{Name: "array argument and result", Body: "def f(a):\n    return [x * 2 for x in a]\n", Params: []types.Type{types.ArrayOf(types.IntT)}, Ret: types.ArrayOf(types.IntT),
			Rows: [][]any{{[]any{int32(1), int32(2)}}, {[]any{}}}},
		{Name: "NULL results", Body: "def f(a):\n    return None\n", Params: []types.Type{types.BigIntT}, Ret: types.StringT,
			Rows: [][]any{{int64(1)}, {nil}}},
	})
}

func TestCallArrowSlicedAndNullOnNull(t *testing.T) {
	def := scalar(t, "f", "def f(s, n):\n    return s + str(n)\n", types.StringT, types.StringT, types.BigIntT)
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
		ret        types.Type
		want       string
	}{
		{"exception names the input row", "def f(a, b):\n    return a // b\n", types.BigIntT,
			"Python UDF 'f' failed at inline body of f, line 2: ZeroDivisionError: division by zero (input row: (4, 0))"},
		{"wrong result type", "def f(a, b):\n    return 'x'\n", types.BigIntT,
			"Python UDF 'f' failed at inline body of f: returned str for BIGINT result (input row: (2, 1))"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := scalar(t, "f", c.body, c.ret, types.BigIntT, types.BigIntT)
			args := udftest.Columns(t, []types.Type{types.BigIntT, types.BigIntT}, [][]any{{int64(2), int64(1)}, {int64(4), int64(0)}}, nil)
			_, err := udftest.CallArrow(t, ectx, def, c.ret, args, 2, false)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestCallArrowTimeout(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT,
		Body: "def f(a, b):\n    while b == 0:\n        pass\n    s = 0\n    for i in range(300):\n        s += i\n    return a\n", Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	args := udftest.Columns(t, []types.Type{types.BigIntT, types.BigIntT}, [][]any{{int64(2), int64(1)}, {int64(4), int64(0)}}, nil)
	_, err = udftest.CallArrow(t, ectx, def, types.BigIntT, args, 2, false)
	require.ErrorContains(t, err, "Python UDF 'f' failed at inline body of f, line 2: timed out: the call ran longer than 50ms (input row: (4, 0))")
	// the interpreter stays usable, and a chunk of quick calls that takes
	// longer than the limit in all does not time out: with a limit far
	// above one call's time even on a loaded machine (1 s), the chunk grows
	// until it took more than twice the limit in all.
	def, err = Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT,
		Body: "def f(a, b):\n    while b == 0:\n        pass\n    s = 0\n    for i in range(300):\n        s += i\n    return a\n", Timeout: time.Second})
	require.NoError(t, err)
	for n := 3000; ; n *= 2 {
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(i), int64(1)}
		}
		ok := udftest.Columns(t, []types.Type{types.BigIntT, types.BigIntT}, rows, nil)
		start := time.Now()
		got, err := udftest.CallArrow(t, ectx, def, types.BigIntT, ok, len(rows), false)
		require.NoError(t, err)
		require.Len(t, got, len(rows))
		took := time.Since(start)
		t.Logf("%d calls in %s", n, took)
		if took > 2*time.Second {
			break
		}
	}
}

func TestCallArrowConcurrent(t *testing.T) {
	udftest.CheckConcurrent(t, ectx, scalar(t, "f", "def f(a, b):\n    return a + b\n", types.BigIntT, types.BigIntT, types.BigIntT))
}
