package js

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	row := types.RowOf(types.Field{Name: "i", Type: types.IntT}, types.Field{Name: "s", Type: types.StringT})
	tests := []struct {
		name   string
		body   string
		ret    types.Type
		params []types.Type
		args   []any
		want   any
		err    string
	}{
		{"add", "function f(a, b) { return a + b; }", types.IntT, []types.Type{types.IntT, types.IntT}, []any{int32(1), int32(2)}, int32(3), ""},
		{"null in", "function f(a) { return a === null ? -1 : a; }", types.BigIntT, []types.Type{types.BigIntT}, []any{nil}, int64(-1), ""},
		{"undefined out", "function f(a) { }", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, ""},
		{"string", "function f(s) { return s.toUpperCase() + `!${s.length}`; }", types.StringT, []types.Type{types.StringT}, []any{"abc"}, "ABC!3", ""},
		{"bool", "const f = (a) => a > 3;", types.BooleanT, []types.Type{types.IntT}, []any{int32(5)}, true, ""},
		{"integral float as int", "function f(a) { return a / 2; }", types.IntT, []types.Type{types.IntT}, []any{int32(8)}, int32(4), ""},
		{"double", "function f(a) { return a / 4; }", types.DoubleT, []types.Type{types.IntT}, []any{int32(5)}, 1.25, ""},
		{"bytes", "function f(b) { return new Uint8Array([...b, 120]); }", types.BytesT, []types.Type{types.BytesT}, []any{[]byte("ab")}, []byte("abx"), ""},
		{"decimal", "function f(a) { return (a * 2).toFixed(2); }", types.DecimalOf(10, 2), []types.Type{types.DecimalOf(10, 2)}, []any{d("1.25", 10, 2)}, d("2.50", 10, 2), ""},
		{"date", "function f(a) { return a.getUTCFullYear(); }", types.IntT, []types.Type{types.DateT}, []any{int32(19723)}, int32(2024), ""},
		{"date out", "function f(a) { return new Date(Date.UTC(2024, 0, 2)); }", types.DateT, []types.Type{types.IntT}, []any{int32(1)}, int32(19724), ""},
		{"date out str", "function f(a) { return '2024-01-01'; }", types.DateT, []types.Type{types.IntT}, []any{int32(1)}, int32(19723), ""},
		{"timestamp", "function f(a) { return a.toISOString(); }", types.StringT, []types.Type{types.TimestampOf(3)}, []any{int64(1704067200123000)}, "2024-01-01T00:00:00.123Z", ""},
		{"timestamp roundtrip", "function f(a) { return new Date(a.getTime() + 1000); }", types.TimestampOf(3), []types.Type{types.TimestampOf(3)}, []any{int64(1704067200123000)}, int64(1704067201123000), ""},
		{"ltz", "function f(a) { return a.getTime(); }", types.BigIntT, []types.Type{types.TimestampLTZOf(3)}, []any{int64(1000000)}, int64(1000), ""},
		{"time", "function f(a) { return a; }", types.StringT, []types.Type{types.TimeOf(0)}, []any{int32(3723000)}, "01:02:03", ""},
		{"array", "function f(a) { return a.filter(x => x !== null).map(x => x * 2); }", types.ArrayOf(types.IntT), []types.Type{types.ArrayOf(types.IntT)}, []any{[]any{int32(1), nil, int32(3)}}, []any{int32(2), int32(6)}, ""},
		{"map str keys", "function f(m) { return m.a; }", types.IntT, []types.Type{types.MapOf(types.StringT, types.IntT)}, []any{&types.MapValue{Keys: []any{"a"}, Values: []any{int32(4)}}}, int32(4), ""},
		{"map out object", "function f(a) { return {k: a}; }", types.MapOf(types.StringT, types.IntT), []types.Type{types.IntT}, []any{int32(4)}, &types.MapValue{Keys: []any{"k"}, Values: []any{int32(4)}}, ""},
		{"map int keys", "function f(m) { const o = new Map(); for (const [k, v] of m) o.set(k + 1, v); return o; }", types.MapOf(types.IntT, types.StringT), []types.Type{types.MapOf(types.IntT, types.StringT)}, []any{&types.MapValue{Keys: []any{int32(1)}, Values: []any{"x"}}}, &types.MapValue{Keys: []any{int32(2)}, Values: []any{"x"}}, ""},
		{"row", "function f(r) { return {s: r.s + '!', i: r.i + 1}; }", row, []types.Type{row}, []any{[]any{int32(1), "a"}}, []any{int32(2), "a!"}, ""},
		{"row array", "function f(r) { return [5, 'x']; }", row, []types.Type{types.IntT}, []any{int32(1)}, []any{int32(5), "x"}, ""},
		{"bigint", "function f(a) { return BigInt(a) * 1000000000000n; }", types.BigIntT, []types.Type{types.IntT}, []any{int32(5)}, int64(5000000000000), ""},
		{"string for int", "function f(a) { return 'x'; }", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "JavaScript UDF 'f' failed at inline body of f: returned string for INT result (input row: (1))"},
		{"fraction for int", "function f(a) { return 1.5; }", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "returned number for INT result"},
		{"overflow", "function f(a) { return a * 1000; }", types.SmallIntT, []types.Type{types.SmallIntT}, []any{int16(100)}, nil, "returned int 100000 out of range for SMALLINT result"},
		{"throw", "function f(a) {\n  if (a === 0)\n    throw new Error('zero!');\n  return a;\n}", types.IntT, []types.Type{types.IntT}, []any{int32(0)}, nil, "JavaScript UDF 'f' failed at inline body of f, line 3, column 11: Error: zero! (input row: (0))"},
		{"type error", "function g(a) {\n  return a.foo.bar;\n}\nfunction f(a) { return g(a); }", types.IntT, []types.Type{types.IntT}, []any{int32(0)}, nil, "line 2, column 16: TypeError: Cannot read property 'bar' of undefined"},
		{"throw string", "function f(a) { throw 'plain'; }", types.IntT, []types.Type{types.IntT}, []any{int32(0)}, nil, "line 1, column 17: Uncaught plain"},
		{"global", "const K = 10;\nfunction f(a) { return a + K; }", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, int32(17), ""},
		{"case-insensitive name", "function F(a) { return a; }", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, int32(7), ""},
		{"no require", "function f(a) { return require('fs'); }", types.IntT, []types.Type{types.IntT}, []any{int32(7)}, nil, "ReferenceError: require is not defined"},
		{"recursion", "function f(a) { return f(a + 1); }", types.IntT, []types.Type{types.IntT}, []any{int32(1)}, nil, "RangeError: Maximum call stack size exceeded"},
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
		{"syntax", udf.Spec{Name: "f", Returns: types.IntT, Body: "function f(a) {\n  let x = (1 +;\n  return a;\n}"}, "JavaScript UDF 'f' failed at inline body of f, line 2, column 15: SyntaxError: Unexpected token ;"},
		{"missing function", udf.Spec{Name: "f", Returns: types.IntT, Body: "function g(a) { return a; }"}, "the script defines no function named 'f'"},
		{"not a function", udf.Spec{Name: "f", Returns: types.IntT, Body: "var f = 3;"}, "'f' must be a function, not a number"},
		{"body throws", udf.Spec{Name: "f", Returns: types.IntT, Body: "function f() {}\nnull.x;\n"}, "line 2, column 6: running the script body: TypeError"},
		{"aggregate missing method", udf.Spec{Name: "f", Kind: function.Aggregate, Returns: types.IntT, Body: "class f { createAccumulator() { return 0; } }"}, "class 'f' has no method accumulate"},
		{"bad identifier", udf.Spec{Name: "my-f", Returns: types.IntT, Body: "function f() {}"}, "is not a JavaScript identifier"},
		{"missing file", udf.Spec{Name: "f", Returns: types.IntT, File: "/nonexistent/x.js", Func: "f"}, "reading the script"},
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
	path := filepath.Join(t.TempDir(), "lib.js")
	require.NoError(t, os.WriteFile(path, []byte("function helper(x) { return x * 3; }\nfunction triple(x) { return helper(x); }\nfunction boom(x) {\n  return x.y.z;\n}\n"), 0o644))
	def, err := Compile(udf.Spec{Name: "t3", Params: params(types.IntT), Returns: types.IntT, File: path, Func: "triple"})
	require.NoError(t, err)
	got, err := call(def, int32(4))
	require.NoError(t, err)
	require.Equal(t, int32(12), got)
	def, err = Compile(udf.Spec{Name: "b", Params: params(types.IntT), Returns: types.IntT, File: path, Func: "boom"})
	require.NoError(t, err)
	_, err = call(def, int32(4))
	require.ErrorContains(t, err, "failed at "+path+", line 4")
}

