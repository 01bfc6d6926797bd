package types

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"
)

// ts returns wall-clock micros of a UTC time.
func ts(s string) int64 {
	t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		panic(err)
	}
	return t.UnixMicro()
}

func tsn(s string) int64 {
	t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func TestFormatValue(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	cases := []struct {
		name string
		v    any
		t    Type
		loc  *time.Location
		want string
	}{
		{"true", true, BooleanT, nil, "TRUE"},
		{"false", false, BooleanT, nil, "FALSE"},
		{"tinyint", int8(-5), TinyIntT, nil, "-5"},
		{"smallint", int16(300), SmallIntT, nil, "300"},
		{"int", int32(42), IntT, nil, "42"},
		{"bigint", int64(-9223372036854775808), BigIntT, nil, "-9223372036854775808"},
		{"double 1", 1.0, DoubleT, nil, "1.0"},
		{"double 0.1", 0.1, DoubleT, nil, "0.1"},
		{"double 1e10", 1e10, DoubleT, nil, "1.0E10"},
		{"double 1.23e-5", 1.23e-5, DoubleT, nil, "1.23E-5"},
		{"double 1e7", 1e7, DoubleT, nil, "1.0E7"},
		{"double 9999999", 9999999.0, DoubleT, nil, "9999999.0"},
		{"double 0.001", 0.001, DoubleT, nil, "0.001"},
		{"double 123.456", 123.456, DoubleT, nil, "123.456"},
		{"double -2.5", -2.5, DoubleT, nil, "-2.5"},
		{"double nan", math.NaN(), DoubleT, nil, "NaN"},
		{"double inf", math.Inf(1), DoubleT, nil, "Infinity"},
		{"double -inf", math.Inf(-1), DoubleT, nil, "-Infinity"},
		{"double -0", math.Copysign(0, -1), DoubleT, nil, "-0.0"},
		{"double 0", 0.0, DoubleT, nil, "0.0"},
		{"float 0.1", float32(0.1), FloatT, nil, "0.1"},
		{"float 1.1", float32(1.1), FloatT, nil, "1.1"},
		{"float 3e10", float32(3e10), FloatT, nil, "3.0E10"},
		{"decimal 1.50", decimal128.FromI64(150), DecimalOf(10, 2), nil, "1.50"},
		{"decimal -0.05", decimal128.FromI64(-5), DecimalOf(10, 2), nil, "-0.05"},
		{"decimal 0.00", decimal128.FromI64(0), DecimalOf(10, 2), nil, "0.00"},
		{"decimal scale0", decimal128.FromI64(12), DecimalOf(10, 0), nil, "12"},
		{"decimal big", decimal128.FromBigInt(bigPow10(30)), DecimalOf(38, 2), nil, "10000000000000000000000000000.00"},
		{"string", "héllo", StringT, nil, "héllo"},
		{"char", "ab", CharOf(2), nil, "ab"},
		{"bytes", []byte{0x0a, 0x1b, 0xff}, BytesT, nil, "x'0a1bff'"},
		{"date", int32(19753), DateT, nil, "2024-01-31"},
		{"date epoch", int32(0), DateT, nil, "1970-01-01"},
		{"date negative", int32(-1), DateT, nil, "1969-12-31"},
		{"time0", int32((20*3600 + 12*60 + 11) * 1000), TimeOf(0), nil, "20:12:11"},
		{"time3", int32((12*3600+34*60+56)*1000 + 7), TimeOf(3), nil, "12:34:56.007"},
		{"time1", int32((12*3600+34*60+56)*1000 + 789), TimeOf(1), nil, "12:34:56.7"},
		{"ts0", ts("2021-04-13 20:12:11"), TimestampOf(0), nil, "2021-04-13 20:12:11"},
		{"ts3", ts("2021-04-13 20:12:11.123"), TimestampOf(3), nil, "2021-04-13 20:12:11.123"},
		{"ts3 pad", ts("2021-04-13 21:12:11.1"), TimestampOf(3), nil, "2021-04-13 21:12:11.100"},
		{"ts6", ts("2021-04-13 21:12:11.000001"), TimestampOf(6), nil, "2021-04-13 21:12:11.000001"},
		{"ts9 pad", tsn("2021-04-13 21:12:11.1"), TimestampOf(9), nil, "2021-04-13 21:12:11.100000000"},
		{"ts9 nanos", tsn("2021-04-13 21:12:11.123456789"), TimestampOf(9), nil, "2021-04-13 21:12:11.123456789"},
		{"ts7", tsn("2021-04-13 21:12:11.123456789"), TimestampOf(7), nil, "2021-04-13 21:12:11.1234567"},
		{"ts9 before epoch", tsn("1969-12-31 23:59:59.999999999"), TimestampOf(9), nil, "1969-12-31 23:59:59.999999999"},
		{"ltz9 shanghai", int64(1), TimestampLTZOf(9), shanghai, "1970-01-01 08:00:00.000000001"},
		{"ts before epoch", ts("1969-12-31 23:59:59.5"), TimestampOf(1), nil, "1969-12-31 23:59:59.5"},
		{"ltz0 utc", int64(1_000_000), TimestampLTZOf(0), nil, "1970-01-01 00:00:01"},
		{"ltz3 shanghai", int64(1_000), TimestampLTZOf(3), shanghai, "1970-01-01 08:00:00.001"},
		{"ltz3 utc", int64(1_000_000), TimestampLTZOf(3), time.UTC, "1970-01-01 00:00:01.000"},
		{"interval day", int64(86_400_000), IntervalDT, nil, "+1 00:00:00.000"},
		{"interval neg", int64(-(3_600_000 + 1)), IntervalDT, nil, "-0 01:00:00.001"},
		{"interval year", int32(12), IntervalYM, nil, "+1-00"},
		{"interval months", int32(-14), IntervalYM, nil, "-1-02"},
		{"array", []any{int32(1), int32(2), nil}, ArrayOf(IntT), nil, "[1, 2, NULL]"},
		{"array bool", []any{true, false}, ArrayOf(BooleanT), nil, "[TRUE, FALSE]"},
		{"empty array", []any{}, ArrayOf(IntT), nil, "[]"},
		{"map", &MapValue{Keys: []any{"k1", "k2"}, Values: []any{int32(1), nil}}, MapOf(StringT, IntT), nil, "{k1=1, k2=NULL}"},
		{"row", []any{int32(1), "abc", nil}, RowOf(Field{Name: "a", Type: IntT}, Field{Name: "b", Type: StringT}, Field{Name: "c", Type: DoubleT}), nil, "(1, abc, NULL)"},
		{"nested", []any{[]any{1.5}}, RowOf(Field{Name: "a", Type: ArrayOf(DoubleT)}), nil, "([1.5])"},
		{"null", nil, IntT, nil, "NULL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, FormatValue(c.v, c.t, c.loc))
		})
	}
}

