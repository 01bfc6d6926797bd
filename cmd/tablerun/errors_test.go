package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A validation error of a script names its line and column within the
// whole script and draws a caret under the token, with a hint when a
// name in scope is close.
func TestScriptErrorCaret(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.sql")
	require.NoError(t, os.WriteFile(script, []byte("SET 'a' = 'b';\n"+
		"CREATE TEMPORARY TABLE t (amount INT) WITH ('connector' = 'values');\n"+
		"SELECT\n  amuont FROM t;\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-f", script}, &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, out.String(), "[ERROR] Could not execute SQL statement. Reason:\n"+
		"org.apache.calcite.sql.validate.SqlValidatorException: Column 'amuont' not found in any table\n"+
		"From line 4, column 3 to line 4, column 8:\n"+
		"  amuont FROM t;\n"+
		"  ^^^^^^\n"+
		"Did you mean 'amount'?\n\n")
}

// A failing init script (-i) is named, with the line of the failing
// statement, and nothing else runs.
func TestInitFileErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.sql")
	require.NoError(t, os.WriteFile(initFile, []byte("SET 'a' = 'b';\nSELECT nope FROM nowhere;\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-i", initFile, "-e", "SET 'q' = 'r'"}, &out, &errOut)
	require.Equal(t, 1, code)
	got := out.String() + errOut.String()
	require.Contains(t, got, "Object 'nowhere' not found within 'default_catalog.default_database'\n"+
		"From line 2, column 18 to line 2, column 24:\n")
	require.Contains(t, got, "[ERROR] The init file "+initFile+" failed at line 2; nothing else ran.\n")
	require.NotContains(t, got, "[INFO] Execute statement succeeded.") // -e did not run

	require.NoError(t, os.WriteFile(initFile, []byte("SET 'a' = 'b';\nSELEC 1;\n"), 0o644))
	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"-i", initFile, "-e", "SET 'q' = 'r'"}, &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, out.String()+errOut.String(), "SELEC 1;\n^\n\n[ERROR] The init file "+initFile+" failed at line 2; nothing else ran.\n")
}
