package python

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

var ectx = &function.EvalContext{Loc: time.UTC}

func params(ts ...types.Type) []types.Field {
	out := make([]types.Field, len(ts))
	for i, t := range ts {
		out[i] = types.Field{Name: fmt.Sprintf("p%d", i), Type: t}
	}
	return out
}

func scalar(t *testing.T, name, body string, ret types.Type, ps ...types.Type) *function.Definition {
	t.Helper()
	def, err := Compile(udf.Spec{Name: name, Kind: function.Scalar, Params: params(ps...), Returns: ret, Body: body})
	require.NoError(t, err)
	return def
}

func call(def *function.Definition, args ...any) (any, error) {
	return def.Eval(ectx, function.CallTypes{}, args)
}

func TestScalar(t *testing.T) {
	d := func(s string, p, sc int32) decimal128.Num {
		n, err := decimal128.FromString(s, p, sc)
		if err != nil {
			panic(err)
		}
		return n
	}
	tests := []struct {
		name   string
		body   string
		ret    types.Type
		params []types.Type
		args   []any
		want   any
		err    string
	}{
		{"add", "def f(a, b):\n    return a + b\n", types.IntT, []types.Type{types.IntT, types.IntT}, []any{int32(1), int32(2)}, int32(3), ""},
		{"null in", "def f(a):\n    return -1 if a is None else a\n", types.BigIntT, []types.Type{types.BigIntT}, []any{nil}, int64(-1), ""},
		{"null out", "def f(a):\n    return None\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, ""},
		{"string", "def f(s):\n    return s.replace('a', 'b') + '!'\n", types.StringT, []types.Type{types.StringT}, []any{"banana"}, "bbnbnb!", ""},
		{"bool", "def f(a):\n    return a > 3\n", types.BooleanT, []types.Type{types.IntT}, []any{int32(5)}, true, ""},
		{"double from int", "def f(a):\n    return a * 2\n", types.DoubleT, []types.Type{types.IntT}, []any{int32(5)}, float64(10), ""},
		{"float", "def f(a):\n    return a / 2\n", types.FloatT, []types.Type{types.FloatT}, []any{float32(5)}, float32(2.5), ""},
		{"bytes", "def f(b):\n    return b + b'x'\n", types.BytesT, []types.Type{types.BytesT}, []any{[]byte("ab")}, []byte("abx"), ""},
		{"decimal in float", "def f(a):\n    return a * 2\n", types.DoubleT, []types.Type{types.DecimalOf(10, 2)}, []any{d("1.25", 10, 2)}, 2.5, ""},
		{"decimal out str", "def f(a):\n    return '12.345'\n", types.DecimalOf(10, 3), []types.Type{types.IntT}, []any{int32(1)}, d("12.345", 10, 3), ""},
		{"decimal out int", "def f(a):\n    return a\n", types.DecimalOf(10, 2), []types.Type{types.IntT}, []any{int32(7)}, d("7", 10, 2), ""},
		{"date", "def f(a):\n    return a[:4]\n", types.StringT, []types.Type{types.DateT}, []any{int32(19723)}, "2024", ""},
		{"date out", "def f(a):\n    return '2024-01-01'\n", types.DateT, []types.Type{types.IntT}, []any{int32(1)}, int32(19723), ""},
		{"timestamp", "def f(a):\n    return a\n", types.StringT, []types.Type{types.TimestampOf(3)}, []any{int64(1704067200123000)}, "2024-01-01 00:00:00.123", ""},
		{"date out datetime", "import datetime\ndef f(a):\n    return datetime.date.fromisoformat(a) + datetime.timedelta(days=1)\n", types.DateT, []types.Type{types.DateT}, []any{int32(19723)}, int32(19724), ""},
		{"timestamp out datetime", "from datetime import datetime\ndef f(a):\n    return datetime(2024, 1, 1, 0, 0, 1, 500)\n", types.TimestampOf(6), []types.Type{types.IntT}, []any{int32(1)}, int64(1704067201000500), ""},
		{"ltz out datetime is utc", "from datetime import datetime\ndef f(a):\n    return datetime(1970, 1, 1, 0, 0, 2)\n", types.TimestampLTZOf(3), []types.Type{types.IntT}, []any{int32(1)}, int64(2000000), ""},
		{"timestamp out", "def f(a):\n    return '2024-01-01 00:00:01'\n", types.TimestampOf(3), []types.Type{types.IntT}, []any{int32(1)}, int64(1704067201000000), ""},
		{"array", "def f(a):\n    return [x * 2 for x in a if x is not None]\n", types.ArrayOf(types.IntT), []types.Type{types.ArrayOf(types.IntT)}, []any{[]any{int32(1), nil, int32(3)}}, []any{int32(2), int32(6)}, ""},
		{"map str keys", "def f(m):\n    return m['a']\n", types.IntT, []types.Type{types.MapOf(types.StringT, types.IntT)}, []any{&types.MapValue{Keys: []any{"a"}, Values: []any{int32(4)}}}, int32(4), ""},
		{"map out dict", "def f(a):\n    return {'k': a}\n", types.MapOf(types.StringT, types.IntT), []types.Type{types.IntT}, []any{int32(4)}, &types.MapValue{Keys: []any{"k"}, Values: []any{int32(4)}}, ""},
		{"map int keys", "def f(m):\n    return [(k + 1, v) for k, v in m]\n", types.MapOf(types.IntT, types.StringT), []types.Type{types.MapOf(types.IntT, types.StringT)}, []any{&types.MapValue{Keys: []any{int32(1)}, Values: []any{"x"}}}, &types.MapValue{Keys: []any{int32(2)}, Values: []any{"x"}}, ""},
		{"row", "def f(r):\n    return (r[1], r[0])\n", types.RowOf(types.Field{Name: "s", Type: types.StringT}, types.Field{Name: "i", Type: types.IntT}), []types.Type{types.RowOf(types.Field{Name: "i", Type: types.IntT}, types.Field{Name: "s", Type: types.StringT})}, []any{[]any{int32(1), "a"}}, []any{"a", int32(1)}, ""},
		{"row by name", "def f(a):\n    return {'i': a}\n", types.RowOf(types.Field{Name: "i", Type: types.IntT}, types.Field{Name: "j", Type: types.IntT}), []types.Type{types.IntT}, []any{int32(3)}, []any{int32(3), nil}, ""},
		{"interval", "def f(a):\n    return a + 1000\n", types.IntervalDT, []types.Type{types.IntervalDT}, []any{int64(5)}, int64(1005), ""},
		{"big int", "def f(a):\n    return a ** 30\n", types.BigIntT, []types.Type{types.BigIntT}, []any{int64(10)}, nil, "returned int 1000000000000000000000000000000 out of range for BIGINT result"},
		{"str for int", "def f(a):\n    return 'x'\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "Python UDF 'f' failed at inline body of f: returned str for INT result (input row: (1))"},
		{"int overflow", "def f(a):\n    return a * 1000\n", types.TinyIntT, []types.Type{types.TinyIntT}, []any{int8(100)}, nil, "returned int 100000 out of range for TINYINT result"},
		{"float for int", "def f(a):\n    return 1.5\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "returned float for INT result"},
		{"bad date", "def f(a):\n    return 'nope'\n", types.DateT, []types.Type{types.IntT}, []any{int32(1)}, nil, "returned str 'nope' that is not a valid DATE"},
		{"raise", "def f(a):\n    x = 1\n    return x / a\n", types.DoubleT, []types.Type{types.IntT}, []any{int32(0)}, nil, "Python UDF 'f' failed at inline body of f, line 3: ZeroDivisionError: division by zero (input row: (0))"},
		{"raise nested", "def g(a):\n    raise ValueError('bad %d' % a)\n\ndef f(a):\n    return g(a)\n", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, nil, "line 2: ValueError: bad 7 (input row: (7))"},
		{"case-insensitive name", "def F(a):\n    return a\n", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, int32(7), ""},
		{"module global", "K = 10\ndef f(a):\n    return a + K\n", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, int32(17), ""},
		{"math", "import math\ndef f(a):\n    return math.sqrt(a)\n", types.DoubleT, []types.Type{types.DoubleT}, []any{16.0}, 4.0, ""},
		{"import os refused", "def f(a):\n    import os\n    return 1\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "line 2: ImportError: No module named 'os'"},
		{"import glob refused", "def f(a):\n    import tempfile\n    return 1\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "ImportError: No module named 'tempfile'"},
		{"open removed", "def f(a):\n    return open('/etc/passwd').read()\n", types.StringT, []types.Type{types.IntT}, []any{int32(1)}, nil, "line 2: NameError"},
		{"recursion", "def f(a):\n    return f(a + 1)\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "RuntimeError: maximum recursion depth exceeded"},
		{"generator for scalar", "def f(a):\n    yield a\n", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "returned generator for INT result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def := scalar(t, "f", tc.body, tc.ret, tc.params...)
			got, err := call(def, tc.args...)
			if tc.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tc.err)
				var ue *udf.Error
				require.True(t, errors.As(err, &ue))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		spec udf.Spec
		err  string
	}{
		{"syntax", udf.Spec{Name: "f", Returns: types.IntT, Body: "def f(a):\n    x = (1 +\n    return a\n"}, "Python UDF 'f' failed at inline body of f, line 3: SyntaxError: invalid syntax"},
		{"indent", udf.Spec{Name: "f", Returns: types.IntT, Body: "def f(a):\n    x = 1\n      return a\n"}, "line 3"},
		{"missing function", udf.Spec{Name: "f", Returns: types.IntT, Body: "def g(a):\n    return a\n"}, "the script defines no function named 'f'"},
		{"not a function", udf.Spec{Name: "f", Returns: types.IntT, Body: "f = 3\n"}, "'f' must be a function, not a int"},
		{"module raises", udf.Spec{Name: "f", Returns: types.IntT, Body: "x = 1\ny = x / 0\n"}, "line 2: running the module body: ZeroDivisionError"},
		{"aggregate not class", udf.Spec{Name: "f", Kind: function.Aggregate, Returns: types.IntT, Body: "def f():\n    pass\n"}, "must be a class"},
		{"aggregate missing method", udf.Spec{Name: "f", Kind: function.Aggregate, Returns: types.IntT, Body: "class f:\n    def create_accumulator(self):\n        return [0]\n"}, "class 'f' has no method accumulate"},
		{"table not row", udf.Spec{Name: "f", Kind: function.Table, Returns: types.IntT, Body: "def f():\n    yield 1\n"}, "must return a ROW type"},
		{"no body", udf.Spec{Name: "f", Returns: types.IntT}, "neither an inline body nor a script file"},
		{"missing file", udf.Spec{Name: "f", Returns: types.IntT, File: "/nonexistent/x.py", Func: "f"}, "reading the script"},
		{"named source", udf.Spec{Name: "f", Returns: types.IntT, Body: "def f(:\n", SourceName: "udfs.py"}, "failed at udfs.py, line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.spec)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestFileForm(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mylib.py")
	require.NoError(t, os.WriteFile(path, []byte("def helper(x):\n    return x * 3\n\ndef triple(x):\n    return helper(x)\n\ndef boom(x):\n    return 1 // 0\n"), 0o644))
	def, err := Compile(udf.Spec{Name: "t3", Params: params(types.IntT), Returns: types.IntT, File: path, Func: "triple"})
	require.NoError(t, err)
	got, err := call(def, int32(4))
	require.NoError(t, err)
	require.Equal(t, int32(12), got)

	def, err = Compile(udf.Spec{Name: "b", Params: params(types.IntT), Returns: types.IntT, File: path, Func: "boom"})
	require.NoError(t, err)
	_, err = call(def, int32(4))
	require.ErrorContains(t, err, "failed at "+path+", line 8: ZeroDivisionError")
}

func TestInfer(t *testing.T) {
	def := scalar(t, "f", "def f(a, b):\n    return a\n", types.BigIntT, types.BigIntT, types.StringT)
	res, argTypes, err := def.Infer([]types.Type{types.IntT, types.StringT})
	require.NoError(t, err)
	require.Equal(t, types.BigIntT, res)
	require.Equal(t, []types.Type{types.BigIntT, types.StringT}, argTypes)
	_, _, err = def.Infer([]types.Type{types.IntT})
	require.ErrorContains(t, err, "Cannot apply 'f' to arguments of type 'f(<INTEGER>)'.")
	_, _, err = def.Infer([]types.Type{types.BooleanT, types.StringT})
	require.ErrorContains(t, err, "Cannot apply 'f'")
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"while true", "def f(a):\n    while True:\n        a += 1\n    return a\n"},
		{"while cond", "def f(a):\n    x = 0\n    while x >= 0 or a:\n        x = x + 1\n    return x\n"},
		{"calls", "def g(x):\n    return x + 1\n\ndef f(a):\n    for i in range(10**12):\n        a = g(a)\n    return a\n"},
		{"for range", "def f(a):\n    for i in range(10**12):\n        a += 1\n    return a\n"},
		{"comprehension", "def f(a):\n    return len([i for i in range(10**12)])\n"},
		{"generator expression", "def f(a):\n    return sum(i for i in range(10**12))\n"},
		{"sum of range", "def f(a):\n    return sum(range(10**12))\n"},
		{"sleep", "import time\ndef f(a):\n    time.sleep(3600)\n    return a\n"},
		// for loops over lists, strings and dicts (no range, no call):
		// the guarded loop iterator checks the watch.
		{"nested for over a list", "def f(a):\n    l = [0] * 100000\n    for x in l:\n        for y in l:\n            a = a + 1\n    return a\n"},
		{"for over a string", "def f(a):\n    s = 'x' * 100000\n    for c in s:\n        for d in s:\n            a = a + 1\n    return a\n"},
		{"comprehension over a list", "def f(a):\n    l = [0] * 100000\n    return len([x for x in l for y in l])\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: tc.body, Timeout: 100 * time.Millisecond})
			require.NoError(t, err)
			start := time.Now()
			_, err = call(def, int32(1))
			require.ErrorContains(t, err, "timed out: the call ran longer than 100ms")
			require.Less(t, time.Since(start), 2*time.Second)
			// The definition stays usable.
			_, err = call(def, int32(1))
			require.ErrorContains(t, err, "timed out")
		})
	}
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: "def f(a):\n    while a < 10:\n        a += 1\n    return a\n", Timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	require.Equal(t, int32(10), got)
}

// TestCancel stops a call without a time limit when its statement is
// cancelled (the EvalContext's Done closes).
func TestCancel(t *testing.T) {
	for _, body := range []string{
		"def f(a):\n    while True:\n        a += 1\n",
		"def f(a):\n    return sum(range(10**12))\n",
		"import time\ndef f(a):\n    time.sleep(3600)\n",
	} {
		def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: body, Timeout: -1})
		require.NoError(t, err)
		done := make(chan struct{})
		time.AfterFunc(100*time.Millisecond, func() { close(done) })
		start := time.Now()
		_, err = def.Eval(&function.EvalContext{Done: done}, function.CallTypes{}, []any{int32(1)})
		require.ErrorContains(t, err, "cancelled", body)
		require.Less(t, time.Since(start), 2*time.Second, body)
	}
}

func TestInstrument(t *testing.T) {
	tests := []struct{ src, want string }{
		{"while x:\n  pass\n", "while __tablerun_tick__() and x:\n  pass\n"},
		{"def f():\n    while (a or b) and c:\n        while not d: pass\n", "def f():\n    while __tablerun_tick__() and (a or b) and c:\n        while __tablerun_tick__() and not d: pass\n"},
		{"x = 1\n", "x = 1\n"},
		{"def f(:\n", "def f(:\n"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, instrument(tc.src, "x"))
	}
}

func TestConcurrentGlobals(t *testing.T) {
	body := "counts = {}\nn = 0\ndef f(a):\n    global n\n    n = n + 1\n    counts[str(a)] = counts.get(str(a), 0) + 1\n    return a + 1\n"
	def := scalar(t, "f", body, types.IntT, types.IntT)
	bf, ok := udf.BatchImpl(def)
	require.True(t, ok)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				v, err := call(def, int32(i))
				if err != nil {
					errs <- err
					return
				}
				if v != int32(i+1) {
					errs <- fmt.Errorf("got %v", v)
					return
				}
			}
			col := make([]any, 500)
			for i := range col {
				col[i] = int32(i)
			}
			out, err := bf.CallBatch(ectx, [][]any{col}, len(col))
			if err != nil {
				errs <- err
				return
			}
			if out[499] != int32(500) {
				errs <- fmt.Errorf("batch got %v", out[499])
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestBatch(t *testing.T) {
	def := scalar(t, "f", "def f(a, b):\n    if b is None:\n        return None\n    return a * 10 + b\n", types.BigIntT, types.BigIntT, types.BigIntT)
	bf, ok := udf.BatchImpl(def)
	require.True(t, ok)
	n := 3000
	a, b := make([]any, n), make([]any, n)
	for i := range a {
		a[i] = int64(i)
		if i%7 != 0 {
			b[i] = int64(i % 10)
		}
	}
	out, err := bf.CallBatch(ectx, [][]any{a, b}, n)
	require.NoError(t, err)
	for i := range out {
		want, err := call(def, a[i], b[i])
		require.NoError(t, err)
		require.Equal(t, want, out[i], "row %d", i)
	}

	def = scalar(t, "g", "def g(a):\n    return 10 // a\n", types.IntT, types.IntT)
	bf, _ = udf.BatchImpl(def)
	col := []any{int32(1), int32(2), int32(0), int32(5)}
	_, err = bf.CallBatch(ectx, [][]any{col}, 4)
	require.ErrorContains(t, err, "line 2: ZeroDivisionError: division by zero (input row: (0))")

	def = scalar(t, "h", "def h(a):\n    return str(a)\n", types.IntT, types.IntT)
	bf, _ = udf.BatchImpl(def)
	_, err = bf.CallBatch(ectx, [][]any{col}, 4)
	require.ErrorContains(t, err, "returned str for INT result (input row: (1))")

	def = scalar(t, "k", "n = 0\ndef k():\n    global n\n    n += 1\n    return n\n", types.IntT)
	bf, _ = udf.BatchImpl(def)
	out, err = bf.CallBatch(ectx, nil, 3)
	require.NoError(t, err)
	require.Len(t, out, 3)
}

func TestTable(t *testing.T) {
	row := types.RowOf(types.Field{Name: "word", Type: types.StringT}, types.Field{Name: "len", Type: types.IntT})
	def, err := Compile(udf.Spec{Name: "split_words", Kind: function.Table, Params: params(types.StringT), Returns: row,
		Body: "def split_words(s):\n    if s is None:\n        return\n    for w in s.split(' '):\n        if w == 'boom':\n            raise ValueError('boom!')\n        yield w, len(w)\n"})
	require.NoError(t, err)
	require.Equal(t, function.Table, def.Kind)
	tf, ok := udf.TableImpl(def)
	require.True(t, ok)
	_, isBatch := udf.BatchImpl(def)
	require.False(t, isBatch)
	var rows [][]any
	emit := func(r []any) error { rows = append(rows, r); return nil }
	require.NoError(t, tf.Rows(ectx, []any{"hello big world"}, emit))
	require.Equal(t, [][]any{{"hello", int32(5)}, {"big", int32(3)}, {"world", int32(5)}}, rows)
	rows = nil
	require.NoError(t, tf.Rows(nil, []any{nil}, emit))
	require.Empty(t, rows)
	err = tf.Rows(ectx, []any{"a boom"}, emit)
	require.ErrorContains(t, err, "line 6: ValueError: boom! (input row: (a boom))")
	require.Len(t, rows, 1)
	stop := errors.New("stop")
	require.ErrorIs(t, tf.Rows(ectx, []any{"x y"}, func([]any) error { return stop }), stop)
	_, err = def.Eval(ectx, function.CallTypes{}, []any{"x"})
	require.ErrorContains(t, err, "cannot be called as a scalar function")

	one := types.RowOf(types.Field{Name: "n", Type: types.IntT})
	def, err = Compile(udf.Spec{Name: "rng", Kind: function.Table, Params: params(types.IntT), Returns: one, Body: "def rng(n):\n    return range(n)\n"})
	require.NoError(t, err)
	tf, _ = udf.TableImpl(def)
	rows = nil
	require.NoError(t, tf.Rows(ectx, []any{int32(3)}, emit))
	require.Equal(t, [][]any{{int32(0)}, {int32(1)}, {int32(2)}}, rows)

	def, err = Compile(udf.Spec{Name: "bad", Kind: function.Table, Params: params(types.IntT), Returns: row, Body: "def bad(n):\n    yield 1\n"})
	require.NoError(t, err)
	tf, _ = udf.TableImpl(def)
	require.ErrorContains(t, tf.Rows(ectx, []any{int32(3)}, emit), "returned int for ROW")
}

const weightedAvg = `
class wavg:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, value, weight):
        if value is None:
            return
        acc[0] += value * weight
        acc[1] += weight

    def retract(self, acc, value, weight):
        if value is None:
            return
        acc[0] -= value * weight
        acc[1] -= weight

    def merge(self, acc, others):
        for o in others:
            acc[0] += o[0]
            acc[1] += o[1]

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0] / acc[1]
`

func TestAggregate(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "wavg", Kind: function.Aggregate, Params: params(types.BigIntT, types.IntT), Returns: types.DoubleT, Body: weightedAvg})
	require.NoError(t, err)
	af, ok := udf.AggregateImpl(def)
	require.True(t, ok)
	require.True(t, af.CanRetract())
	require.True(t, af.CanMerge())
	require.Equal(t, types.DoubleT, af.ResultType())
	in, err := af.NewInstance(ectx)
	require.NoError(t, err)
	defer in.Close()
	a, err := in.CreateAccumulator()
	require.NoError(t, err)
	v, err := in.GetValue(a)
	require.NoError(t, err)
	require.Nil(t, v)
	require.NoError(t, in.Accumulate(a, []any{int64(10), int32(1)}))
	require.NoError(t, in.Accumulate(a, []any{int64(20), int32(3)}))
	require.NoError(t, in.Accumulate(a, []any{nil, int32(3)}))
	v, err = in.GetValue(a)
	require.NoError(t, err)
	require.Equal(t, 17.5, v)
	require.NoError(t, in.Retract(a, []any{int64(20), int32(3)}))
	v, _ = in.GetValue(a)
	require.Equal(t, 10.0, v)

	// Two-phase: export from one instance, import and merge in another.
	in2, err := af.NewInstance(nil)
	require.NoError(t, err)
	defer in2.Close()
	b, _ := in2.CreateAccumulator()
	require.NoError(t, in2.Accumulate(b, []any{int64(40), int32(1)}))
	ex, err := in2.Export(b)
	require.NoError(t, err)
	require.Equal(t, []any{int64(40), int64(1)}, ex)
	imp, err := in.Import(ex)
	require.NoError(t, err)
	require.NoError(t, in.Merge(a, imp))
	v, _ = in.GetValue(a)
	require.Equal(t, 25.0, v)

	// Immutable accumulators: methods return the new state.
	def, err = Compile(udf.Spec{Name: "mysum", Kind: function.Aggregate, Params: params(types.IntT), Returns: types.IntT,
		Body: "class MySum:\n    def create_accumulator(self):\n        return 0\n    def accumulate(self, acc, x):\n        return acc + x\n    def get_value(self, acc):\n        return acc\n    def boom(self):\n        pass\n"})
	require.NoError(t, err)
	af, _ = udf.AggregateImpl(def)
	require.False(t, af.CanRetract())
	require.False(t, af.CanMerge())
	in3, err := af.NewInstance(ectx)
	require.NoError(t, err)
	defer in3.Close()
	c, _ := in3.CreateAccumulator()
	for i := 1; i <= 100; i++ {
		require.NoError(t, in3.Accumulate(c, []any{int32(i)}))
	}
	v, _ = in3.GetValue(c)
	require.Equal(t, int32(5050), v)
	require.ErrorContains(t, in3.Retract(c, []any{int32(1)}), "not supported yet: retraction")
	require.ErrorContains(t, in3.Merge(c, c), "not supported yet: merging")
	err = in3.Accumulate(c, []any{nil})
	require.ErrorContains(t, err, "line 5: accumulate: TypeError")
	_, err = def.Eval(ectx, function.CallTypes{}, []any{int32(1)})
	require.ErrorContains(t, err, "cannot be called as a scalar function")
}

func TestManyCalls(t *testing.T) {
	def := scalar(t, "f", "def f(s, i):\n    return '%s-%d' % (s, i)\n", types.StringT, types.StringT, types.IntT)
	for i := 0; i < 5000; i++ {
		v, err := call(def, "k", int32(i))
		require.NoError(t, err)
		if i == 4999 {
			require.Equal(t, "k-4999", v)
		}
	}
	udf.Release(def)
	require.False(t, udf.IsScript(def))
}
