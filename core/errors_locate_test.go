package core

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrorsWithoutPositionGetCaret: errors Flink reports without a
// position (an unknown table of INSERT, DROP, ALTER, DESCRIBE; a table's
// connector options, found when the table is used; a catalog's options)
// keep Flink's class and message, and the clients still get the token's
// position in the script and a hint.
func TestErrorsWithoutPositionGetCaret(t *testing.T) {
	const ddl = "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'rows-per-second2' = '1');\n" +
		"CREATE TABLE u (a INT) WITH ('connector' = 'datagenn');\n" +
		"CREATE TABLE w (a INT) WITH ('connector' = 'filesystem', 'format' = 'csv');\n"
	cases := []struct {
		name, stmt, reason, context string
	}{
		{"insert into unknown table", "INSERT INTO tt SELECT 1;",
			"org.apache.flink.table.api.ValidationException: Object 'tt' not found within 'default_catalog.default_database'",
			"From line 4, column 13 to line 4, column 14:\nINSERT INTO tt SELECT 1;\n            ^^\nDid you mean 't'?\n"},
		{"qualified insert target", "INSERT INTO default_database.nope SELECT 1;",
			"org.apache.flink.table.api.ValidationException: Object 'nope' not found within 'default_catalog.default_database'",
			"From line 4, column 13 to line 4, column 33:\nINSERT INTO default_database.nope SELECT 1;\n            ^^^^^^^^^^^^^^^^^^^^^\n"},
		{"unsupported option", "SELECT a\nFROM t;",
			"org.apache.flink.table.api.ValidationException: Unsupported options found for 'datagen'.\n\nUnsupported options:\n\nrows-per-second2\n\nSupported options:\n\n" +
				"connector\nfields.a.kind\nfields.a.max\nfields.a.min\nfields.a.null-rate\nnumber-of-rows\nrows-per-second\nscan.parallelism",
			"From line 5, column 6 to line 5, column 6:\nFROM t;\n     ^\nDid you mean 'rows-per-second'?\n"},
		{"unknown connector", "SELECT * FROM u;", "", "From line 4, column 15 to line 4, column 15:\nSELECT * FROM u;\n              ^\nDid you mean 'datagen'?\n"},
		{"missing option", "SELECT * FROM w;", "org.apache.flink.table.api.ValidationException: One or more required options are missing.\n\nMissing required options are:\n\npath",
			"From line 4, column 15 to line 4, column 15:\nSELECT * FROM w;\n              ^\n"},
		{"drop unknown table", "DROP TABLE nope2;",
			"org.apache.flink.table.api.ValidationException: Table with identifier 'default_catalog.default_database.nope2' does not exist.",
			"From line 4, column 12 to line 4, column 16:\nDROP TABLE nope2;\n           ^^^^^\n"},
		{"alter unknown table", "ALTER TABLE nope3 RENAME TO x;",
			"org.apache.flink.table.api.ValidationException: Table `default_catalog`.`default_database`.`nope3` doesn't exist or is a temporary table.",
			"From line 4, column 13 to line 4, column 17:\nALTER TABLE nope3 RENAME TO x;\n            ^^^^^\n"},
		{"catalog option", "CREATE CATALOG c WITH ('type' = 'generic_in_memory', 'defaultdatabase' = 'x');", "",
			"From line 4, column 54 to line 4, column 70:\nCREATE CATALOG c WITH ('type' = 'generic_in_memory', 'defaultdatabase' = 'x');\n" +
				"                                                     ^^^^^^^^^^^^^^^^^\nDid you mean 'default-database'?\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := NewTableEnvironment(InStreamingMode())
			script := ddl + c.stmt
			e := runScriptErr(t, env, script)
			if c.reason != "" {
				require.Equal(t, c.reason, e.Reason())
			}
			require.Equal(t, c.context, ErrorContext(e, script))
		})
	}
	// without a script the position is the statement's
	env := NewTableEnvironment(InStreamingMode())
	_, err := env.ExecuteSQL(context.Background(), "INSERT INTO nope SELECT 1")
	require.Equal(t, "From line 1, column 13 to line 1, column 16:\nINSERT INTO nope SELECT 1\n            ^^^^\n", ErrorContext(err, "INSERT INTO nope SELECT 1"))
}

func TestResetWarnsAboutMisspelledKey(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	var stdout, stderr bytes.Buffer
	env.SetOutput(&stdout, &stderr)
	ctx := context.Background()
	_, err := env.ExecuteSQL(ctx, "RESET 'table.exec.mini-batch.enabeld'")
	require.NoError(t, err) // Flink accepts any key
	require.Equal(t, "[WARN] 'table.exec.mini-batch.enabeld' is not a known option key; it is reset anyway, as Flink does. Did you mean 'table.exec.mini-batch.enabled'?\n", stderr.String())
	stderr.Reset()
	for _, q := range []string{"RESET 'table.exec.mini-batch.enabled'", "RESET 'my.own.key'", "RESET"} {
		_, err := env.ExecuteSQL(ctx, q)
		require.NoError(t, err)
	}
	require.Empty(t, stderr.String())
}
