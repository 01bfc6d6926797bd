package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBetweenIndependentOfOptimizer runs x BETWEEN lo AND hi over operands
// of mixed types, as constants and as a column, with the optimizer's rules
// on and off: the outcome (the value, or failing) must be the same in all
// four, which needs BETWEEN's three operands coerced together.
func TestBetweenIndependentOfOptimizer(t *testing.T) {
	ops := []string{"'AQID'", "''", "'00:00:01'", "TIME '00:00:00'", "TIME '00:00:02'", "DATE '2024-01-02'", "'2024-01-02'", "1", "2.5", "CAST(NULL AS STRING)"}
	on, off := newEnv(t), newEnv(t)
	exec(t, off, "SET 'table.optimizer.disabled-rules' = '*'")
	outcome := func(e *TableEnvironment, q string) string {
		res, err := e.ExecuteSQL(context.Background(), q)
		if err != nil {
			return "error"
		}
		return fmt.Sprint(res.Rows())
	}
	checked := 0
	for _, v := range ops {
		for _, lo := range ops {
			for _, hi := range ops {
				expr := fmt.Sprintf("%%s BETWEEN %s AND %s", lo, hi)
				consts := "SELECT " + fmt.Sprintf(expr, v)
				column := fmt.Sprintf("SELECT %s FROM (VALUES (%s)) AS t(c)", fmt.Sprintf(expr, "c"), v)
				want := outcome(on, consts)
				for _, q := range []struct {
					e   *TableEnvironment
					sql string
				}{{off, consts}, {on, column}, {off, column}} {
					require.Equal(t, want, outcome(q.e, q.sql), "%s (rules on: %s)", q.sql, consts)
				}
				checked++
			}
		}
	}
	require.Equal(t, len(ops)*len(ops)*len(ops), checked)
}
