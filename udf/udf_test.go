package udf

import (
	"fmt"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

var testLang = &Lang{Name: "Test", TypeName: func(v any) string { return fmt.Sprintf("%T", v) }}
var looseLang = &Lang{Name: "Loose", TypeName: func(v any) string { return fmt.Sprintf("%T", v) }, LooseInts: true}

func TestCoerce(t *testing.T) {
	ctx := &function.EvalContext{Loc: time.UTC}
	dec := func(s string) decimal128.Num {
		n, err := decimal128.FromString(s, 10, 2)
		require.NoError(t, err)
		return n
	}
	huge, _ := new(big.Int).SetString("100000000000000000000", 10)
	row := types.RowOf(types.Field{Name: "a", Type: types.IntT}, types.Field{Name: "b", Type: types.StringT})
	tests := []struct {
		name string
		lang *Lang
		v    any
		t    types.Type
		want any
		err  string
	}{
		{"null", testLang, nil, types.IntT, nil, ""},
		{"null not null", testLang, nil, types.IntT.WithNullable(false), nil, "returned <nil> for INT NOT NULL result"},
		{"bool", testLang, true, types.BooleanT, true, ""},
		{"bool bad", testLang, int64(1), types.BooleanT, nil, "returned int64 for BOOLEAN result"},
		{"tinyint", testLang, int64(-128), types.TinyIntT, int8(-128), ""},
		{"tinyint range", testLang, int64(128), types.TinyIntT, nil, "returned int 128 out of range for TINYINT result"},
		{"smallint", testLang, int64(300), types.SmallIntT, int16(300), ""},
		{"int", testLang, int64(7), types.IntT, int32(7), ""},
		{"bigint", testLang, int64(1) << 60, types.BigIntT, int64(1) << 60, ""},
		{"big int", testLang, huge, types.BigIntT, nil, "out of range for BIGINT"},
		{"float strict", testLang, 2.0, types.IntT, nil, "returned float64 for INT result"},
		{"float loose", looseLang, 2.0, types.IntT, int32(2), ""},
		{"float loose fraction", looseLang, 2.5, types.IntT, nil, "returned float64 for INT result"},
		{"double from int", testLang, int64(3), types.DoubleT, 3.0, ""},
		{"double from big", testLang, huge, types.DoubleT, 1e20, ""},
		{"float", testLang, 1.5, types.FloatT, float32(1.5), ""},
		{"decimal str", testLang, "12.34", types.DecimalOf(10, 2), dec("12.34"), ""},
		{"decimal float", testLang, 12.346, types.DecimalOf(10, 2), dec("12.35"), ""},
		{"decimal int", testLang, int64(12), types.DecimalOf(10, 2), dec("12"), ""},
		{"decimal overflow", testLang, "123456789012", types.DecimalOf(10, 2), nil, "does not fit DECIMAL(10, 2)"},
		{"decimal bad", testLang, true, types.DecimalOf(10, 2), nil, "returned bool for DECIMAL(10, 2) result"},
		{"string", testLang, "x", types.StringT, "x", ""},
		{"string bad", testLang, int64(1), types.StringT, nil, "returned int64 for STRING result"},
		{"bytes", testLang, []byte("x"), types.BytesT, []byte("x"), ""},
		{"date str", testLang, "1970-01-02", types.DateT, int32(1), ""},
		{"date int", testLang, int64(3), types.DateT, int32(3), ""},
		{"date time.Time", testLang, time.Date(1970, 1, 3, 5, 0, 0, 0, time.UTC), types.DateT, int32(2), ""},
		{"date bad str", testLang, "x", types.DateT, nil, "returned str 'x' that is not a valid DATE"},
		{"time str", testLang, "01:00:00", types.TimeOf(0), int32(3600000), ""},
		{"timestamp str", testLang, "1970-01-01 00:00:01.5", types.TimestampOf(3), int64(1500000), ""},
		{"timestamp time.Time", testLang, time.UnixMilli(1500).UTC(), types.TimestampOf(3), int64(1500000), ""},
		{"ltz str in zone", testLang, "1970-01-01 00:00:00", types.TimestampLTZOf(3), int64(0), ""},
		{"interval dt", testLang, int64(1000), types.IntervalDT, int64(1000), ""},
		{"interval ym", testLang, int64(14), types.IntervalYM, int32(14), ""},
		{"array", testLang, []any{int64(1), nil}, types.ArrayOf(types.IntT), []any{int32(1), nil}, ""},
		{"array bad elem", testLang, []any{"x"}, types.ArrayOf(types.IntT), nil, "element 0: returned string for INT result"},
		{"map", testLang, &Map{Keys: []any{"k"}, Values: []any{int64(1)}}, types.MapOf(types.StringT, types.BigIntT), &types.MapValue{Keys: []any{"k"}, Values: []any{int64(1)}}, ""},
		{"map pairs", testLang, []any{[]any{int64(1), "a"}}, types.MapOf(types.IntT, types.StringT), &types.MapValue{Keys: []any{int32(1)}, Values: []any{"a"}}, ""},
		{"map bad pairs", testLang, []any{int64(1)}, types.MapOf(types.IntT, types.StringT), nil, "not a (key, value) pair"},
		{"row list", testLang, []any{int64(1), "x"}, row, []any{int32(1), "x"}, ""},
		{"row arity", testLang, []any{int64(1)}, row, nil, "returned 1 values for ROW"},
		{"row map", testLang, &Map{Keys: []any{"b"}, Values: []any{"y"}}, row, []any{nil, "y"}, ""},
		{"row field err", testLang, []any{"1", "x"}, row, nil, "field 'a': returned string for INT result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Coerce(ctx, tc.lang, tc.v, tc.t)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestError(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Lang: "Python", Func: "f", Source: "inline body of f", Line: 3, Msg: "ZeroDivisionError: division by zero", Input: "(1, 0)"},
			"Python UDF 'f' failed at inline body of f, line 3: ZeroDivisionError: division by zero (input row: (1, 0))"},
		{Error{Lang: "JavaScript", Func: "g", Source: "a.js", Line: 2, Col: 5, Msg: "Error: x"}, "JavaScript UDF 'g' failed at a.js, line 2, column 5: Error: x"},
		{Error{Lang: "Python", Func: "h", Msg: "boom"}, "Python UDF 'h' failed: boom"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, tc.e.Error())
	}
	require.Equal(t, "(1, NULL, abc)", FormatInput([]any{int32(1), nil, "abc"}, []types.Type{types.IntT, types.IntT, types.StringT}))
}

func TestSpec(t *testing.T) {
	tests := []struct {
		spec             Spec
		source, entry    string
		timeout          time.Duration
		validateContains string
	}{
		{Spec{Name: "f", Body: "x"}, "inline body of f", "f", DefaultTimeout, ""},
		{Spec{Name: "f", File: "/a/b.py", Func: "g", Timeout: -1}, "/a/b.py", "g", 0, ""},
		{Spec{Name: "f", Body: "x", SourceName: "q.sql", Timeout: time.Second}, "q.sql", "f", time.Second, ""},
		{Spec{Name: "f"}, "inline body of f", "f", DefaultTimeout, "neither an inline body nor a script file"},
		{Spec{Name: "f", Body: "x", Kind: function.Table, Returns: types.IntT}, "inline body of f", "f", DefaultTimeout, "must return a ROW type"},
		{Spec{Body: "x"}, "inline body of ", "", DefaultTimeout, "without a name"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.source, tc.spec.Source())
		require.Equal(t, tc.entry, tc.spec.Entry())
		require.Equal(t, tc.timeout, tc.spec.CallTimeout())
		err := ValidateSpec(tc.spec)
		if tc.validateContains == "" {
			require.NoError(t, err)
		} else {
			require.ErrorContains(t, err, tc.validateContains)
		}
	}
}

func TestPool(t *testing.T) {
	made, dropped := 0, 0
	p := NewPool(func() (*int, error) { made++; x := made; return &x, nil }, func(*int) { dropped++ })
	a, _ := p.Get()
	b, _ := p.Get()
	require.Equal(t, 2, made)
	require.NotSame(t, a, b)
	p.Put(a)
	p.Put(b)
	p.Clear()
	p.Put(a) // after Clear: dropped
	require.GreaterOrEqual(t, dropped, 1)
	c, _ := p.Get()
	require.NotNil(t, c)
}

func TestWatch(t *testing.T) {
	var fired atomic.Int32
	w := NewWatch(50*time.Millisecond, func() { fired.Add(1) })
	defer w.Close()
	w.Begin()
	require.Eventually(t, func() bool { return fired.Load() == 1 }, 2*time.Second, 5*time.Millisecond)
	require.True(t, w.End())
	w.Begin()
	require.False(t, w.End())
	require.Equal(t, int32(1), fired.Load())
	none := NewWatch(0, func() { t.Fatal("must not fire") })
	none.Begin()
	require.False(t, none.End())
	none.Close()
}
