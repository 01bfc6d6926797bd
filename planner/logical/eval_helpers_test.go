package logical_test

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var (
	reg     = function.Builtins()
	testCtx = &function.EvalContext{
		Loc: time.FixedZone("UTC+8", 8*3600),
		Now: time.Date(2024, 3, 15, 1, 2, 3, 456_000_000, time.UTC),
	}
)

// lit builds a literal with the type Flink gives the Go value.
func lit(v any) logical.Expr {
	switch x := v.(type) {
	case nil:
		return &logical.Literal{T: types.NullType}
	case bool:
		return &logical.Literal{Value: x, T: types.BooleanT.WithNullable(false)}
	case int:
		return &logical.Literal{Value: int32(x), T: types.IntT.WithNullable(false)}
	case int8:
		return &logical.Literal{Value: x, T: types.TinyIntT.WithNullable(false)}
	case int16:
		return &logical.Literal{Value: x, T: types.SmallIntT.WithNullable(false)}
	case int32:
		return &logical.Literal{Value: x, T: types.IntT.WithNullable(false)}
	case int64:
		return &logical.Literal{Value: x, T: types.BigIntT.WithNullable(false)}
	case float32:
		return &logical.Literal{Value: x, T: types.FloatT.WithNullable(false)}
	case float64:
		return &logical.Literal{Value: x, T: types.DoubleT.WithNullable(false)}
	case string:
		return &logical.Literal{Value: x, T: types.CharOf(len([]rune(x))).WithNullable(false)}
	case logical.Expr:
		return x
	}
	panic("lit: unsupported")
}

// typed builds a literal of an explicit type.
func typed(v any, t types.Type) logical.Expr { return &logical.Literal{Value: v, T: t} }

// dec builds a DECIMAL literal from text.
func dec(s string, p, sc int) logical.Expr {
	n, err := decimal128.FromString(s, int32(p), int32(sc))
	if err != nil {
		panic(err)
	}
	return &logical.Literal{Value: n, T: types.DecimalOf(p, sc).WithNullable(false)}
}

func date(s string) logical.Expr {
	d, err := function.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return &logical.Literal{Value: d, T: types.DateT.WithNullable(false)}
}

func ts(s string, p int) logical.Expr {
	us, err := function.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return &logical.Literal{Value: us, T: types.TimestampOf(p).WithNullable(false)}
}

func intervalDT(ms int64) logical.Expr {
	return &logical.Literal{Value: ms, T: types.IntervalDT.WithNullable(false)}
}

func intervalYM(m int32) logical.Expr {
	return &logical.Literal{Value: m, T: types.IntervalYM.WithNullable(false)}
}

// mkCall types a call like the validator: Infer, then casts where asked.
func mkCall(t testing.TB, name string, args ...any) logical.Expr {
	t.Helper()
	e, err := tryCall(name, args...)
	require.NoError(t, err, name)
	return e
}

func tryCall(name string, args ...any) (logical.Expr, error) {
	xs := make([]logical.Expr, len(args))
	ts := make([]types.Type, len(args))
	for i, a := range args {
		xs[i] = lit(a)
		ts[i] = xs[i].Type()
	}
	def, ok := reg.Lookup(name)
	if !ok {
		return nil, &missing{name}
	}
	res, casts, err := def.Infer(ts)
	if err != nil {
		return nil, err
	}
	for i, c := range casts {
		if c.Kind == types.Null && c.Precision == 0 && ts[i].Kind != types.Null {
			continue
		}
		if !c.Equal(ts[i]) {
			xs[i] = &logical.Cast{Arg: xs[i], T: c}
		}
	}
	return &logical.Call{Name: def.Name, Args: xs, T: res, Def: def}, nil
}

type missing struct{ name string }

func (m *missing) Error() string { return "missing function " + m.name }

func castE(e any, t types.Type) logical.Expr { return &logical.Cast{Arg: lit(e), T: t} }

// show evaluates e and renders the result as CAST(… AS STRING) text
// ("NULL" for NULL).
func show(t testing.TB, e logical.Expr) (string, error) {
	t.Helper()
	v, err := logical.Eval(testCtx, reg, e, nil)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "NULL", nil
	}
	s, err := function.CastValue(testCtx, v, e.Type(), types.StringT)
	require.NoError(t, err)
	return s.(string), nil
}