func TestFormatJava(t *testing.T) {
	cases := []struct {
		name string
		v    any
		t    Type
		want string
	}{
		{"null", nil, IntT, "null"},
		{"true", true, BooleanT, "true"},
		{"false", false, BooleanT, "false"},
		{"int", int32(7), IntT, "7"},
		{"bigint", int64(-7), BigIntT, "-7"},
		{"double", 1e10, DoubleT, "1.0E10"},
		{"double small", 0.5, DoubleT, "0.5"},
		{"float", float32(2), FloatT, "2.0"},
		{"decimal", decimal128.FromI64(150), DecimalOf(5, 2), "1.50"},
		{"decimal tiny", decimal128.FromI64(1), DecimalOf(10, 7), "1E-7"},
		{"decimal tiny2", decimal128.FromI64(15), DecimalOf(10, 9), "1.5E-8"},
		{"decimal zero scale 8", decimal128.FromI64(0), DecimalOf(10, 8), "0E-8"},
		{"decimal 6", decimal128.FromI64(1), DecimalOf(10, 6), "0.000001"},
		{"string", "Hello", StringT, "Hello"},
		{"bytes", []byte{1, 0xfe}, BytesT, "[1, -2]"},
		{"date", int32(18730), DateT, "2021-04-13"},
		{"time hm", int32((20*3600 + 12*60) * 1000), TimeOf(0), "20:12"},
		{"time hms", int32((20*3600 + 12*60 + 11) * 1000), TimeOf(0), "20:12:11"},
		{"time millis", int32((20*3600+12*60)*1000 + 100), TimeOf(3), "20:12:00.100"},
		{"timestamp", ts("2021-04-13 20:12:11.123"), TimestampOf(3), "2021-04-13T20:12:11.123"},
		{"timestamp no secs", ts("2021-04-13 20:12:00"), TimestampOf(3), "2021-04-13T20:12"},
		{"timestamp micros", ts("2021-04-13 20:12:11.123400"), TimestampOf(6), "2021-04-13T20:12:11.123400"},
		{"ltz", ts("2021-04-13 12:12:11.123"), TimestampLTZOf(3), "2021-04-13T12:12:11.123Z"},
		{"ltz zero", int64(0), TimestampLTZOf(3), "1970-01-01T00:00:00Z"},
		{"timestamp nanos", tsn("2021-04-13 20:12:11.123456789"), TimestampOf(9), "2021-04-13T20:12:11.123456789"},
		{"timestamp nanos millis", tsn("2021-04-13 20:12:11.120"), TimestampOf(9), "2021-04-13T20:12:11.120"},
		{"ltz nanos", int64(1), TimestampLTZOf(9), "1970-01-01T00:00:00.000000001Z"},
		{"duration zero", int64(0), IntervalDT, "PT0S"},
		{"duration day", int64(86_400_000), IntervalDT, "PT24H"},
		{"duration mixed", int64(3_661_500), IntervalDT, "PT1H1M1.5S"},
		{"duration neg", int64(-500), IntervalDT, "PT-0.5S"},
		{"duration neg2", int64(-1500), IntervalDT, "PT-1.5S"},
		{"period", int32(14), IntervalYM, "P1Y2M"},
		{"period zero", int32(0), IntervalYM, "P0D"},
		{"period months", int32(14), Type{Kind: IntervalYearMonth, Unit: "MONTH"}, "P14M"},
		{"array", []any{int32(1), nil}, ArrayOf(IntT), "[1, null]"},
		{"map", &MapValue{Keys: []any{"a"}, Values: []any{int32(1)}}, MapOf(StringT, IntT), "{a=1}"},
		// java.util.HashMap order: by hash bucket, then insertion order.
		{"map hash order ints", &MapValue{Keys: []any{int32(20), int32(3), int32(17), int32(1)}, Values: []any{"t", "c", "s", "a"}},
			MapOf(IntT, StringT), "{17=s, 1=a, 3=c, 20=t}"},
		{"map hash order strings", &MapValue{Keys: []any{"banana", "apple", "cherry"}, Values: []any{int32(1), int32(2), int32(3)}},
			MapOf(StringT, IntT), "{banana=1, apple=2, cherry=3}"},
		{"map duplicate key", &MapValue{Keys: []any{"k", "k"}, Values: []any{int32(1), int32(2)}}, MapOf(StringT, IntT), "{k=2}"},
		{"map bytes keys insertion order", &MapValue{Keys: []any{[]byte{2}, []byte{1}}, Values: []any{int32(1), int32(2)}},
			MapOf(BytesT, IntT), "{[2]=1, [1]=2}"},
		{"row", []any{int32(1), "a"}, RowOf(Field{Name: "x", Type: IntT}, Field{Name: "y", Type: StringT}), "+I[1, a]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, FormatJava(c.v, c.t))
		})
	}
}

func bigPow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
