package function

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func decOf(t *testing.T, s string, p, sc int) decimal128.Num {
	n, err := decimal128.FromString(s, int32(p), int32(sc))
	require.NoError(t, err)
	return n
}

func TestFormatDouble(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {0.1, 64, "0.1"}, {1.5, 64, "1.5"}, {1e10, 64, "1.0E10"}, {1.2345e-5, 64, "1.2345E-5"},
		{1e7, 64, "1.0E7"}, {9999999, 64, "9999999.0"}, {0.001, 64, "0.001"}, {0.0001, 64, "1.0E-4"},
		{-2.5, 64, "-2.5"}, {0, 64, "0.0"}, {math.Copysign(0, -1), 64, "-0.0"}, {math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"}, {math.Inf(-1), 64, "-Infinity"}, {123456789.125, 64, "1.23456789125E8"},
		{float64(float32(0.1)), 32, "0.1"}, {float64(float32(3.4e38)), 32, "3.4E38"},
		{1.0 / 3, 64, "0.3333333333333333"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, FormatDouble(tc.f, tc.bits), "%v", tc.f)
	}
}

func TestCastValue(t *testing.T) {
	ctx := &EvalContext{Loc: time.FixedZone("UTC+8", 8*3600)}
	ts := func(s string) int64 {
		us, err := ParseTimestamp(s)
		require.NoError(t, err)
		return us
	}
	day := func(s string) int32 {
		d, err := ParseDate(s)
		require.NoError(t, err)
		return d
	}
	cases := []struct {
		name     string
		v        any
		from, to types.Type
		want     any
		err      string
	}{
		{"null", nil, types.IntT, types.StringT, nil, ""},
		{"int to string", int32(42), types.IntT, types.StringT, "42", ""},
		{"double to string", 1e10, types.DoubleT, types.StringT, "1.0E10", ""},
		{"float to string", float32(1.5), types.FloatT, types.StringT, "1.5", ""},
		{"bool to string", true, types.BooleanT, types.StringT, "TRUE", ""},
		{"decimal to string", decOf(t, "1.50", 5, 2), types.DecimalOf(5, 2), types.StringT, "1.50", ""},
		{"to char pads", "ab", types.StringT, types.CharOf(4), "ab  ", ""},
		{"to varchar truncates", "abcdef", types.StringT, types.VarCharOf(3), "abc", ""},
		{"string to int", " 42 ", types.StringT, types.IntT, int32(42), ""},
		{"string to int fraction", "42.9", types.StringT, types.IntT, int32(42), ""},
		{"string to int bad", "abc", types.StringT, types.IntT, nil, "For input string: 'abc'"},
		{"string to tinyint overflow", "300", types.StringT, types.TinyIntT, nil, "For input string: '300'"},
		{"string to bigint", "-9223372036854775808", types.StringT, types.BigIntT, int64(math.MinInt64), ""},
		{"string to double", "1.5e3", types.StringT, types.DoubleT, 1500.0, ""},
		{"string to double nan", "NaN", types.StringT, types.DoubleT, math.NaN(), ""},
		{"string to double bad", "1.5x", types.StringT, types.DoubleT, nil, "For input string"},
		{"string to decimal", "1.255", types.StringT, types.DecimalOf(5, 2), decOf(t, "1.26", 5, 2), ""},
		{"string to decimal negative", "-1.255", types.StringT, types.DecimalOf(5, 2), decOf(t, "-1.26", 5, 2), ""},
		{"string to decimal overflow", "12345", types.StringT, types.DecimalOf(3, 1), nil, ""},
		{"string to bool", "TRUE", types.StringT, types.BooleanT, true, ""},
		{"string to bool 0", "0", types.StringT, types.BooleanT, false, ""},
		{"string to bool bad", "maybe", types.StringT, types.BooleanT, nil, "Cannot cast"},
		{"string to date", "2024-02-29", types.StringT, types.DateT, day("2024-02-29"), ""},
		{"string to date bad", "2023-02-29", types.StringT, types.DateT, nil, "Cannot cast"},
		{"string to time", "12:34:56.789", types.StringT, types.TimeOf(3), int32(45296789), ""},
		{"string to timestamp", "2024-01-02 03:04:05.123456", types.StringT, types.TimestampOf(6), ts("2024-01-02 03:04:05.123456"), ""},
		{"string to timestamp T", "2024-01-02T03:04:05", types.StringT, types.TimestampOf(3), ts("2024-01-02 03:04:05"), ""},
		{"string to timestamp truncates", "2024-01-02 03:04:05.123456", types.StringT, types.TimestampOf(3), ts("2024-01-02 03:04:05.123"), ""},
		{"string to ltz", "1970-01-01 08:00:00", types.StringT, types.TimestampLTZOf(3), int64(0), ""},
		{"string to bytes", "ab", types.StringT, types.BytesT, []byte("ab"), ""},
		{"bytes to string", []byte("ab"), types.BytesT, types.StringT, "ab", ""},
		{"int narrowing wraps", int32(300), types.IntT, types.TinyIntT, int8(44), ""},
		{"double to int truncates", 2.9, types.DoubleT, types.IntT, int32(2), ""},
		{"double to int negative", -2.9, types.DoubleT, types.IntT, int32(-2), ""},
		{"double to int saturates", 1e20, types.DoubleT, types.IntT, int32(math.MaxInt32), ""},
		{"nan to bigint", math.NaN(), types.DoubleT, types.BigIntT, int64(0), ""},
		{"double to decimal half up", 1.005, types.DoubleT, types.DecimalOf(5, 2), decOf(t, "1.01", 5, 2), ""},
		{"double to decimal overflow", 1e10, types.DoubleT, types.DecimalOf(5, 2), nil, ""},
		{"nan to decimal", math.NaN(), types.DoubleT, types.DecimalOf(5, 2), nil, ""},
		{"decimal to int", decOf(t, "-7.9", 5, 1), types.DecimalOf(5, 1), types.IntT, int32(-7), ""},
		{"decimal to double", decOf(t, "1.25", 5, 2), types.DecimalOf(5, 2), types.DoubleT, 1.25, ""},
		{"decimal rescale", decOf(t, "1.25", 5, 2), types.DecimalOf(5, 2), types.DecimalOf(5, 1), decOf(t, "1.3", 5, 1), ""},
		{"int to decimal", int32(7), types.IntT, types.DecimalOf(5, 2), decOf(t, "7.00", 5, 2), ""},
		{"int to bool", int32(2), types.IntT, types.BooleanT, true, ""},
		{"bool to int", true, types.BooleanT, types.IntT, int32(1), ""},
		{"date to timestamp", day("2024-01-02"), types.DateT, types.TimestampOf(3), ts("2024-01-02 00:00:00"), ""},
		{"timestamp to date", ts("2024-01-02 23:59:59"), types.TimestampOf(3), types.DateT, day("2024-01-02"), ""},
		{"timestamp to time", ts("2024-01-02 01:02:03.456"), types.TimestampOf(3), types.TimeOf(3), int32(3723456), ""},
		{"timestamp to ltz", ts("1970-01-01 08:00:00"), types.TimestampOf(3), types.TimestampLTZOf(3), int64(0), ""},
		{"ltz to timestamp", int64(0), types.TimestampLTZOf(3), types.TimestampOf(3), ts("1970-01-01 08:00:00"), ""},
		{"ltz to string", int64(0), types.TimestampLTZOf(3), types.StringT, "1970-01-01 08:00:00.000", ""},
		{"ltz to date", int64(0), types.TimestampLTZOf(3), types.DateT, day("1970-01-01"), ""},
		{"timestamp to string p0", ts("2024-01-02 03:04:05.9"), types.TimestampOf(0), types.StringT, "2024-01-02 03:04:05", ""},
		{"timestamp to string p3", ts("2024-01-02 03:04:05"), types.TimestampOf(3), types.StringT, "2024-01-02 03:04:05.000", ""},
		{"time to string", int32(3723456), types.TimeOf(0), types.StringT, "01:02:03", ""},
		{"date to string", day("2024-01-02"), types.DateT, types.StringT, "2024-01-02", ""},
		{"bigint to ltz", int64(1), types.BigIntT, types.TimestampLTZOf(3), int64(1_000_000), ""},
		{"interval dt", int64(90_061_001), types.IntervalDT, types.StringT, "+1 01:01:01.001", ""},
		{"interval dt negative", int64(-1000), types.IntervalDT, types.StringT, "-0 00:00:01.000", ""},
		{"interval ym", int32(14), types.IntervalYM, types.StringT, "+1-02", ""},
		{"array to string", []any{int32(1), nil}, types.ArrayOf(types.IntT), types.StringT, "[1, NULL]", ""},
		{"map to string", &types.MapValue{Keys: []any{"a"}, Values: []any{int32(1)}}, types.MapOf(types.StringT, types.IntT), types.StringT, "{a=1}", ""},
		{"row to string", []any{int32(1), "a"}, types.RowOf(types.Field{Name: "x", Type: types.IntT}, types.Field{Name: "y", Type: types.StringT}), types.StringT, "(1, a)", ""},
		{"array elements", []any{"1", "2"}, types.ArrayOf(types.StringT), types.ArrayOf(types.IntT), []any{int32(1), int32(2)}, ""},
		{"bad cast", true, types.BooleanT, types.DateT, nil, "Cast function cannot convert value of type BOOLEAN to type DATE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CastValue(ctx, tc.v, tc.from, tc.to)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if f, ok := tc.want.(float64); ok && math.IsNaN(f) {
				require.True(t, math.IsNaN(got.(float64)))
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseJavaDate(t *testing.T) {
	tm, err := ParseJavaDate("2024-02-29 13:45:30.123", "yyyy-MM-dd HH:mm:ss.SSS")
	require.NoError(t, err)
	require.Equal(t, "2024-02-29T13:45:30.123Z", tm.Format("2006-01-02T15:04:05.000Z07:00"))
	tm, err = ParseJavaDate("20240229", "yyyyMMdd")
	require.NoError(t, err)
	require.Equal(t, 29, tm.Day())
	tm, err = ParseJavaDate("Feb 3 2024 01:02 PM", "MMM d yyyy hh:mm a")
	require.NoError(t, err)
	require.Equal(t, 13, tm.Hour())
	_, err = ParseJavaDate("2024-02", "yyyy-MM-dd")
	require.Error(t, err)
	s, err := FormatJavaDate(tm, "EEE, dd MMM yyyy HH:mm:ss Z")
	require.NoError(t, err)
	require.Equal(t, "Sat, 03 Feb 2024 13:02:00 +0000", s)
	_, err = FormatJavaDate(tm, "yyyy-bb")
	require.Error(t, err)
}

func TestCompareValues(t *testing.T) {
	require.Equal(t, 0, CompareValues(int32(1), int64(1), types.BigIntT))
	require.Equal(t, -1, CompareValues(nil, int32(1), types.IntT))
	require.Equal(t, 1, CompareValues(math.NaN(), 1.0, types.DoubleT))
	require.Equal(t, 0, CompareValues(0.0, math.Copysign(0, -1), types.DoubleT))
	require.Equal(t, -1, CompareValues([]any{int32(1)}, []any{int32(1), int32(2)}, types.ArrayOf(types.IntT)))
	require.Equal(t, -1, CompareValues("B", "a", types.StringT))
}

func TestNoPanics(t *testing.T) {
	// Every function on awkward inputs: errors are fine, panics are not.
	reg := Builtins()
	ctx := &EvalContext{}
	vals := map[types.Kind][]any{
		types.VarChar:   {"", "\xff\xfe", "abc", "2024-01-01", "%", "\\"},
		types.Int:       {int32(0), int32(-1), int32(math.MaxInt32), int32(math.MinInt32)},
		types.BigInt:    {int64(math.MinInt64), int64(math.MaxInt64), int64(0)},
		types.Double:    {math.NaN(), math.Inf(-1), 0.0, -1.5, 1e308},
		types.Date:      {int32(0), int32(-1000000), int32(2900000)},
		types.Timestamp: {int64(0), int64(math.MinInt64 / 2), int64(math.MaxInt64 / 2)},
		types.Decimal:   {decimal128.FromI64(0), decimal128.FromI64(-99999), decimal128.FromI64(12345)},
		types.Boolean:   {true, false},
	}
	ts := map[types.Kind]types.Type{types.VarChar: types.StringT, types.Int: types.IntT, types.BigInt: types.BigIntT, types.Double: types.DoubleT,
		types.Date: types.DateT, types.Timestamp: types.TimestampOf(3), types.Decimal: types.DecimalOf(7, 2), types.Boolean: types.BooleanT}
	kinds := []types.Kind{types.VarChar, types.Int, types.BigInt, types.Double, types.Date, types.Timestamp, types.Decimal, types.Boolean}
	for _, name := range reg.Names() {
		d, _ := reg.Lookup(name)
		for arity := 0; arity <= 3; arity++ {
			var rec func(args []types.Type)
			rec = func(args []types.Type) {
				if len(args) == arity {
					res, casts, err := d.Infer(args)
					if err != nil {
						return
					}
					ct := CallTypes{Args: make([]types.Type, len(args)), Result: res}
					for i := range args {
						ct.Args[i] = args[i]
						if i < len(casts) && casts[i].Kind != types.Null {
							ct.Args[i] = casts[i]
						}
					}
					for trial := 0; trial < 6; trial++ {
						in := make([]any, len(args))
						ok := true
						for i := range args {
							vs := vals[args[i].Kind]
							v := vs[(trial+i)%len(vs)]
							cv, err := CastValue(ctx, v, args[i], ct.Args[i])
							if err != nil {
								ok = false
								break
							}
							in[i] = cv
						}
						if !ok {
							continue
						}
						if d.NullOnNull {
							skip := false
							for _, v := range in {
								if v == nil {
									skip = true
								}
							}
							if skip {
								continue
							}
						}
						require.NotPanics(t, func() { _, _ = d.Eval(ctx, ct, in) }, "%s%v", name, in)
					}
					return
				}
				for _, k := range kinds {
					rec(append(args, ts[k]))
				}
			}
			rec(nil)
		}
	}
}
