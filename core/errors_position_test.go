package core

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/parser"
)

// runScriptErr runs the statements of script and returns the first error,
// its position shifted into the script as the clients do.
func runScriptErr(t *testing.T, env *TableEnvironment, script string) *Error {
	t.Helper()
	stmts, err := parser.ParseScript(script)
	require.NoError(t, err)
	for _, st := range stmts {
		if _, err := env.ExecuteSQL(context.Background(), st.Text); err != nil {
			var e *Error
			require.True(t, errors.As(ShiftPosition(err, st.Line, st.Col), &e))
			return e
		}
	}
	t.Fatal("no statement failed")
	return nil
}

const positionTable = `CREATE TEMPORARY TABLE t (amount INT, name STRING) WITH ('connector' = 'values', 'data' = '[[1, "a"]]');
`

func TestErrorPositionInScript(t *testing.T) {
	cases := []struct {
		name, script string
		reason       string
		pos          Position
		context      string
	}{
		{"column", positionTable + "SELECT kk FROM t;",
			"org.apache.calcite.sql.validate.SqlValidatorException: Column 'kk' not found in any table",
			Position{2, 8, 2, 9},
			"From line 2, column 8 to line 2, column 9:\nSELECT kk FROM t;\n       ^^\n"},
		{"second line of a statement", positionTable + "SELECT amount,\n\tamuont FROM t;",
			"org.apache.calcite.sql.validate.SqlValidatorException: Column 'amuont' not found in any table",
			Position{3, 2, 3, 7},
			"From line 3, column 2 to line 3, column 7:\n\tamuont FROM t;\n\t^^^^^^\nDid you mean 'amount'?\n"},
		{"statement after another on one line", positionTable + "SET 'a' = 'b'; SELECT nmae FROM t;",
			"org.apache.calcite.sql.validate.SqlValidatorException: Column 'nmae' not found in any table",
			Position{2, 23, 2, 26},
			"From line 2, column 23 to line 2, column 26:\nSET 'a' = 'b'; SELECT nmae FROM t;\n                      ^^^^\nDid you mean 'name'?\n"},
		{"qualified column", positionTable + "SELECT t.nam FROM t;",
			"org.apache.calcite.sql.validate.SqlValidatorException: Column 'nam' not found in table 't'",
			Position{2, 8, 2, 12},
			"From line 2, column 8 to line 2, column 12:\nSELECT t.nam FROM t;\n       ^^^^^\nDid you mean 'name'?\n"},
		{"table", positionTable + "SELECT 1 FROM tt;",
			"org.apache.calcite.sql.validate.SqlValidatorException: Object 'tt' not found within 'default_catalog.default_database'",
			Position{2, 15, 2, 16},
			"From line 2, column 15 to line 2, column 16:\nSELECT 1 FROM tt;\n              ^^\nDid you mean 't'?\n"},
		{"function", positionTable + "SELECT uper(name) FROM t;",
			"org.apache.calcite.sql.validate.SqlValidatorException: No match found for function signature uper(<CHARACTER>)",
			Position{2, 8, 2, 17},
			"From line 2, column 8 to line 2, column 17:\nSELECT uper(name) FROM t;\n       ^^^^^^^^^^\nDid you mean 'upper'?\n"},
		{"unknown function in an aggregate query", positionTable + "SELECT amount, kk(name) FROM t GROUP BY amount;",
			"org.apache.calcite.sql.validate.SqlValidatorException: No match found for function signature kk(<CHARACTER>)",
			Position{2, 16, 2, 23},
			"From line 2, column 16 to line 2, column 23:\nSELECT amount, kk(name) FROM t GROUP BY amount;\n               ^^^^^^^^\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := NewTableEnvironment(InBatchMode())
			e := runScriptErr(t, env, c.script)
			// Flink's client prints the message without the position
			require.Equal(t, c.reason, e.Reason())
			p, ok := e.Position()
			require.True(t, ok)
			require.Equal(t, c.pos, p)
			require.Contains(t, e.Detail(), p.String()+": ")
			require.Equal(t, c.context, ErrorContext(e, c.script))
		})
	}
}

func TestErrorContextParseError(t *testing.T) {
	script := "SET 'a' = 'b';\nSELECT * FROMM t;"
	stmts, err := parser.ParseScript(script)
	require.NoError(t, err)
	env := NewTableEnvironment(InBatchMode())
	_, err = env.ExecuteSQL(context.Background(), stmts[1].Text)
	err = ShiftPosition(err, stmts[1].Line, stmts[1].Col)
	require.Contains(t, Reason(err), "at line 2, column 10")
	// the message has the position already: only the line and the caret
	require.Equal(t, "SELECT * FROMM t;\n         ^\n", ErrorContext(err, script))
}

func TestNotGroupedStillReported(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	e := runScriptErr(t, env, positionTable+"SELECT amount, upper(name) FROM t GROUP BY amount;")
	require.Equal(t, "org.apache.calcite.sql.validate.SqlValidatorException: Expression 'name' is not being grouped", e.Reason())
}

func TestSetWarnsAboutMisspelledKey(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	var stdout, stderr bytes.Buffer
	env.SetOutput(&stdout, &stderr)
	ctx := context.Background()
	_, err := env.ExecuteSQL(ctx, "SET 'table.exec.mini-batch.enabeld' = 'true'")
	require.NoError(t, err) // Flink accepts any key
	v, ok := env.Config().Get("table.exec.mini-batch.enabeld")
	require.True(t, ok)
	require.Equal(t, "true", v)
	require.Equal(t, "[WARN] 'table.exec.mini-batch.enabeld' is not a known option key; it is set anyway, as Flink does. Did you mean 'table.exec.mini-batch.enabled'?\n", stderr.String())

	stderr.Reset()
	for _, q := range []string{
		"SET 'table.exec.mini-batch.enabled' = 'true'", // known
		"SET 'table.exec.state.ttl' = '1 h'",           // known, read outside core/config
		"SET 'my.own.key' = 'x'",                       // far from every known key
	} {
		_, err := env.ExecuteSQL(ctx, q)
		require.NoError(t, err)
	}
	require.Empty(t, stderr.String())
}

// An error inside a view's stored query is shown in the view's text, not
// shifted into the statement that reads the view.
func TestErrorInViewQuery(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	script := "CREATE TEMPORARY TABLE t (a INT, b STRING) WITH ('connector' = 'values');\n" +
		"CREATE TEMPORARY VIEW v AS SELECT a, b FROM t;\n" +
		"DROP TEMPORARY TABLE t;\n" +
		"CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'values');\n" +
		"SELECT * FROM v;"
	e := runScriptErr(t, env, script)
	require.Equal(t, "org.apache.calcite.sql.validate.SqlValidatorException: view default_catalog.default_database.v: Column 'b' not found in any table", e.Reason())
	_, ok := e.Position()
	require.False(t, ok, "the position is not in the statement")
	ctx := ErrorContext(e, script)
	require.True(t, strings.HasPrefix(ctx, "In view default_catalog.default_database.v: From line 1, column "), ctx)
	require.NotContains(t, ctx, "SELECT * FROM v")
	lines := strings.Split(ctx, "\n")
	require.Len(t, lines, 4) // position, view line, caret, ""
	caret := strings.Index(lines[2], "^")
	require.Equal(t, "b", strings.Trim(string([]rune(lines[1])[caret:caret+2]), "`"))
}
