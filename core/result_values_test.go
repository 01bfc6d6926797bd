package core

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// Collect hands out Go values: core.Decimal with its scale, time.Time for
// dates and timestamps, time.Duration for TIME and day-time intervals,
// converted inside ARRAY, ROW and MAP too.
func TestCollectGoValues(t *testing.T) {
	env := NewTableEnvironment(InBatchMode().WithOption("table.local-time-zone", "Asia/Shanghai"))
	res, err := env.ExecuteSQL(context.Background(), `SELECT
	    CAST(-0.05 AS DECIMAL(10, 2)), CAST(12 AS DECIMAL(5, 0)),
	    DATE '2024-03-01', TIME '10:03:11', TIMESTAMP '2024-03-01 10:03:11.120',
	    TO_TIMESTAMP_LTZ(0, 3), INTERVAL '2' HOUR, INTERVAL '14' MONTH,
	    ARRAY[CAST(1.5 AS DECIMAL(3, 1))], ROW(DATE '2024-01-02', 'x'), MAP['k', TIMESTAMP '2024-01-01 00:00:00'],
	    CAST(NULL AS DECIMAL(10, 2)), 7, 'text'`)
	require.NoError(t, err)
	var rows []Row
	for r := range res.Collect() {
		rows = append(rows, r)
	}
	require.Len(t, rows, 1)
	r := rows[0]
	d := r[0].(Decimal)
	require.Equal(t, "-0.05", d.String())
	require.Equal(t, int32(2), d.Scale())
	require.Equal(t, int32(10), d.Precision())
	require.Equal(t, big.NewInt(-5), d.Unscaled())
	require.Equal(t, big.NewRat(-1, 20), d.Rat())
	require.InDelta(t, -0.05, d.Float64(), 1e-12)
	require.Equal(t, NewDecimal(-5, 10, 2), d) // comparable
	require.Equal(t, "12", r[1].(Decimal).String())
	require.Equal(t, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), r[2])
	require.Equal(t, 10*time.Hour+3*time.Minute+11*time.Second, r[3])
	require.Equal(t, time.Date(2024, 3, 1, 10, 3, 11, 120e6, time.UTC), r[4])
	ltz := r[5].(time.Time)
	require.True(t, ltz.Equal(time.Unix(0, 0)))
	require.Equal(t, "Asia/Shanghai", ltz.Location().String())
	require.Equal(t, 2*time.Hour, r[6])
	require.Equal(t, int32(14), r[7])
	require.Equal(t, []any{NewDecimal(15, 3, 1)}, r[8])
	require.Equal(t, []any{time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), "x"}, r[9])
	require.Equal(t, &types.MapValue{Keys: []any{"k"}, Values: []any{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}}, r[10])
	require.Nil(t, r[11])
	require.Equal(t, int32(7), r[12])
	require.Equal(t, "text", r[13])

	// Rows keeps the canonical values (what Format takes)
	require.IsType(t, int32(0), res.Rows()[0][2])
}
