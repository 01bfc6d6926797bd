package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var (
	testReg = function.Builtins()
	testCtx = &function.EvalContext{Loc: time.UTC, Now: time.Date(2024, 3, 15, 1, 2, 3, 0, time.UTC)}
)

// testSchema covers the types the kernels specialise.
var testSchema = types.Schema{
	{Name: "i8", Type: types.TinyIntT},
	{Name: "i32", Type: types.IntT},
	{Name: "i64", Type: types.BigIntT},
	{Name: "f32", Type: types.FloatT},
	{Name: "f64", Type: types.DoubleT},
	{Name: "s", Type: types.StringT},
	{Name: "b", Type: types.BooleanT},
	{Name: "d", Type: types.DateT},
	{Name: "ts", Type: types.TimestampOf(3)},
	{Name: "dec", Type: types.DecimalOf(10, 2)},
	{Name: "nn", Type: types.IntT.WithNullable(false)},
	{Name: "arr", Type: types.ArrayOf(types.IntT)},
	{Name: "row", Type: types.RowOf(types.Field{Name: "x", Type: types.IntT}, types.Field{Name: "y", Type: types.StringT})},
	{Name: "big", Type: types.DecimalOf(38, 0)},
}

var words = []string{"", "a", "ab", "abc", "Hello", "héllo", "x%y", "A_B", "zz", "1", "42", " 7 ", "2024-01-02"}

func randValue(r *rand.Rand, t types.Type) any {
	switch t.Kind {
	case types.TinyInt:
		return int8(r.IntN(11) - 5)
	case types.Int:
		return int32(r.IntN(21) - 10)
	case types.BigInt:
		if r.IntN(10) == 0 {
			return int64(math.MaxInt64 - r.IntN(3))
		}
		return int64(r.IntN(41) - 20)
	case types.Float:
		return float32(r.IntN(21)-10) / 4
	case types.Double:
		switch r.IntN(20) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		}
		return float64(r.IntN(41)-20) / 8
	case types.VarChar:
		return words[r.IntN(len(words))]
	case types.Boolean:
		return r.IntN(2) == 0
	case types.Date:
		return int32(19000 + r.IntN(100))
	case types.Timestamp:
		return int64(1_700_000_000_000_000 + int64(r.IntN(1000))*3_600_000_000)
	case types.Decimal:
		if t.Precision == 38 {
			// Near the limit, so that sums overflow to NULL.
			m := decimal128.GetMaxValue(38)
			switch r.IntN(3) {
			case 0:
				return m
			case 1:
				return m.Negate()
			}
			return decimal128.FromI64(int64(r.IntN(100)))
		}
		return decimal128.FromI64(int64(r.IntN(20001) - 10000))
	case types.Array:
		n := r.IntN(3)
		out := make([]any, n)
		for i := range out {
			if r.IntN(4) > 0 {
				out[i] = randValue(r, *t.Elem)
			}
		}
		return out
	case types.Row:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			if r.IntN(4) > 0 {
				out[i] = randValue(r, f.Type)
			}
		}
		return out
	}
	panic(fmt.Sprintf("randValue %s", t))
}

func randRows(r *rand.Rand, s types.Schema, n int, nullPct int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		row := make([]any, len(s))
		for c, f := range s {
			if f.Type.Nullable() && r.IntN(100) < nullPct {
				continue
			}
			row[c] = randValue(r, f.Type)
		}
		rows[i] = row
	}
	return rows
}

func buildRec(t testing.TB, s types.Schema, rows [][]any) arrow.RecordBatch {
	rec, err := types.BuildRecord(memory.DefaultAllocator, s, rows)
	require.NoError(t, err)
	return rec
}

func col(i int) logical.Expr {
	return &logical.ColumnRef{Index: i, Name: testSchema[i].Name, T: testSchema[i].Type}
}

func lit(v any, t types.Type) logical.Expr { return &logical.Literal{Value: v, T: t} }

// call types a call like the validator: Infer, then casts where asked.
func call(name string, args ...logical.Expr) (logical.Expr, error) {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	def, ok := testReg.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no function %s", name)
	}
	res, casts, err := def.Infer(ts)
	if err != nil {
		return nil, err
	}
	xs := append([]logical.Expr(nil), args...)
	for i, c := range casts {
		if c.Kind == types.Null && ts[i].Kind != types.Null {
			continue
		}
		if !c.Equal(ts[i]) {
			xs[i] = &logical.Cast{Arg: xs[i], T: c}
		}
	}
	return &logical.Call{Name: def.Name, Args: xs, T: res, Def: def}, nil
}

func mustCall(t testing.TB, name string, args ...logical.Expr) logical.Expr {
	t.Helper()
	e, err := call(name, args...)
	require.NoError(t, err)
	return e
}

// sameValue compares canonical values (NaN equals NaN).
func sameValue(a, b any, t types.Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok && math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
	}
	if fa, ok := a.(float32); ok {
		if fb, ok := b.(float32); ok && fa != fa && fb != fb {
			return true
		}
	}
	if t.IsApprox() {
		return fmt.Sprint(a) == fmt.Sprint(b)
	}
	return function.CompareValues(a, b, t) == 0 && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}

// checkAgainstOracle compiles e, evaluates it over rec, and compares every
// row with logical.Eval.
func checkAgainstOracle(t testing.TB, e logical.Expr, s types.Schema, rec arrow.RecordBatch) {
	t.Helper()
	rows := types.RecordRows(rec, s)
	var oracleErr error
	want := make([]any, len(rows))
	for i, row := range rows {
		v, err := logical.Eval(testCtx, testReg, e, row)
		if err != nil {
			oracleErr = err
			break
		}
		want[i] = v
	}
	ev, err := Compile(e, s, testReg, testCtx)
	require.NoError(t, err, e.String())
	got, err := ev.Eval(rec)
	if oracleErr != nil {
		require.Error(t, err, "expr %s: oracle failed with %v", e, oracleErr)
		return
	}
	require.NoError(t, err, e.String())
	defer got.Release()
	require.Equal(t, len(rows), got.Len(), e.String())
	at, err := types.ArrowType(e.Type())
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(at, got.DataType()), "expr %s: type %s, got %s", e, at, got.DataType())
	for i := range rows {
		g := types.GetValue(got, i, e.Type())
		if !sameValue(want[i], g, e.Type()) {
			t.Fatalf("expr %s row %d %v: oracle %v (%T), vectorized %v (%T)", e, i, rows[i], want[i], want[i], g, g)
		}
	}
	if e.Type().Kind == types.Boolean {
		f, err := CompileFilter(e, s, testReg, testCtx)
		require.NoError(t, err)
		sel, err := f.Select(rec)
		require.NoError(t, err)
		require.NotNil(t, sel)
		var exp []int32
		for i, w := range want {
			if w == true {
				exp = append(exp, int32(i))
			}
		}
		if exp == nil {
			exp = []int32{}
		}
		require.Equal(t, exp, sel, e.String())
	}
}
