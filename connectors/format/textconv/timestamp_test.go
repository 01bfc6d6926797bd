package textconv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

func TestTimestampOfPrecision(t *testing.T) {
	ts9, ts3, ltz9 := types.TimestampOf(9), types.TimestampOf(3), types.TimestampLTZOf(9)
	cases := []struct {
		name  string
		text  string
		style TimestampStyle
		zoned bool
		t     types.Type
		want  int64
		out   string // AppendTimestampOf (non-ISO unless style is ISO)
		err   string
	}{
		{"nanos", "2024-01-02 03:04:05.123456789", SQL, false, ts9, 1704164645_123456789, "2024-01-02 03:04:05.123456789", ""},
		{"nanos trailing zeros trimmed", "2024-01-02 03:04:05.100000000", SQL, false, ts9, 1704164645_100000000, "2024-01-02 03:04:05.1", ""},
		{"micros type keeps micros", "2024-01-02 03:04:05.123456789", SQL, false, ts3, 1704164645_123456, "2024-01-02 03:04:05.123456", ""},
		{"before epoch", "1969-12-31 23:59:59.999999999", SQL, false, ts9, -1, "1969-12-31 23:59:59.999999999", ""},
		{"iso zoned", "1970-01-01T00:00:00.000000001Z", ISO, true, ltz9, 1, "1970-01-01T00:00:00.000000001Z", ""},
		{"out of range", "2300-01-01 00:00:00", SQL, false, ts9, 0, "", "out of range for TIMESTAMP(9) (supported years 1678-2261)"},
		{"bad text", "2024-01-02", SQL, false, ts9, 0, "", "could not be parsed as a TIMESTAMP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTimestampOf([]byte(c.text), c.style, c.zoned, c.t)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
			require.Equal(t, c.out, string(AppendTimestampOf(nil, got, c.t, c.style == ISO, c.zoned)))
			v, err := ParseScalar([]byte(c.text), c.t, c.style)
			if !c.zoned {
				require.NoError(t, err)
				require.Equal(t, c.want, v)
			}
		})
	}
}
