package udf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

func TestCoerceNanoTimestamps(t *testing.T) {
	ctx := &function.EvalContext{Loc: time.UTC}
	tests := []struct {
		name string
		v    any
		t    types.Type
		want any
		err  string
	}{
		{"ts9 str", "1970-01-01 00:00:01.000000005", types.TimestampOf(9), int64(1_000_000_005), ""},
		{"ts9 time.Time", time.Unix(1, 5).UTC(), types.TimestampOf(9), int64(1_000_000_005), ""},
		{"ltz7 time.Time", time.Unix(1, 5).UTC(), types.TimestampLTZOf(7), int64(1_000_000_005), ""},
		{"ts6 time.Time", time.Unix(1, 5000).UTC(), types.TimestampOf(6), int64(1_000_005), ""},
		{"ts9 out of range", time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC), types.TimestampOf(9), nil, "out of range for TIMESTAMP(9)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Coerce(ctx, testLang, tc.v, tc.t)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
