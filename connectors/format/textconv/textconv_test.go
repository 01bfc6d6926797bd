package textconv

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestParseInt64(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"123", 123, true}, {"-45", -45, true}, {"+7", 7, true},
		{" 12 ", 12, true}, {"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true}, {"9223372036854775808", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1a", 0, false}, {"1.5", 0, false}, {"1 2", 0, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			v, ok := ParseInt64([]byte(c.in))
			require.Equal(t, c.ok, ok)
			if ok {
				require.Equal(t, c.want, v)
			}
		})
	}
}

func TestParseScalar(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		t     types.Type
		style TimestampStyle
		want  any
		err   string
	}{
		{"bool true", " TRUE ", types.BooleanT, SQL, true, ""},
		{"bool other", "yes", types.BooleanT, SQL, false, ""},
		{"tinyint range", "300", types.TinyIntT, SQL, nil, `Value out of range. Value:"300" Radix:10`},
		{"int", "-12", types.IntT, SQL, int32(-12), ""},
		{"int bad", "x", types.IntT, SQL, nil, `For input string: "x"`},
		{"double", "1e3", types.DoubleT, SQL, 1000.0, ""},
		{"double suffix", "2.5d", types.DoubleT, SQL, 2.5, ""},
		{"double inf", "-Infinity", types.DoubleT, SQL, math.Inf(-1), ""},
		{"double bad", "inf", types.DoubleT, SQL, nil, `For input string: "inf"`},
		{"decimal round", "1.005", types.DecimalOf(5, 2), SQL, decimal128.FromI64(101), ""},
		{"decimal neg round", "-1.005", types.DecimalOf(5, 2), SQL, decimal128.FromI64(-101), ""},
		{"decimal exp", "1.5E2", types.DecimalOf(5, 1), SQL, decimal128.FromI64(1500), ""},
		{"decimal overflow", "1000", types.DecimalOf(5, 2), SQL, nil, ""},
		{"decimal bad", "abc", types.DecimalOf(5, 2), SQL, nil, "neither a decimal digit"},
		{"date", "2024-01-31", types.DateT, SQL, int32(19753), ""},
		{"date short", "2024-1-5", types.DateT, SQL, int32(19727), ""},
		{"date bad day", "2023-02-29", types.DateT, SQL, nil, "could not be parsed"},
		{"time", "12:34:56.789", types.TimeOf(3), SQL, int32(45296789), ""},
		{"time p0 truncates", "12:34:56.789", types.TimeOf(0), SQL, int32(45296000), ""},
		{"time hm", "12:34", types.TimeOf(0), SQL, int32(45240000), ""},
		{"ts sql", "2021-04-13 20:12:11.123456", types.TimestampOf(6), SQL, int64(1618344731123456), ""},
		{"ts sql needs seconds", "2021-04-13 20:12", types.TimestampOf(3), SQL, nil, "could not be parsed"},
		{"ts json sql minutes", "2021-04-13 20:12", types.TimestampOf(3), SQLMinutes, int64(1618344720000000), ""},
		{"ts iso", "2021-04-13T20:12:11", types.TimestampOf(3), ISO, int64(1618344731000000), ""},
		{"ts iso rejects space", "2021-04-13 20:12:11", types.TimestampOf(3), ISO, nil, "could not be parsed"},
		{"ts lenient", "2021-04-13T20:12:11.5", types.TimestampOf(3), Lenient, int64(1618344731500000), ""},
		{"ltz iso Z", "1970-01-01T00:00:01Z", types.TimestampLTZOf(3), ISO, int64(1000000), ""},
		{"ltz csv Z", "1970-01-01 00:00:01Z", types.TimestampLTZOf(3), SQL, int64(1000000), ""},
		{"ts before epoch", "1969-12-31 23:59:59", types.TimestampOf(0), SQL, int64(-1000000), ""},
		{"bytes", "aGk=", types.BytesT, SQL, []byte("hi"), ""},
		{"string", " a ", types.StringT, SQL, " a ", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseScalar([]byte(c.in), c.t, c.style)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, v)
		})
	}
}

func TestFormat(t *testing.T) {
	require.Equal(t, "2021-04-13 20:12:11.123", string(AppendTimestamp(nil, 1618344731123000, false, false)))
	require.Equal(t, "2021-04-13 20:12:11", string(AppendTimestamp(nil, 1618344731000000, false, false)))
	require.Equal(t, "2021-04-13T20:12:11.1Z", string(AppendTimestamp(nil, 1618344731100000, true, true)))
	require.Equal(t, "1969-12-31 23:59:59.5", string(AppendTimestamp(nil, -500000, false, false)))
	require.Equal(t, "12:34:56.7", string(AppendTime(nil, 45296700)))
	require.Equal(t, "00:00:00", string(AppendTime(nil, 0)))
}

// The fast paths must agree with the general parsers wherever they accept
// the text, and accept the plain forms TPC-H and most files use.
func TestParseDecimalInt64MatchesParseDecimal(t *testing.T) {
	ins := []string{"0", "1", "-1", "+1", "12.34", "-12.345", "12.355", "0.005", "-0.005", "0.004",
		"999.99", "999.995", "1000", "99999999999999.99", "123456789012345678", "1.", ".5", "-.5",
		"12.3456789", "00012.30", "1e2", " 1", "1 ", "", "-", ".", "1..2", "1a", "1234567890123456789",
		"999999999999999999", "0.000000000000000001"}
	for _, in := range ins {
		for _, ps := range [][2]int{{15, 2}, {5, 2}, {3, 0}, {18, 4}, {38, 10}, {4, 4}} {
			v, fits, ok := ParseDecimalInt64([]byte(in), ps[0], ps[1])
			want, wfits, err := ParseDecimal([]byte(in), ps[0], ps[1])
			if !ok {
				continue
			}
			require.NoError(t, err, "%q %v", in, ps)
			require.Equal(t, wfits, fits, "%q %v", in, ps)
			if fits {
				require.Equal(t, want, decimal128.FromI64(v), "%q %v", in, ps)
			}
		}
	}
	for _, in := range []string{"12.34", "-0.05", "+7", "1."} {
		_, fits, ok := ParseDecimalInt64([]byte(in), 15, 2)
		require.True(t, ok && fits, in)
	}
	for _, in := range []string{"1e2", " 1", "", "-", "1234567890123456789"} {
		_, _, ok := ParseDecimalInt64([]byte(in), 38, 2)
		require.False(t, ok, in)
	}
}

func TestParseDateISOMatchesParseDate(t *testing.T) {
	for _, in := range []string{"1970-01-01", "1992-02-29", "1993-02-29", "1998-12-31", "0001-01-01",
		"9999-12-31", "2000-13-01", "2000-00-10", "2000-01-32", "2000-1-1", " 2000-01-01", "2000/01/01", "20a0-01-01"} {
		v, ok := ParseDateISO([]byte(in))
		want, err := ParseDate([]byte(in))
		if ok {
			require.NoError(t, err, in)
			require.Equal(t, want, v, in)
		} else if len(in) == 10 && err == nil {
			t.Fatalf("%q: fast path refused a strict date", in)
		}
	}
}
