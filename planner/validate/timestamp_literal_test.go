package validate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestTimestampLiteralPrecision(t *testing.T) {
	shanghai := time.FixedZone("UTC+8", 8*3600)
	cases := []struct {
		name string
		sql  string
		loc  *time.Location
		want any
		typ  types.Type
		err  string
	}{
		{"seconds", "TIMESTAMP '2024-01-02 03:04:05'", time.UTC, int64(1704164645_000000), types.TimestampOf(0), ""},
		{"millis", "TIMESTAMP '2024-01-02 03:04:05.123'", time.UTC, int64(1704164645_123000), types.TimestampOf(3), ""},
		{"micros", "TIMESTAMP '2024-01-02 03:04:05.123456'", time.UTC, int64(1704164645_123456), types.TimestampOf(6), ""},
		{"seven digits", "TIMESTAMP '2024-01-02 03:04:05.1234567'", time.UTC, int64(1704164645_123456700), types.TimestampOf(7), ""},
		{"nanos", "TIMESTAMP '2024-01-02 03:04:05.123456789'", time.UTC, int64(1704164645_123456789), types.TimestampOf(9), ""},
		{"nanos before epoch", "TIMESTAMP '1969-12-31 23:59:59.999999999'", time.UTC, int64(-1), types.TimestampOf(9), ""},
		{"ltz nanos in zone", "TIMESTAMP_LTZ '1970-01-01 08:00:00.000000001'", shanghai, int64(1), types.TimestampLTZOf(9), ""},
		{"ltz micros in zone", "TIMESTAMP_LTZ '1970-01-01 08:00:01.5'", shanghai, int64(1_500_000), types.TimestampLTZOf(1), ""},
		{"nanos out of range", "TIMESTAMP '2262-04-12 00:00:00.000000000'", time.UTC, nil, types.Type{}, "out of range for TIMESTAMP(9) (supported years 1678-2261)"},
		{"micros far past ok", "TIMESTAMP '1000-01-01 00:00:00.000001'", time.UTC, time.Date(1000, 1, 1, 0, 0, 0, 1000, time.UTC).UnixMicro(), types.TimestampOf(6), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newTestValidator(t)
			v.opts.Loc = c.loc
			n, err := plan(t, v, "SELECT "+c.sql)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			var lit *logical.Literal
			logical.Walk(n.(*logical.Project).Exprs[0], func(e logical.Expr) bool {
				if l, ok := e.(*logical.Literal); ok && lit == nil {
					lit = l
				}
				return true
			})
			require.NotNil(t, lit)
			require.Equal(t, c.want, lit.Value)
			require.Equal(t, c.typ.WithNullable(false), lit.T)
		})
	}
}
