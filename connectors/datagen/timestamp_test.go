package datagen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// TestNanoTimestamps checks that random and sequence timestamps of
// precision 7..9 are nanoseconds (and 0..6 microseconds) near now.
func TestNanoTimestamps(t *testing.T) {
	schema := types.Schema{
		{Name: "ts9", Type: types.TimestampOf(9)}, {Name: "ltz7", Type: types.TimestampLTZOf(7)},
		{Name: "ts3", Type: types.TimestampOf(3)}, {Name: "ltz6", Type: types.TimestampLTZOf(6)},
	}
	cases := []struct {
		name string
		opts map[string]string
	}{
		{"random", map[string]string{"number-of-rows": "5", "fields.ts9.max-past": "1 h"}},
		{"sequence", map[string]string{"number-of-rows": "5", "fields.ts9.kind": "sequence", "fields.ltz7.kind": "sequence"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := time.Now().Add(-time.Hour - time.Second)
			rows := run(t, c.opts, schema)
			after := time.Now().Add(time.Second)
			require.Len(t, rows, 5)
			for _, r := range rows {
				for i, f := range schema {
					tm := types.TimestampToTime(r[i].(int64), f.Type)
					require.True(t, tm.After(before) && tm.Before(after), "%s: %s", f.Name, tm)
				}
			}
		})
	}
}
