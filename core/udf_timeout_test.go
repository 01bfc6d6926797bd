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

// TestUDFMemoryLimitOption: an allocation over tablerun.udf.memory-limit
// fails its statement naming the function and the line, instead of
// killing the process, and the session goes on.
func TestUDFMemoryLimitOption(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "SET 'tablerun.udf.memory-limit' = '32 mb'")
	exec(t, e, `CREATE TEMPORARY FUNCTION huge(a INT) RETURNS INT LANGUAGE PYTHON AS $$
def huge(a):
    s = 'x' * 10**10
    return len(s)
$$`)
	exec(t, e, `CREATE TEMPORARY FUNCTION jhuge(a INT) RETURNS INT LANGUAGE JAVASCRIPT AS $$
function jhuge(a) {
  return new Array(1e9).fill(0).length;
}
$$`)
	for q, want := range map[string]string{
		"SELECT huge(1)":  "Python UDF 'huge' failed at inline body of huge, line 3: MemoryError: the call would allocate 9.3 gb, over the memory limit of 32 mb",
		"SELECT jhuge(1)": "JavaScript UDF 'jhuge' failed at inline body of jhuge, line 3, column 29: RangeError: the call would allocate 14.9 gb, over the memory limit of 32 mb",
	} {
		_, err := e.ExecuteSQL(context.Background(), q)
		require.ErrorContains(t, err, want, q)
	}
	require.Equal(t, [][]any{{int32(2)}}, exec(t, e, "SELECT 1 + 1").Rows())
	_, err := e.ExecuteSQL(context.Background(), "SET 'tablerun.udf.memory-limit' = 'lots'")
	require.Error(t, err)
	// '0' turns the limit off for functions created after it.
	exec(t, e, "SET 'tablerun.udf.memory-limit' = '0'")
	exec(t, e, `CREATE TEMPORARY FUNCTION big(a INT) RETURNS INT LANGUAGE PYTHON AS $$
def big(a):
    return len(('x' * 1024) * (40 * 1024))
$$`)
	require.Equal(t, [][]any{{int32(40 << 20)}}, exec(t, e, "SELECT big(1)").Rows())
}