func TestConsole(t *testing.T) {
	var buf strings.Builder
	old := SetOutput(&buf)
	defer SetOutput(old)
	def := scalar(t, "f", "function f(a) { console.log('got', a, {x: 1}); return a; }", types.IntT, types.IntT)
	_, err := call(def, int32(3))
	require.NoError(t, err)
	require.Equal(t, "got 3 [object Object]\n", buf.String())
}

func TestTimeout(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: "function f(a) { while (true) { a++; } }", Timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		start := time.Now()
		_, err = call(def, int32(1))
		require.ErrorContains(t, err, "timed out: the call ran longer than 100ms")
		require.Less(t, time.Since(start), 2*time.Second)
	}
	def, err = Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: "function f(a) { return a + 1; }", Timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	require.Equal(t, int32(2), got)
}

// TestCancel stops a call without a time limit when its statement is
// cancelled (the EvalContext's Done closes).
func TestCancel(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: "function f(a) { while (true) { a++; } }", Timeout: -1})
	require.NoError(t, err)
	done := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(done) })
	start := time.Now()
	_, err = def.Eval(&function.EvalContext{Done: done}, function.CallTypes{}, []any{int32(1)})
	require.ErrorContains(t, err, "cancelled")
	require.Less(t, time.Since(start), 2*time.Second)
}

