package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

func TestFunctionStatementLayouts(t *testing.T) {
	tests := []struct {
		name  string
		setup []string
		sql   string
		want  string
	}{
		{"show modules", nil, "SHOW MODULES",
			"+-------------+\n| module name |\n+-------------+\n|        core |\n+-------------+\n1 row in set\n"},
		{"show full modules", []string{"LOAD MODULE dummy", "USE MODULES core"}, "SHOW FULL MODULES",
			"+-------------+-------+\n| module name |  used |\n+-------------+-------+\n|        core |  TRUE |\n|       dummy | FALSE |\n+-------------+-------+\n2 rows in set\n"},
		{"show user functions", []string{"CREATE FUNCTION func11 AS 'A'", "CREATE TEMPORARY FUNCTION func3 AS 'B'"}, "SHOW USER FUNCTIONS",
			"+---------------+\n| function name |\n+---------------+\n|        func11 |\n|         func3 |\n+---------------+\n2 rows in set\n"},
		{"show jars", nil, "SHOW JARS", "Empty set\n"},
		{"describe catalog function", []string{"CREATE FUNCTION f AS 'LowerUDF' USING JAR '/x/udf.jar'"}, "DESCRIBE FUNCTION f",
			"+--------------------+---------------------------------------------------+\n" +
				"|          info name |                                        info value |\n" +
				"+--------------------+---------------------------------------------------+\n" +
				"| is system function |                                             false |\n" +
				"|       is temporary |                                             false |\n" +
				"|         class name |                                          LowerUDF |\n" +
				"|  function language |                                              JAVA |\n" +
				"|      resource uris | [ResourceUri{resourceType=JAR, uri='/x/udf.jar'}] |\n" +
				"+--------------------+---------------------------------------------------+\n" +
				"5 rows in set\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, s := range tt.setup {
				exec(t, e, s)
			}
			require.Equal(t, tt.want, printed(t, exec(t, e, tt.sql)))
		})
	}
}

func TestFunctionStatementErrors(t *testing.T) {
	tests := []struct {
		name   string
		setup  []string
		sql    string
		reason string
	}{
		{"alter temporary", []string{"CREATE TEMPORARY FUNCTION f AS 'A'"}, "ALTER TEMPORARY FUNCTION f AS 'B'",
			"org.apache.flink.table.api.ValidationException: Alter temporary catalog function is not supported"},
		{"unknown module", nil, "LOAD MODULE hive",
			"org.apache.flink.table.api.ValidationException: Could not find any factory for identifier 'hive' that implements 'org.apache.flink.table.factories.ModuleFactory' in the classpath.\n\nAvailable factory identifiers are:\n\ncore\ndummy"},
		{"add jar", nil, "ADD JAR '/x.jar'",
			"org.apache.flink.table.api.TableException: not supported yet: ADD JAR: tablerun has no JVM to load Java classes; write functions in PYTHON or JAVASCRIPT"},
		{"java call", []string{"CREATE TEMPORARY SYSTEM FUNCTION j AS 'LowerUDF'"}, "SELECT j('A')",
			"org.apache.flink.table.api.TableException: not supported yet: calling java function 'j' (class 'LowerUDF'): tablerun has no JVM; write the function in PYTHON or JAVASCRIPT"},
		{"describe missing", nil, "DESCRIBE FUNCTION db.nope",
			"org.apache.flink.table.api.ValidationException: Function with the identifier 'db.nope' doesn't exist."},
		{"inline java", nil, "CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE JAVA AS $$ x $$",
			`org.apache.flink.table.api.ValidationException: A function with an inline body needs LANGUAGE PYTHON or LANGUAGE JAVASCRIPT, not "JAVA"`},
		{"qualified system", nil, "CREATE TEMPORARY SYSTEM FUNCTION db.f AS 'A'",
			"org.apache.flink.table.api.ValidationException: Temporary system function name must be a simple identifier, got 'db.f'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for _, s := range tt.setup {
				exec(t, e, s)
			}
			_, err := e.ExecuteSQL(context.Background(), tt.sql)
			require.Error(t, err)
			require.Equal(t, tt.reason, Reason(err))
		})
	}
}

