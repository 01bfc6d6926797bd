package types

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestTimestampUnits(t *testing.T) {
	cases := []struct {
		t    Type
		nano bool
		ups  int64
		unit arrow.TimeUnit
		tz   string
	}{
		{TimestampOf(0), false, 1_000_000, arrow.Microsecond, ""},
		{TimestampOf(3), false, 1_000_000, arrow.Microsecond, ""},
		{TimestampOf(6), false, 1_000_000, arrow.Microsecond, ""},
		{TimestampOf(7), true, 1_000_000_000, arrow.Nanosecond, ""},
		{TimestampOf(9), true, 1_000_000_000, arrow.Nanosecond, ""},
		{TimestampLTZOf(3), false, 1_000_000, arrow.Microsecond, "UTC"},
		{TimestampLTZOf(9), true, 1_000_000_000, arrow.Nanosecond, "UTC"},
	}
	for _, c := range cases {
		t.Run(c.t.String(), func(t *testing.T) {
			require.Equal(t, c.nano, IsNanoTimestamp(c.t))
			require.Equal(t, c.ups, TimestampUnitsPerSecond(c.t))
			at, err := ArrowType(c.t)
			require.NoError(t, err)
			require.Equal(t, c.unit, at.(*arrow.TimestampType).Unit)
			require.Equal(t, c.tz, at.(*arrow.TimestampType).TimeZone)
		})
	}
	require.False(t, IsNanoTimestamp(TimeOf(9)))
	require.Equal(t, MicrosPerSecond, TimestampUnitsPerSecond(DateT))
}

func TestConvertTimestamp(t *testing.T) {
	ts9, ts6, ts3, ts0, ts7 := TimestampOf(9), TimestampOf(6), TimestampOf(3), TimestampOf(0), TimestampOf(7)
	cases := []struct {
		name     string
		v        int64
		from, to Type
		want     int64
		err      string
	}{
		{"9 to 3 truncates", 1_123_456_789, ts9, ts3, 1_123_000, ""},
		{"9 to 6", 1_123_456_789, ts9, ts6, 1_123_456, ""},
		{"9 to 7", 1_123_456_789, ts9, ts7, 1_123_456_700, ""},
		{"9 to 0 negative floors", -1, ts9, ts0, -1_000_000, ""},
		{"3 to 9 scales", 1_123_000, ts3, ts9, 1_123_000_000, ""},
		{"6 to 6", 42, ts6, ts6, 42, ""},
		{"6 to 3", 1_123_456, ts6, ts3, 1_123_000, ""},
		{"ltz 9 to ts 3", 2_500_000_000, TimestampLTZOf(9), ts3, 2_500_000, ""},
		{"3 to 9 overflow", math.MaxInt64 / 100, ts3, ts9, 0, "out of range for TIMESTAMP(9) (supported years 1678-2261)"},
		{"3 to 9 underflow", math.MinInt64 / 100, ts3, TimestampLTZOf(9), 0, "out of range for TIMESTAMP_LTZ(9)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ConvertTimestamp(c.v, c.from, c.to)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestTimestampSplitJoin(t *testing.T) {
	year3000 := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		v     int64
		t     Type
		secs  int64
		nanos int64
	}{
		{"micros", 1_500_000, TimestampOf(6), 1, 500_000_000},
		{"nanos", 1_000_000_001, TimestampOf(9), 1, 1},
		{"negative nanos", -1, TimestampOf(9), -1, 999_999_999},
		{"negative micros", -1, TimestampOf(3), -1, 999_999_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, n := SplitTimestamp(c.v, c.t)
			require.Equal(t, c.secs, s)
			require.Equal(t, c.nanos, n)
			back, err := JoinTimestamp(s, n, c.t)
			require.NoError(t, err)
			require.Equal(t, c.v, back)
			tm := TimestampToTime(c.v, c.t)
			back, err = TimestampFromTime(tm, c.t)
			require.NoError(t, err)
			require.Equal(t, c.v, back)
		})
	}
	_, err := TimestampFromTime(year3000, TimestampOf(9))
	require.ErrorContains(t, err, "out of range for TIMESTAMP(9)")
	v, err := TimestampFromTime(year3000, TimestampOf(6))
	require.NoError(t, err)
	require.Equal(t, year3000.UnixMicro(), v)
	require.Equal(t, int64(-1), ToMicros(-1, TimestampOf(9)))
	require.Equal(t, int64(-1), ToMicros(-1, TimestampOf(6)))
	us, err := FromMicros(5, TimestampOf(9))
	require.NoError(t, err)
	require.Equal(t, int64(5000), us)
}

func TestNanoTimestampArrowRoundTrip(t *testing.T) {
	s := Schema{{Name: "a", Type: TimestampOf(9)}, {Name: "b", Type: TimestampLTZOf(9)}}
	rows := [][]any{{int64(1_618_344_731_123_456_789), int64(-1)}, {nil, nil}}
	rec, err := BuildRecord(memory.DefaultAllocator, s, rows)
	require.NoError(t, err)
	defer rec.Release()
	require.Equal(t, rows, RecordRows(rec, s))
	require.Equal(t, arrow.Nanosecond, rec.Column(0).(*array.Timestamp).DataType().(*arrow.TimestampType).Unit)
	ft, err := FromArrow(rec.Schema().Field(1).Type, true)
	require.NoError(t, err)
	require.Equal(t, TimestampLTZOf(9), ft)
}

// TestUnitMillis: every Arrow unit converts to milliseconds rounded down,
// before the epoch too.
func TestUnitMillis(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		unit arrow.TimeUnit
		want int64
	}{
		{3, arrow.Second, 3000}, {-3, arrow.Second, -3000},
		{1234, arrow.Millisecond, 1234},
		{1999, arrow.Microsecond, 1}, {-1, arrow.Microsecond, -1}, {-1000, arrow.Microsecond, -1},
		{1_999_999, arrow.Nanosecond, 1}, {-1, arrow.Nanosecond, -1},
	} {
		if got := UnitMillis(tc.v, tc.unit); got != tc.want {
			t.Errorf("UnitMillis(%d, %s) = %d, want %d", tc.v, tc.unit, got, tc.want)
		}
	}
}
