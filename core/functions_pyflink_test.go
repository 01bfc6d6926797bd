package core

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// pyflinkEnv returns a batch environment whose python.files is the
// PyFlink-style UDF file of examples/pyflink, registered the Flink way.
func pyflinkEnv(t *testing.T, streaming bool) *TableEnvironment {
	t.Helper()
	e := newEnv(t)
	if streaming {
		e = NewTableEnvironment(InStreamingMode())
	}
	file, err := filepath.Abs(filepath.Join("..", "examples", "pyflink", "udfs.py"))
	require.NoError(t, err)
	exec(t, e, "SET 'python.files' = '"+file+"'")
	for _, f := range []string{"scaled", "add", "plus_one", "first_word", "split_words", "split_rows", "weighted_avg", "stars"} {
		exec(t, e, "CREATE TEMPORARY FUNCTION "+f+" AS 'udfs."+f+"' LANGUAGE PYTHON")
	}
	exec(t, e, "CREATE TEMPORARY VIEW t(id, s, v, w) AS VALUES (1, 'hello big world', 10, 1), (2, 'a b', 20, 3), (1, 'x', 30, 2)")
	return e
}

func sortedRows(rows [][]any) [][]any {
	sort.SliceStable(rows, func(i, j int) bool { return len(rows[i]) > 0 && len(rows[j]) > 0 && lessAny(rows[i][0], rows[j][0]) })
	return rows
}

func lessAny(a, b any) bool {
	switch x := a.(type) {
	case int32:
		return x < b.(int32)
	case int64:
		return x < b.(int64)
	case string:
		return x < b.(string)
	}
	return false
}

// TestPyFlinkFunctions: a UDF file written for PyFlink (udf, udtf, udaf as
// decorators and calls, ScalarFunction with open and a FunctionContext,
// TableFunction yielding Rows, AggregateFunction with a Row accumulator,
// DataTypes and type strings) runs unchanged.
func TestPyFlinkFunctions(t *testing.T) {
	e := pyflinkEnv(t, false)
	rows := exec(t, e, "SELECT id, scaled(s), add(id, v), plus_one(v), first_word(s), stars(id) FROM t").Rows()
	require.Equal(t, [][]any{
		{int32(1), int64(150), int64(11), int64(11), []any{"hello", int32(5)}, "*"},
		{int32(2), int64(30), int64(22), int64(21), []any{"a", int32(1)}, "**"},
		{int32(1), int64(10), int64(31), int64(31), []any{"x", int32(1)}, "*"},
	}, rows)
	// no input_types: each call signature gets its own instance
	rows = exec(t, e, "SELECT add(CAST(1 AS BIGINT), 2), add(id, id), plus_one(CAST(41 AS TINYINT)) FROM t WHERE id = 2").Rows()
	require.Equal(t, [][]any{{int64(3), int64(4), int64(42)}}, rows)

	for _, f := range []string{"split_words", "split_rows"} {
		rows = exec(t, e, "SELECT id, word, n FROM t, LATERAL TABLE("+f+"(s)) AS T(word, n)").Rows()
		require.Equal(t, [][]any{
			{int32(1), "hello", int32(5)}, {int32(1), "big", int32(3)}, {int32(1), "world", int32(5)},
			{int32(2), "a", int32(1)}, {int32(2), "b", int32(1)}, {int32(1), "x", int32(1)},
		}, rows, f)
	}
	rows = exec(t, e, "SELECT id, weighted_avg(v, w) FROM t GROUP BY id").Rows()
	require.Equal(t, [][]any{{int32(1), int64(23)}, {int32(2), int64(20)}}, sortedRows(rows))

	// input_types are a signature: a call that does not fit fails validation
	_, err := e.ExecuteSQL(context.Background(), "SELECT stars('x')")
	require.ErrorContains(t, err, "stars")
	// DESCRIBE FUNCTION shows the class name as Flink does
	desc := exec(t, e, "DESCRIBE FUNCTION add").Rows()
	require.Contains(t, desc, []any{"class name", "udfs.add"})
}

// TestPyFlinkAggregateRetracts: the udaf's retract runs in streaming mode
// (a GROUP BY over a GROUP BY).
func TestPyFlinkAggregateRetracts(t *testing.T) {
	e := pyflinkEnv(t, true)
	// id 1's first row goes to k = 1 with 11, then moves to k = 0 with 21
	// (retracting 11 from k = 1); id 2 stays in k = 1 with 12
	res := exec(t, e, "SELECT k, weighted_avg(c * 10 + g, CAST(1 AS BIGINT)) FROM (SELECT id AS g, MOD(COUNT(*), 2) AS k, COUNT(*) AS c FROM t GROUP BY id) GROUP BY k")
	var got [][]any
	for _, r := range res.Rows() {
		got = append(got, r)
	}
	last := map[any]any{}
	for _, r := range got {
		last[r[0]] = r[1]
	}
	require.Equal(t, map[any]any{int32(0): int64(21), int32(1): int64(12)}, last, "changes: %v", got)
}

// TestPyFlinkErrors: what gpython cannot run, and files that are not
// there, fail with the reason and the line.
func TestPyFlinkErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	e := newEnv(t)
	exec(t, e, "SET 'python.files' = '"+write("pd.py", "from pyflink.table import DataTypes\nfrom pyflink.table.udf import udf\n\n@udf(result_type=DataTypes.BIGINT(), func_type='pandas')\ndef f(a):\n    return a\n")+"'")
	_, err := e.ExecuteSQL(context.Background(), "CREATE TEMPORARY FUNCTION f AS 'pd.f' LANGUAGE PYTHON")
	require.ErrorContains(t, err, "line 4")
	require.ErrorContains(t, err, "not supported yet: pandas scalar functions (func_type='pandas')")

	exec(t, e, "SET 'python.files' = '"+write("asy.py", "from pyflink.table import DataTypes\nfrom pyflink.table.udf import udf\n\n@udf(result_type=DataTypes.BIGINT())\nasync def f(a):\n    return a\n")+"'")
	_, err = e.ExecuteSQL(context.Background(), "CREATE TEMPORARY FUNCTION f AS 'asy.f' LANGUAGE PYTHON")
	require.ErrorContains(t, err, "line 5")
	require.ErrorContains(t, err, "not supported yet: async def")

	exec(t, e, "SET 'python.files' = '"+filepath.Join(dir, "nope.py")+"'")
	_, err = e.ExecuteSQL(context.Background(), "CREATE TEMPORARY FUNCTION f AS 'nope.f' LANGUAGE PYTHON")
	require.ErrorContains(t, err, "python.files")

	exec(t, e, "SET 'python.files' = '"+write("plain.py", "def f(a):\n    return a\n")+"'")
	exec(t, e, "CREATE TEMPORARY FUNCTION f AS 'plain.f' LANGUAGE PYTHON")
	_, err = e.ExecuteSQL(context.Background(), "SELECT f(1)")
	require.ErrorContains(t, err, "without a SQL signature")

	// a directory in python.files is on the path as it is
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "m.py"), []byte("from pyflink.table.udf import udf\ng = udf(lambda s: s + '!', result_type='STRING')\n"), 0o644))
	exec(t, e, "SET 'python.files' = '"+filepath.Join(dir, "lib")+"'")
	exec(t, e, "CREATE TEMPORARY FUNCTION g AS 'm.g' LANGUAGE PYTHON")
	require.Equal(t, [][]any{{"hi!"}}, exec(t, e, "SELECT g('hi')").Rows())
}