func TestGoFunction(t *testing.T) {
	e := newEnv(t)
	def := &function.Definition{
		Kind: function.Scalar,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			return types.IntT, []types.Type{types.IntT}, nil
		},
		Eval: func(_ *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
			if args[0] == nil {
				return nil, nil
			}
			return args[0].(int32) * 2, nil
		},
	}
	require.NoError(t, e.CreateTemporarySystemFunction("twice", def))
	res := exec(t, e, "SELECT twice(x) FROM (VALUES (1), (21)) AS T(x)")
	require.Equal(t, [][]any{{int32(2)}, {int32(42)}}, res.Rows())
	require.Error(t, e.CreateTemporarySystemFunction("TWICE", def))
}

func TestScriptFileFunctions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "text.py"),
		[]byte("def shout(s):\n    return s + '!'\n"), 0o644))
	e := newEnv(t)
	e.SetScriptPath(dir)
	exec(t, e, "CREATE FUNCTION shout(s STRING) RETURNS STRING LANGUAGE PYTHON AS 'lib.text.shout'")
	require.Equal(t, [][]any{{"hi!"}}, exec(t, e, "SELECT shout('hi')").Rows())
	rows := exec(t, e, "DESCRIBE FUNCTION shout").Rows()
	require.Equal(t, []any{"class name", "lib.text.shout"}, rows[2])

	exec(t, e, "CREATE FUNCTION nosig AS 'lib.text.shout' LANGUAGE PYTHON")
	_, err := e.ExecuteSQL(context.Background(), "SELECT nosig('a')")
	require.ErrorContains(t, err, "not supported yet: python function 'default_catalog.default_database.nosig' AS 'lib.text.shout' without a SQL signature")

	_, err = e.ExecuteSQL(context.Background(), "CREATE TEMPORARY FUNCTION missing(s STRING) RETURNS STRING LANGUAGE PYTHON AS 'lib.nope.f'")
	require.ErrorContains(t, err, "script file lib/nope.py for function 'lib.nope.f' not found")
}

func TestFunctionsInStreamingMode(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, "CREATE TEMPORARY FUNCTION inc(a INT) RETURNS INT LANGUAGE JAVASCRIPT AS $$ function inc(a) { return a + 1; } $$")
	res := exec(t, e, "SELECT id, inc(id) FROM (VALUES (1), (2)) AS T(id)")
	require.Equal(t, [][]any{{int32(1), int32(2)}, {int32(2), int32(3)}}, res.Rows())
}

// Catalog functions of a persistent catalog survive the session: the
// catalog stores the definition text and the next session compiles it.
func TestCatalogFunctionsPersist(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fc")
	create := "CREATE CATALOG fc WITH ('type' = 'tablerun_file', 'path' = '" + dir + "')"
	e := newEnv(t)
	exec(t, e, create)
	exec(t, e, "USE CATALOG fc")
	db := exec(t, e, "SHOW CURRENT DATABASE").Rows()[0][0].(string)
	exec(t, e, "CREATE FUNCTION twice(a INT) RETURNS INT LANGUAGE PYTHON AS $$\ndef twice(a):\n    return a * 2\n$$")
	exec(t, e, "CREATE FUNCTION jfun AS 'com.example.J' USING JAR '/x.jar'")
	require.Equal(t, [][]any{{int32(4)}}, exec(t, e, "SELECT twice(2)").Rows())

	e2 := newEnv(t)
	exec(t, e2, create)
	require.Equal(t, [][]any{{int32(6)}}, exec(t, e2, "SELECT fc.`"+db+"`.twice(3)").Rows())
	require.Equal(t, [][]any{{"jfun"}, {"twice"}}, exec(t, e2, "SHOW USER FUNCTIONS FROM fc.`"+db+"`").Rows())
	rows := exec(t, e2, "DESCRIBE FUNCTION fc.`"+db+"`.jfun").Rows()
	require.Equal(t, []any{"resource uris", "[ResourceUri{resourceType=JAR, uri='/x.jar'}]"}, rows[4])
	exec(t, e2, "DROP FUNCTION fc.`"+db+"`.twice")

	e3 := newEnv(t)
	exec(t, e3, create)
	require.Equal(t, [][]any{{"jfun"}}, exec(t, e3, "SHOW USER FUNCTIONS FROM fc.`"+db+"`").Rows())
}
