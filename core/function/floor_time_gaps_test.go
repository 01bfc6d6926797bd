package function

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestFloorCeilTime(t *testing.T) {
	ts := func(s string) int64 {
		v, err := ParseTimestamp(s)
		require.NoError(t, err)
		return v
	}
	date := func(s string) int32 {
		v, err := ParseDate(s)
		require.NoError(t, err)
		return v
	}
	tsT := types.TimestampOf(3)
	cases := []struct {
		name string
		v    any
		t    types.Type
		unit string
		ceil bool
		want any
	}{
		{"hour", ts("2024-03-01 10:20:30"), tsT, "HOUR", false, ts("2024-03-01 10:00:00")},
		{"ceil hour", ts("2024-03-01 10:20:30"), tsT, "HOUR", true, ts("2024-03-01 11:00:00")},
		{"ceil exact", ts("2024-03-01 00:00:00"), tsT, "DAY", true, ts("2024-03-01 00:00:00")},
		{"week starts on sunday", ts("2024-03-06 10:20:30.123"), tsT, "week", false, ts("2024-03-03 00:00:00")},
		{"quarter", ts("2024-05-15 01:02:03"), tsT, "QUARTER", false, ts("2024-04-01 00:00:00")},
		{"millisecond", ts("2024-05-15 01:02:03.123456"), types.TimestampOf(6), "MILLISECOND", false, ts("2024-05-15 01:02:03.123")},
		{"before epoch", ts("1969-12-31 23:59:59.5"), tsT, "SECOND", false, ts("1969-12-31 23:59:59")},
		{"date month", date("2024-02-15"), types.DateT, "MONTH", false, date("2024-02-01")},
		{"date ceil month", date("2024-02-15"), types.DateT, "MONTH", true, date("2024-03-01")},
		{"date ceil year", date("2024-12-31"), types.DateT, "YEAR", true, date("2025-01-01")},
		{"time minute", int32((10*3600 + 20*60 + 30) * 1000), types.Type{Kind: types.Time}, "MINUTE", false, int32((10*3600 + 20*60) * 1000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := floorTime(&EvalContext{Loc: time.UTC}, c.v, c.t, c.unit, c.ceil)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
	// TIMESTAMP_LTZ rounds in the session zone
	z, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	inst := time.Date(2024, 3, 1, 1, 30, 0, 0, z).UnixMicro()
	got, err := floorTime(&EvalContext{Loc: z}, inst, types.TimestampLTZOf(3), "DAY", false)
	require.NoError(t, err)
	require.Equal(t, time.Date(2024, 3, 1, 0, 0, 0, 0, z).UnixMicro(), got)
	_, err = floorTime(nil, inst, tsT, "CENTURY", false)
	require.ErrorContains(t, err, "not supported yet")
}
