package function

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// nsOf parses a wall clock into TIMESTAMP(9) nanoseconds.
func nsOf(t *testing.T, s string) int64 {
	v, err := ParseTimestampAs(s, types.TimestampOf(9))
	require.NoError(t, err)
	return v
}

func usOf(t *testing.T, s string) int64 {
	v, err := ParseTimestampAs(s, types.TimestampOf(6))
	require.NoError(t, err)
	return v
}

func TestCastNanoTimestamps(t *testing.T) {
	sh := &EvalContext{Loc: time.FixedZone("UTC+8", 8*3600)}
	ts9, ts3, ts6, ts7 := types.TimestampOf(9), types.TimestampOf(3), types.TimestampOf(6), types.TimestampOf(7)
	ltz9, ltz3 := types.TimestampLTZOf(9), types.TimestampLTZOf(3)
	v := nsOf(t, "2024-01-02 03:04:05.123456789")
	cases := []struct {
		name     string
		v        any
		from, to types.Type
		want     any
		err      string
	}{
		{"string to ts9", "2024-01-02 03:04:05.123456789", types.StringT, ts9, v, ""},
		{"string to ts7 truncates", "2024-01-02 03:04:05.123456789", types.StringT, ts7, v - 89, ""},
		{"string to ts3", "2024-01-02 03:04:05.987654321", types.StringT, ts3, usOf(t, "2024-01-02 03:04:05.987"), ""},
		{"string out of range", "2262-05-01 00:00:00", types.StringT, ts9, nil, "out of range for TIMESTAMP(9) (supported years 1678-2261)"},
		{"ts9 to string", v, ts9, types.StringT, "2024-01-02 03:04:05.123456789", ""},
		{"ts7 to string", v - 89, ts7, types.StringT, "2024-01-02 03:04:05.1234567", ""},
		{"ts9 to ts3", v, ts9, ts3, usOf(t, "2024-01-02 03:04:05.123"), ""},
		{"ts9 to ts6", v, ts9, ts6, usOf(t, "2024-01-02 03:04:05.123456"), ""},
		{"ts3 to ts9", usOf(t, "2024-01-02 03:04:05.123"), ts3, ts9, nsOf(t, "2024-01-02 03:04:05.123"), ""},
		{"ts3 to ts9 overflow", usOf(t, "2300-01-01 00:00:00"), ts3, ts9, nil, "out of range for TIMESTAMP(9)"},
		{"date to ts9", int32(19724), types.DateT, ts9, nsOf(t, "2024-01-02 00:00:00"), ""},
		{"ts9 to date", v, ts9, types.DateT, int32(19724), ""},
		{"ts9 before epoch to date", int64(-1), ts9, types.DateT, int32(-1), ""},
		{"ts9 to time", v, ts9, types.TimeOf(0), int32((3*3600 + 4*60 + 5) * 1000), ""},
		{"time to ts9", int32(1000), types.TimeOf(0), ts9, int64(1_000_000_000), ""},
		{"ts9 to ltz9", v, ts9, ltz9, v - 8*3600*1_000_000_000, ""},
		{"ltz9 to ts9", v - 8*3600*1_000_000_000, ltz9, ts9, v, ""},
		{"ltz9 to ts3", v - 8*3600*1_000_000_000, ltz9, ts3, usOf(t, "2024-01-02 03:04:05.123"), ""},
		{"ltz3 to ltz9", int64(1_500), ltz3, ltz9, int64(1_500_000), ""},
		{"ltz9 to string", int64(1), ltz9, types.StringT, "1970-01-01 08:00:00.000000001", ""},
		{"int to ltz9", int32(1), types.IntT, ltz9, int64(1_000_000_000), ""},
		{"bigint to ltz9 overflow", int64(math.MaxInt64 / 10), types.BigIntT, ltz9, nil, "out of range for TIMESTAMP_LTZ(9)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := CastValue(sh, c.v, c.from, c.to)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestNanoTimestampFunctions(t *testing.T) {
	reg := Builtins()
	ctx := &EvalContext{Loc: time.UTC}
	ts9 := types.TimestampOf(9).WithNullable(false)
	v := nsOf(t, "2024-01-31 03:04:05.123456789")
	lit := func(s string) any { return s }
	cases := []struct {
		name string
		fn   string
		args []any
		ts   []types.Type
		want any
		err  string
	}{
		{"extract second", "EXTRACT", []any{lit("SECOND"), v}, []types.Type{types.StringT, ts9}, int64(5), ""},
		{"extract millisecond", "EXTRACT", []any{lit("MILLISECOND"), v}, []types.Type{types.StringT, ts9}, int64(123), ""}, // within the second, as Flink
		{"extract microsecond", "EXTRACT", []any{lit("MICROSECOND"), v}, []types.Type{types.StringT, ts9}, int64(123456), ""},
		{"extract nanosecond", "EXTRACT", []any{lit("NANOSECOND"), v}, []types.Type{types.StringT, ts9}, int64(5123456789), ""},
		{"extract day", "EXTRACT", []any{lit("DAY"), v}, []types.Type{types.StringT, ts9}, int64(31), ""},
		{"date_format", "DATE_FORMAT", []any{v, "yyyy-MM-dd HH:mm:ss.SSSSSSSSS"}, []types.Type{ts9, types.StringT}, "2024-01-31 03:04:05.123456789", ""},
		{"timestampadd day", "TIMESTAMPADD", []any{lit("DAY"), int64(1), v}, []types.Type{types.StringT, types.BigIntT, ts9}, nsOf(t, "2024-02-01 03:04:05.123456789"), ""},
		{"timestampadd month clamps", "TIMESTAMPADD", []any{lit("MONTH"), int64(1), v}, []types.Type{types.StringT, types.BigIntT, ts9}, nsOf(t, "2024-02-29 03:04:05.123456789"), ""},
		{"timestampadd microsecond", "TIMESTAMPADD", []any{lit("MICROSECOND"), int64(1), v}, []types.Type{types.StringT, types.BigIntT, ts9}, v + 1000, ""},
		{"timestampadd overflow", "TIMESTAMPADD", []any{lit("YEAR"), int64(300), v}, []types.Type{types.StringT, types.BigIntT, ts9}, nil, "out of range for TIMESTAMP(9)"},
		{"timestampadd day overflow", "TIMESTAMPADD", []any{lit("DAY"), int64(300 * 366), v}, []types.Type{types.StringT, types.BigIntT, ts9}, nil, "out of range for TIMESTAMP(9)"},
		{"timestampdiff second", "TIMESTAMPDIFF", []any{lit("SECOND"), v, v + 1_999_999_999}, []types.Type{types.StringT, ts9, ts9}, int32(2), ""}, // milliseconds 05.123 → 07.123, as Flink
		{"plus interval", "+", []any{v, int64(1000)}, []types.Type{ts9, types.IntervalDT}, v + 1_000_000_000, ""},
		{"minus month", "-", []any{v, int32(1)}, []types.Type{ts9, types.IntervalYM}, nsOf(t, "2023-12-31 03:04:05.123456789"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok := reg.Lookup(c.fn)
			require.True(t, ok)
			res, casts, err := d.Infer(c.ts)
			require.NoError(t, err)
			ct := CallTypes{Args: append([]types.Type(nil), c.ts...), Result: res}
			for i := range casts {
				if casts[i].Kind != types.Null {
					ct.Args[i] = casts[i]
				}
			}
			got, err := d.Eval(ctx, ct, c.args)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestFloorNanoTimestamp(t *testing.T) {
	ts9 := types.TimestampOf(9)
	cases := []struct {
		unit string
		ceil bool
		v    int64
		want int64
	}{
		{"SECOND", false, nsOf(t, "2024-01-02 03:04:05.123456789"), nsOf(t, "2024-01-02 03:04:05")},
		{"MILLISECOND", false, nsOf(t, "2024-01-02 03:04:05.123456789"), nsOf(t, "2024-01-02 03:04:05.123")},
		{"SECOND", true, nsOf(t, "2024-01-02 03:04:05.000000001"), nsOf(t, "2024-01-02 03:04:06")},
		{"SECOND", false, nsOf(t, "1969-12-31 23:59:59.5"), nsOf(t, "1969-12-31 23:59:59")},
	}
	for _, c := range cases {
		t.Run(c.unit, func(t *testing.T) {
			got, err := floorTime(&EvalContext{}, c.v, ts9, c.unit, c.ceil)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestNanoTimestampNoPanics calls every function taking date/times with
// extreme TIMESTAMP(9) / TIMESTAMP_LTZ(9) values: errors are fine, panics
// and silent wrap-around are not.
func TestNanoTimestampNoPanics(t *testing.T) {
	reg := Builtins()
	ctx := &EvalContext{Loc: time.FixedZone("UTC-10", -10*3600)}
	argTypes := []types.Type{types.TimestampOf(9), types.TimestampLTZOf(9), types.StringT, types.BigIntT}
	vals := map[types.Kind][]any{
		types.Timestamp:    {int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1)},
		types.TimestampLTZ: {int64(math.MaxInt64), int64(math.MinInt64), int64(1), int64(-1)},
		types.VarChar:      {"SECOND", "2261-12-31 23:59:59.999999999", "YEAR", "yyyy-MM-dd SSSSSSSSS"},
		types.BigInt:       {int64(math.MaxInt64), int64(-1), int64(math.MinInt64), int64(1000)},
	}
	for _, name := range reg.Names() {
		d, _ := reg.Lookup(name)
		for arity := 1; arity <= 3; arity++ {
			var rec func(args []types.Type)
			rec = func(args []types.Type) {
				if len(args) < arity {
					for _, a := range argTypes {
						rec(append(append([]types.Type(nil), args...), a))
					}
					return
				}
				res, casts, err := d.Infer(args)
				if err != nil {
					return
				}
				ct := CallTypes{Args: append([]types.Type(nil), args...), Result: res}
				for i := range casts {
					if casts[i].Kind != types.Null {
						ct.Args[i] = casts[i]
					}
				}
				for trial := 0; trial < 4; trial++ {
					in := make([]any, len(args))
					ok := true
					for i := range args {
						vs := vals[args[i].Kind]
						cv, err := CastValue(ctx, vs[(trial+i)%len(vs)], args[i], ct.Args[i])
						if err != nil || cv == nil {
							ok = false
							break
						}
						in[i] = cv
					}
					if ok {
						require.NotPanics(t, func() { _, _ = d.Eval(ctx, ct, in) }, "%s%v", name, in)
					}
				}
			}
			rec(nil)
		}
	}
}

func TestCommonTypeNanoTimestamps(t *testing.T) {
	cases := []struct {
		a, b types.Type
		want types.Type
	}{
		{types.TimestampOf(3), types.TimestampOf(9), types.TimestampOf(9)},
		{types.TimestampOf(9), types.TimestampOf(6), types.TimestampOf(9)},
		{types.TimestampOf(7), types.TimestampLTZOf(3), types.TimestampLTZOf(7)},
		{types.DateT, types.TimestampOf(9), types.TimestampOf(9)},
	}
	for _, c := range cases {
		t.Run(c.a.String()+" "+c.b.String(), func(t *testing.T) {
			got, ok := CommonType(c.a, c.b)
			require.True(t, ok)
			require.Equal(t, c.want, got)
			require.True(t, CanCast(c.a, got))
			require.True(t, CanImplicitCast(c.b, got))
		})
	}
}
