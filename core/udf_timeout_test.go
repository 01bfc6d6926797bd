package core

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestUDFTimeoutOption sets the script call limit from SQL: a loop that
// never calls a function stops at tablerun.udf.timeout, and the session
// goes on.
func TestUDFTimeoutOption(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "SET 'tablerun.udf.timeout' = '200 ms'")
	exec(t, e, `CREATE TEMPORARY FUNCTION spin(a INT) RETURNS INT LANGUAGE PYTHON AS $$
def spin(a):
    for i in range(10**12):
        a += 1
    return a
$$`)
	exec(t, e, `CREATE TEMPORARY FUNCTION jspin(a INT) RETURNS INT LANGUAGE JAVASCRIPT AS $$
function jspin(a) { for (;;) { a++; } }
$$`)
	for _, q := range []string{"SELECT spin(1)", "SELECT jspin(1)"} {
		start := time.Now()
		_, err := e.ExecuteSQL(context.Background(), q)
		require.ErrorContains(t, err, "timed out: the call ran longer than 200ms", q)
		require.Less(t, time.Since(start), 3*time.Second, q)
	}
	require.Equal(t, [][]any{{int32(2)}}, exec(t, e, "SELECT 1 + 1").Rows())
	_, err := e.ExecuteSQL(context.Background(), "SET 'tablerun.udf.timeout' = 'soon'")
	require.Error(t, err)
}
