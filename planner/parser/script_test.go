package parser

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseScript(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []ScriptStatement
	}{
		{"empty", "", nil},
		{"blank and comments only", "  \n-- c;\n/* x; */\n", nil},
		{"one without semicolon", "SELECT 1", []ScriptStatement{{"SELECT 1", 1, 1}}},
		{"two", "SELECT 1;\n  SELECT 2;", []ScriptStatement{{"SELECT 1", 1, 1}, {"SELECT 2", 2, 3}}},
		{"empty statements dropped", ";;SELECT 1;;", []ScriptStatement{{"SELECT 1", 1, 3}}},
		{"semicolon in string", "SELECT ';';SELECT 'a''b;'", []ScriptStatement{{"SELECT ';'", 1, 1}, {"SELECT 'a''b;'", 1, 12}}},
		{"semicolon in identifier", "SELECT `a;b` FROM t; SELECT 1", []ScriptStatement{{"SELECT `a;b` FROM t", 1, 1}, {"SELECT 1", 1, 22}}},
		{"semicolon in comments", "SELECT --;\n1;\nSELECT /* ; */ 2;", []ScriptStatement{{"SELECT --;\n1", 1, 1}, {"SELECT /* ; */ 2", 3, 1}}},
		{"leading comment kept", "-- hello\nSELECT 1;", []ScriptStatement{{"-- hello\nSELECT 1", 1, 1}}},
		{"trailing comment dropped", "SELECT 1; -- bye\n", []ScriptStatement{{"SELECT 1", 1, 1}}},
		{"trailing blanks trimmed", "SELECT 1  \n ;", []ScriptStatement{{"SELECT 1", 1, 1}}},
		{"dollar body", "CREATE FUNCTION f() RETURNS INT LANGUAGE PYTHON AS $$ a; b $$; SELECT 1", []ScriptStatement{{"CREATE FUNCTION f() RETURNS INT LANGUAGE PYTHON AS $$ a; b $$", 1, 1}, {"SELECT 1", 1, 64}}},
		{"hint counts as code", "/*+ X */;", []ScriptStatement{{"/*+ X */", 1, 1}}},
		{"statement set", "EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT ';';\nINSERT INTO b SELECT 2;\nEND;\nSELECT 3;",
			[]ScriptStatement{{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT ';';\nINSERT INTO b SELECT 2;\nEND", 1, 1}, {"SELECT 3", 5, 1}}},
		{"explain statement set", "explain plan for statement set begin insert into a select 1; end; select 2",
			[]ScriptStatement{{"explain plan for statement set begin insert into a select 1; end", 1, 1}, {"select 2", 1, 67}}},
		{"client statement set", "BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nEND;",
			[]ScriptStatement{{"BEGIN STATEMENT SET", 1, 1}, {"INSERT INTO a SELECT 1", 2, 1}, {"END", 3, 1}}},
		{"unicode columns", "SELECT 'ü';SELECT 2", []ScriptStatement{{"SELECT 'ü'", 1, 1}, {"SELECT 2", 1, 12}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseScript(tc.script)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	tests := []struct {
		script    string
		line, col int
	}{
		{"SELECT 1;\nSELECT 'abc;\n", 2, 8},
		{"SELECT 1; /* open", 1, 11},
		{"SELECT `x", 1, 8},
		{"SELECT $$ x", 1, 8},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			_, err := ParseScript(tc.script)
			var pe *Error
			require.True(t, errors.As(err, &pe), "%v", err)
			require.Equal(t, tc.line, pe.Line)
			require.Equal(t, tc.col, pe.Col)
		})
	}
}

// TestScriptErrorOffset checks that statement errors map back to the
// script with Error.Offset.
func TestScriptErrorOffset(t *testing.T) {
	script := "SELECT 1;\n\n  SELECT * FROMM t;\nSELECT\n  a,\n  FROM t;"
	stmts, err := ParseScript(script)
	require.NoError(t, err)
	require.Len(t, stmts, 3)
	want := []struct {
		line, col int
		msg       string
	}{
		{0, 0, ""},
		{3, 12, `Encountered "FROMM" at line 3, column 12.`},
		{6, 3, `Encountered "FROM" at line 6, column 3.`},
	}
	for i, s := range stmts {
		_, err := ParseStatement(s.Text)
		if want[i].line == 0 {
			require.NoError(t, err)
			continue
		}
		var pe *Error
		require.ErrorAs(t, err, &pe)
		moved := pe.Offset(s.Line, s.Col)
		require.Equal(t, want[i].line, moved.Line)
		require.Equal(t, want[i].col, moved.Col)
		require.Equal(t, want[i].msg, moved.Msg)
	}
}