func TestConcurrentGlobals(t *testing.T) {
	def := scalar(t, "f", "let n = 0; const seen = {};\nfunction f(a) { n++; seen[a] = (seen[a] || 0) + 1; return a + 1; }", types.IntT, types.IntT)
	bf, ok := udf.BatchImpl(def)
	require.True(t, ok)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
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
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestBatch(t *testing.T) {
	def := scalar(t, "f", "function f(a, b) { return b === null ? null : a * 10 + b; }", types.BigIntT, types.BigIntT, types.BigIntT)
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
	def = scalar(t, "g", "function g(a) {\n  if (a === 0) throw new RangeError('zero');\n  return a;\n}", types.IntT, types.IntT)
	bf, _ = udf.BatchImpl(def)
	_, err = bf.CallBatch(ectx, [][]any{{int32(1), int32(0)}}, 2)
	require.ErrorContains(t, err, "line 2, column 22: RangeError: zero (input row: (0))")
}

func TestTable(t *testing.T) {
	row := types.RowOf(types.Field{Name: "word", Type: types.StringT}, types.Field{Name: "len", Type: types.IntT})
	def, err := Compile(udf.Spec{Name: "split_words", Kind: function.Table, Params: params(types.StringT), Returns: row,
		Body: "function* split_words(s) {\n  if (s === null) return;\n  for (const w of s.split(' ')) {\n    if (w === 'boom') throw new Error('boom!');\n    yield [w, w.length];\n  }\n}"})
	require.NoError(t, err)
	tf, ok := udf.TableImpl(def)
	require.True(t, ok)
	var rows [][]any
	emit := func(r []any) error { rows = append(rows, r); return nil }
	require.NoError(t, tf.Rows(ectx, []any{"hello big world"}, emit))
	require.Equal(t, [][]any{{"hello", int32(5)}, {"big", int32(3)}, {"world", int32(5)}}, rows)
	rows = nil
	require.NoError(t, tf.Rows(ectx, []any{nil}, emit))
	require.Empty(t, rows)
	require.ErrorContains(t, tf.Rows(ectx, []any{"a boom"}, emit), "line 4, column 29: Error: boom! (input row: (a boom))")
	stop := errors.New("stop")
	require.ErrorIs(t, tf.Rows(ectx, []any{"x y"}, func([]any) error { return stop }), stop)
	_, err = def.Eval(ectx, function.CallTypes{}, []any{"x"})
	require.ErrorContains(t, err, "cannot be called as a scalar function")

	one := types.RowOf(types.Field{Name: "n", Type: types.IntT})
	def, err = Compile(udf.Spec{Name: "rng", Kind: function.Table, Params: params(types.IntT), Returns: one, Body: "function rng(n) { return Array.from({length: n}, (_, i) => i); }"})
	require.NoError(t, err)
	tf, _ = udf.TableImpl(def)
	rows = nil
	require.NoError(t, tf.Rows(ectx, []any{int32(3)}, emit))
	require.Equal(t, [][]any{{int32(0)}, {int32(1)}, {int32(2)}}, rows)

	def, err = Compile(udf.Spec{Name: "objs", Kind: function.Table, Params: params(types.IntT), Returns: row, Body: "function* objs(n) { yield {len: n, word: 'w'}; }"})
	require.NoError(t, err)
	tf, _ = udf.TableImpl(def)
	rows = nil
	require.NoError(t, tf.Rows(ectx, []any{int32(3)}, emit))
	require.Equal(t, [][]any{{"w", int32(3)}}, rows)

	def, err = Compile(udf.Spec{Name: "bad", Kind: function.Table, Params: params(types.IntT), Returns: row, Body: "function* bad(n) { yield 1; }"})
	require.NoError(t, err)
	tf, _ = udf.TableImpl(def)
	require.ErrorContains(t, tf.Rows(ectx, []any{int32(3)}, emit), "returned number for ROW")
}

const weightedAvg = `
class wavg {
  createAccumulator() { return {sum: 0, weight: 0}; }
  accumulate(acc, value, weight) {
    if (value === null) return;
    acc.sum += value * weight;
    acc.weight += weight;
  }
  retract(acc, value, weight) {
    if (value === null) return;
    acc.sum -= value * weight;
    acc.weight -= weight;
  }
  merge(acc, other) {
    acc.sum += other.sum;
    acc.weight += other.weight;
  }
  getValue(acc) { return acc.weight === 0 ? null : acc.sum / acc.weight; }
}
`

func TestAggregate(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "wavg", Kind: function.Aggregate, Params: params(types.BigIntT, types.IntT), Returns: types.DoubleT, Body: weightedAvg})
	require.NoError(t, err)
	af, ok := udf.AggregateImpl(def)
	require.True(t, ok)
	require.True(t, af.CanRetract())
	require.True(t, af.CanMerge())
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

	in2, err := af.NewInstance(ectx)
	require.NoError(t, err)
	defer in2.Close()
	b, _ := in2.CreateAccumulator()
	require.NoError(t, in2.Accumulate(b, []any{int64(40), int32(1)}))
	ex, err := in2.Export(b)
	require.NoError(t, err)
	require.Equal(t, &udf.Map{Keys: []any{"sum", "weight"}, Values: []any{int64(40), int64(1)}}, ex)
	imp, err := in.Import(ex)
	require.NoError(t, err)
	require.NoError(t, in.Merge(a, imp))
	v, _ = in.GetValue(a)
	require.Equal(t, 25.0, v)

	def, err = Compile(udf.Spec{Name: "mysum", Kind: function.Aggregate, Params: params(types.IntT), Returns: types.IntT,
		Body: "class MySum {\n  createAccumulator() { return 0; }\n  accumulate(acc, x) {\n    if (x === null) throw new TypeError('null');\n    return acc + x;\n  }\n  getValue(acc) { return acc; }\n}"})
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
	require.ErrorContains(t, in3.Accumulate(c, []any{nil}), "line 4, column 27: accumulate: TypeError: null")
}

func TestManyCalls(t *testing.T) {
	def := scalar(t, "f", "function f(s, i) { return `${s}-${i}`; }", types.StringT, types.StringT, types.IntT)
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
